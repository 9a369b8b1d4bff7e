//! Several versions of one tool name: the highest is served under the name, the others
//! stay callable by a call that pins them, marked deprecated. Also the `_meta` members a
//! tool's tags, version and scopes are published under.

use std::cmp::Ordering;

use serde_json::{json, Map, Value};

use super::tools::CatalogTool;
use super::BuildError;
use crate::registry::Defined;

/// `_meta` member of a tool entry listing its tags (`#[tool(tags(..))]`).
pub const TAGS_META: &str = "rs.mcp-runtime/tags";

/// `_meta` member of a tool entry naming its version (`#[tool(version = "..")]`); a
/// `tools/call` pins a version by sending it in its own `_meta`.
pub const VERSION_META: &str = "rs.mcp-runtime/version";

/// `_meta` member of a tool entry listing the OAuth scopes a caller needs
/// (`#[tool(scopes(..))]`), so that a client can ask for them up front and a catalog
/// snapshot shows a scope added as the breaking change it is.
pub const SCOPES_META: &str = "rs.mcp-runtime/scopes";

/// `_meta` member of an older version's entry, and of the results of calls pinned to
/// it: `{"current": "<the version served by default>"}`.
pub const DEPRECATED_META: &str = "rs.mcp-runtime/deprecated";

/// Compare two versions number by number ("1.10" is above "1.9"; "2" and "2.0" are one).
pub(crate) fn compare(a: &str, b: &str) -> Ordering {
    let numbers = |v: &str| -> Vec<u64> {
        let mut parts: Vec<u64> = v.split('.').map(|p| p.parse().unwrap_or(0)).collect();
        while parts.len() > 1 && parts.last() == Some(&0) {
            parts.pop();
        }
        parts
    };
    numbers(a).cmp(&numbers(b))
}

/// The tools served under their names (one per name, the highest version of a versioned
/// name) and the older versions (sorted by name, then version, highest first), from
/// `prepared` tools whose (name, version) pairs are unique.
pub(super) fn split(
    mut prepared: Vec<CatalogTool>,
    errors: &mut Vec<BuildError>,
) -> (Vec<CatalogTool>, Vec<CatalogTool>) {
    prepared.sort_by(|a, b| {
        a.def
            .name
            .cmp(b.def.name)
            .then_with(|| compare(b.def.version.unwrap_or("0"), a.def.version.unwrap_or("0")))
    });
    let mut current: Vec<CatalogTool> = Vec::new();
    let mut older = Vec::new();
    for mut tool in prepared {
        publish(&mut tool);
        let Some(newest) = current.last().filter(|t| t.def.name == tool.def.name) else {
            current.push(tool);
            continue;
        };
        match (newest.def.version, tool.def.version) {
            (Some(newest), Some(version)) if compare(newest, version) == Ordering::Equal => {
                errors.push(BuildError::InvalidTool {
                    name: tool.def.name.to_owned(),
                    problems: vec![format!(
                        "two definitions give it the same version (`{newest}`), once numbers are compared: give each a version of its own"
                    )],
                });
            }
            (Some(newest), Some(_)) => {
                deprecate(&mut tool, newest);
                older.push(tool);
            }
            _ => errors.push(BuildError::InvalidTool {
                name: tool.def.name.to_owned(),
                problems: vec![format!(
                    "it is defined more than once ({} and {}), and not every definition has a `version`: give each one, such as #[tool(version = \"2\")]; the highest is served by default",
                    newest.def.place(),
                    tool.def.place()
                )],
            }),
        }
    }
    (current, older)
}

/// Publish the tool's tags, version and scopes in its entry's `_meta` (a tool added at
/// run time keeps members it already has).
fn publish(tool: &mut CatalogTool) {
    let def = tool.def;
    if def.tags.is_empty() && def.version.is_none() && def.scopes.is_empty() {
        return;
    }
    let meta = tool.tool.meta.get_or_insert_with(Map::new);
    if !def.tags.is_empty() {
        meta.entry(TAGS_META).or_insert_with(|| json!(def.tags));
    }
    if !def.scopes.is_empty() {
        meta.entry(SCOPES_META).or_insert_with(|| json!(def.scopes));
    }
    if let Some(version) = def.version {
        meta.entry(VERSION_META).or_insert_with(|| json!(version));
    }
}

/// Mark `tool`, an older version, deprecated in favour of `current`: in the description
/// the model reads, and in `_meta`.
fn deprecate(tool: &mut CatalogTool, current: &str) {
    let version = tool.def.version.unwrap_or_default();
    let note = format!(
        "Deprecated: this is version {version} of `{}`; version {current} is current.",
        tool.def.name
    );
    tool.tool.description = Some(match tool.tool.description.take() {
        Some(text) if !text.is_empty() => format!("{note}\n\n{text}"),
        _ => note,
    });
    tool.tool
        .meta
        .get_or_insert_with(Map::new)
        .insert(DEPRECATED_META.into(), json!({ "current": current }));
}

/// The `_meta` a result of a call pinned to an older version carries.
pub(crate) fn deprecated_meta(current: &str) -> Value {
    json!({ "current": current })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_number_by_number() {
        assert_eq!(compare("1.10", "1.9"), Ordering::Greater);
        assert_eq!(compare("2", "2.0"), Ordering::Equal);
        assert_eq!(compare("2", "10"), Ordering::Less);
        assert_eq!(compare("1.0.1", "1"), Ordering::Greater);
    }
}
