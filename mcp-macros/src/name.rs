//! The name rule of tools and prompts, shared so both say the same thing: 1 to 128
//! characters of `A-Z a-z 0-9 _ - .` (MCP's rule for tool names, which this crate applies to
//! prompt names too). Resource names are free text: `resource::model` only rejects an empty one.

use proc_macro2::Span;

use crate::errors::Errors;

/// Report `name` at `span` unless it follows the rule; `kind` is `tool` or `prompt`.
pub fn check(kind: &str, name: &str, span: Span, errors: &mut Errors) {
    if name.is_empty() || name.len() > 128 {
        errors.span(
            span,
            format!(
                "a {kind} name must be 1 to 128 characters long (this one has {})",
                name.chars().count()
            ),
        );
    }
    if let Some(bad) = name.chars().find(|c| !allowed(*c)) {
        let fixed: String = name
            .chars()
            .map(|c| if allowed(c) { c } else { '_' })
            .collect();
        errors.span(
            span,
            format!("{kind} name `{name}` contains {bad:?}; only A-Z a-z 0-9 _ - . are allowed (e.g. `{fixed}`)"),
        );
    }
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(name: &str) -> Vec<String> {
        let mut errors = Errors::default();
        check("prompt", name, Span::call_site(), &mut errors);
        match errors.finish() {
            Ok(()) => Vec::new(),
            Err(tokens) => tokens
                .into_iter()
                .filter_map(|tree| match tree {
                    proc_macro2::TokenTree::Group(g) => Some(g.stream().to_string()),
                    _ => None,
                })
                .collect(),
        }
    }

    #[test]
    fn names_follow_one_rule() {
        assert!(messages("review_code-v1.2").is_empty());
        assert_eq!(messages("").len(), 1);
        assert_eq!(messages(&"a".repeat(129)).len(), 1);
        let bad = messages("review code");
        assert_eq!(bad.len(), 1);
        assert!(bad[0].contains("`review_code`"), "{bad:?}");
    }
}
