//! Rules of `#[prompt]` checked at compile time: the name, and that every completer names
//! one of the prompt's arguments.

use super::model::Model;
use crate::errors::Errors;

pub fn check(model: &Model, errors: &mut Errors) {
    check_name(model, errors);
    check_completers(model, errors);
}

/// Prompt names: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
fn check_name(model: &Model, errors: &mut Errors) {
    let name = &model.name;
    if name.is_empty()
        || name.len() > 128
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        errors.span(
            model.name_span,
            format!("prompt name `{name}` must be 1 to 128 characters of A-Z a-z 0-9 _ - ."),
        );
    }
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
