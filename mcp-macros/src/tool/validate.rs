//! Wire rules checked at compile time.

use super::model::Model;
use crate::errors::Errors;

/// Tool names: 1 to 128 characters of `A-Z a-z 0-9 _ - .`; options that contradict each
/// other.
pub fn check(model: &Model, errors: &mut Errors) {
    if model.read_only == Some(true) {
        if let Some(span) = model.idempotency {
            errors.span(
                span,
                "a `read_only` tool changes nothing, so it needs no idempotency key: calling it again is already safe; remove `idempotency` (or `read_only`)",
            );
        }
        if let Some((true, span)) = model.once {
            errors.span(
                span,
                "a `read_only` tool changes nothing, so nothing it confirms needs guarding against replay; remove `once` (or `read_only`)",
            );
        }
    }
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
