//! What is served: every `#[tool]`, `#[resource]` and `#[prompt]` linked into the binary,
//! or those `Server::only*` and `Server::only_module` pick, and the items added at run
//! time.

use std::sync::Arc;

use crate::registry::dynamic::{DynamicPrompt, DynamicResource, DynamicTool};
use crate::registry::{
    BuildError, Defined, Defs, PromptDef, PromptRegistration, ResourceDef, ResourceRegistration,
    ToolDef, ToolRegistration,
};
use crate::Error;

/// Items named explicitly with `Server::only*`.
#[derive(Default)]
pub(super) struct Selection {
    pub(super) tools: Vec<&'static ToolDef>,
    pub(super) resources: Vec<&'static ResourceDef>,
    pub(super) prompts: Vec<&'static PromptDef>,
}

/// An item added at run time (`Server::tool_from_json` and the others), or why it could
/// not be read.
pub(super) type Added<T> = Result<Arc<T>, BuildError>;

/// The items added at run time, as the builder collected them.
#[derive(Default)]
pub(super) struct AddedItems {
    pub(super) tools: Vec<Added<DynamicTool>>,
    pub(super) prompts: Vec<Added<DynamicPrompt>>,
    pub(super) resources: Vec<Added<DynamicResource>>,
}

/// What is served: the items `only` and `modules` pick (every one linked in when neither
/// picks any), and those `added` at run time; or why some added ones could not be read.
pub(super) fn defs(
    only: Option<Selection>,
    modules: &[String],
    added: AddedItems,
    disabled_tags: Vec<String>,
) -> Result<Defs, Error> {
    let filtering = only.is_some() || !modules.is_empty();
    let only = only.unwrap_or_default();
    let mut unreadable = Vec::new();
    let defs = Defs {
        tools: pick(ToolRegistration::all(), &only.tools, modules, filtering),
        resources: pick(
            ResourceRegistration::all(),
            &only.resources,
            modules,
            filtering,
        ),
        prompts: pick(PromptRegistration::all(), &only.prompts, modules, filtering),
        dynamic: readable(added.tools, &mut unreadable),
        dynamic_prompts: readable(added.prompts, &mut unreadable),
        dynamic_resources: readable(added.resources, &mut unreadable),
        disabled_tags,
    };
    if unreadable.is_empty() {
        Ok(defs)
    } else {
        Err(Error::Build(unreadable))
    }
}

/// The items that could be read; why the others could not goes to `unreadable`.
fn readable<T>(added: Vec<Added<T>>, unreadable: &mut Vec<BuildError>) -> Vec<Arc<T>> {
    let mut items = Vec::new();
    for item in added {
        match item {
            Ok(item) => items.push(item),
            Err(error) => unreadable.push(error),
        }
    }
    items
}

fn in_modules(modules: &[String], module_path: &str) -> bool {
    modules.iter().any(|m| {
        module_path == m
            || module_path
                .strip_prefix(m.as_str())
                .is_some_and(|rest| rest.starts_with("::"))
    })
}

/// Everything registered, or what `only*` and `only_module` pick (each item once).
fn pick<T: Defined + 'static>(
    all: impl Iterator<Item = &'static T>,
    named: &[&'static T],
    modules: &[String],
    filtering: bool,
) -> Vec<&'static T> {
    if !filtering {
        return all.collect();
    }
    let mut picked: Vec<&'static T> = all
        .filter(|d| in_modules(modules, d.module_path()))
        .collect();
    for def in named {
        if !picked.iter().any(|p| std::ptr::eq(*p, *def)) {
            picked.push(def);
        }
    }
    picked
}
