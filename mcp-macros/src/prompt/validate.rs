//! Rules of `#[prompt]` checked at compile time: the name, and that every completer names
//! one of the prompt's arguments.

use super::model::Model;
use crate::errors::Errors;
use crate::name;

/// Record every rule `model` breaks.
pub fn check(model: &Model, errors: &mut Errors) {
    name::check("prompt", &model.name, model.name_span, errors);
    check_completers(model, errors);
}

fn check_completers(model: &Model, errors: &mut Errors) {
    for (key, _) in &model.completers {
        if !model.params.iter().any(|p| *key == p.name) {
            let names: Vec<String> = model
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            errors.at(
                key,
                format!(
                    "`{key}` is not a parameter of this prompt{}",
                    if names.is_empty() {
                        String::new()
                    } else {
                        format!(" (parameters: {})", names.join(", "))
                    }
                ),
            );
        }
    }
}
