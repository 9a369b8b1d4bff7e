//! The checks the catalog's cases share (one item per name or URI, the states an item
//! needs), and the rules between items, checked once every item is prepared.

use std::collections::HashMap;
use std::sync::Arc;

use super::BuildError;
use crate::registry::dynamic::Added;
use crate::registry::{Defined, ParamSpec};

/// `defs` with each `key` once, in key order; each key defined more than once is left
/// out, and `duplicate` of it and the `place`s of its definitions goes to `errors`.
pub(super) fn one_per_key<T: Copy>(
    defs: impl IntoIterator<Item = T>,
    key: impl Fn(T) -> String,
    place: impl Fn(T) -> String,
    duplicate: fn(String, Vec<String>) -> BuildError,
    errors: &mut Vec<BuildError>,
) -> Vec<T> {
    let mut by_key: HashMap<String, Vec<T>> = HashMap::new();
    for def in defs {
        by_key.entry(key(def)).or_default().push(def);
    }
    let mut keys: Vec<String> = by_key.keys().cloned().collect();
    keys.sort();
    let mut unique = Vec::new();
    for k in keys {
        match by_key.get(&k).map(Vec::as_slice) {
            Some([one]) => unique.push(*one),
            Some(same) => errors.push(duplicate(k, same.iter().map(|d| place(*d)).collect())),
            None => {}
        }
    }
    unique
}

/// One namespace of names (the tools', or the prompts'): the definitions the macros
/// `emitted` and the items `added` at run time, each name once, in name order (a clash,
/// between either kind, is `duplicate`'s error), each prepared by `prepare`, given the item
/// added at run time when it was one.
pub(super) fn by_name<D: Defined, E, H, S>(
    emitted: &[&'static D],
    added: &[Arc<Added<D, E, H>>],
    duplicate: fn(String, Vec<String>) -> BuildError,
    prepare: impl Fn(&'static D, Option<&Added<D, E, H>>) -> Result<S, Vec<BuildError>>,
    errors: &mut Vec<BuildError>,
) -> Vec<S> {
    let emitted = emitted.iter().map(|def| (*def, None));
    let added = added.iter().map(|item| (item.def, Some(&**item)));
    let unique = one_per_key(
        emitted.chain(added),
        |(def, _)| def.name().to_owned(),
        |(def, _)| def.place(),
        duplicate,
        errors,
    );
    prepare_each(unique, |(def, added)| prepare(def, added), errors)
}

/// Each of `defs` prepared, in order; what is wrong with the others goes to `errors`.
pub(super) fn prepare_each<T, S>(
    defs: impl IntoIterator<Item = T>,
    prepare: impl Fn(T) -> Result<S, Vec<BuildError>>,
    errors: &mut Vec<BuildError>,
) -> Vec<S> {
    let mut prepared = Vec::new();
    for def in defs {
        match prepare(def) {
            Ok(served) => prepared.push(served),
            Err(e) => errors.extend(e),
        }
    }
    prepared
}

/// The states `item` needs that were not registered, each an error.
pub(super) fn check_states(
    spec: &ParamSpec,
    item: &str,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
) -> Result<(), Vec<BuildError>> {
    let missing: Vec<BuildError> = spec
        .states()
        .iter()
        .filter(|(type_id, _)| !has_state(*type_id))
        .map(|(_, type_name)| BuildError::MissingState {
            item: item.to_owned(),
            type_name: (*type_name).to_owned(),
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}
