//! Wire rules checked at compile time.

use super::model::Model;
use crate::errors::Errors;

/// Tool names: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
pub fn check(model: &Model, errors: &mut Errors) {
    let name = &model.name;
    if name.is_empty() || name.len() > 128 {
        errors.span(
            model.name_span,
            format!(
                "a tool name must be 1 to 128 characters long (this one has {})",
                name.chars().count()
            ),
        );
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        let fixed: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        errors.span(
            model.name_span,
            format!("tool name `{name}` contains {bad:?}; only A-Z a-z 0-9 _ - . are allowed (e.g. `{fixed}`)"),
        );
    }
}
