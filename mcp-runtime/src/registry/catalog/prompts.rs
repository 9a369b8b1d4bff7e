//! The catalog's prompts: each `#[prompt]` and each prompt added at run time, its name
//! served once, its arguments read from its parameters (or taken as given).

use serde_json::Value;

use super::checks::{by_name, check_states};
use super::{BuildError, Defs};
use crate::protocol::Prompt;
use crate::registry::dynamic::DynamicGet;
use crate::registry::{ParamSpec, PromptDef};

/// One prompt as served.
pub struct CatalogPrompt {
    /// What the macro emitted.
    pub def: &'static PromptDef,
    /// The `prompts/list` entry.
    pub prompt: Prompt,
    /// The handler of a prompt added at run time (`def.get` for a `#[prompt]`).
    pub(crate) dynamic: Option<DynamicGet>,
}

impl CatalogPrompt {
    /// Start the handler on these (checked) arguments.
    pub(crate) fn get(
        &self,
        ctx: crate::core::RequestContext,
        arguments: serde_json::Map<String, Value>,
    ) -> crate::registry::PromptFuture {
        match &self.dynamic {
            Some(get) => get(ctx, arguments),
            None => (self.def.get)(ctx, arguments),
        }
    }
}

/// Every prompt of `defs`, sorted by name; what is wrong with the others goes to `errors`.
/// Dynamic prompts share the namespace with the `#[prompt]` functions.
pub(super) fn prompts(
    defs: &Defs,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
    errors: &mut Vec<BuildError>,
) -> Vec<CatalogPrompt> {
    by_name(
        &defs.prompts,
        &defs.dynamic_prompts,
        |name, places| BuildError::DuplicatePrompt { name, places },
        |def, added| match added {
            // Published as given, answered by its handler.
            Some(prompt) => Ok(CatalogPrompt {
                def,
                prompt: prompt.entry.clone(),
                dynamic: Some(prompt.handler.clone()),
            }),
            None => prepare(def, has_state),
        },
        errors,
    )
}

/// A `#[prompt]`: its arguments from its parameters.
fn prepare(
    def: &'static PromptDef,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
) -> Result<CatalogPrompt, Vec<BuildError>> {
    let item = format!("prompt `{}`", def.name);
    let spec = ParamSpec::of(def.params);
    check_states(&spec, &item, has_state)?;
    let arguments = spec.finish_prompt().map_err(|problems| {
        vec![BuildError::InvalidItem {
            item: item.clone(),
            problems,
        }]
    })?;
    Ok(CatalogPrompt {
        def,
        prompt: Prompt {
            name: def.name.to_owned(),
            title: def.title.map(str::to_owned),
            description: def.description.map(str::to_owned),
            arguments,
        },
        dynamic: None,
    })
}
