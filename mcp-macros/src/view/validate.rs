//! The rule of a view's URI, checked at compile time: one fixed `ui://` URI (the tool
//! names it exactly, so it has no variables).

use super::model::Model;
use crate::errors::Errors;
use crate::options::inner_span;

/// The URI's scheme and form.
pub fn check(model: &Model, errors: &mut Errors) {
    let lit = &model.resource.template;
    check_uri(lit, errors);
}

/// A `ui://` URI with something after the scheme, without variables or whitespace; shared
/// with `#[tool(ui = "..")]`.
pub fn check_uri(lit: &syn::LitStr, errors: &mut Errors) -> bool {
    let uri = lit.value();
    let Some(rest) = uri.strip_prefix(crate::view::expand::SCHEME) else {
        let scheme_end = uri.find("://").map(|i| i + 3).unwrap_or(uri.len()).max(1);
        errors.span(
            inner_span(lit, 0..scheme_end.min(uri.len().max(1))),
            format!("`{uri}` is not a view URI: views are `ui://` resources, such as \"ui://orders/board\""),
        );
        return false;
    };
    if rest.is_empty() {
        errors.at(
            lit,
            "name the view after `ui://`, such as \"ui://orders/board\"",
        );
        return false;
    }
    if let Some((at, bad)) = uri
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '{' | '}'))
    {
        errors.span(
            inner_span(lit, at..at + bad.len_utf8()),
            format!("a view's URI is one fixed URI: {bad:?} cannot appear in it (views have no variables; percent-encode other characters)"),
        );
        return false;
    }
    true
}
