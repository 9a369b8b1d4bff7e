//! Wire rules of `#[tool]` checked at compile time: the name, options that contradict each
//! other, and the headers arguments are mirrored into.

use super::model::Model;
use crate::errors::Errors;
use crate::name;
use crate::options::inner_span;

/// The tool's name, its options and its mirrored headers.
pub fn check(model: &Model, errors: &mut Errors) {
    name::check("tool", &model.name, model.name_span, errors);
    check_options(model, errors);
    check_headers(model, errors);
    check_views(model, errors);
}

/// `ui` is a view's URI, and `continues` a tool name.
fn check_views(model: &Model, errors: &mut Errors) {
    if let Some(lit) = &model.ui {
        crate::view::check_uri(lit, errors);
    }
    if let Some(lit) = &model.continues {
        name::check("tool", &lit.value(), lit.span(), errors);
        if lit.value() == model.name {
            errors.at(lit, "a tool continues another tool's pages, not its own: its own cursors already open in it");
        }
    }
}

/// Options that contradict each other.
fn check_options(model: &Model, errors: &mut Errors) {
    if model.read_only != Some(true) {
        return;
    }
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

/// `#[header("Name")]`: each name an HTTP header name (an RFC 9110 token), written without
/// the `Mcp-Param-` prefix, and no two alike ignoring case.
fn check_headers(model: &Model, errors: &mut Errors) {
    let mut seen: Vec<(String, &str, String)> = Vec::new();
    for param in &model.params {
        let Some(lit) = &param.header else {
            continue;
        };
        let name = lit.value();
        if name.is_empty() {
            errors.span(
                lit.span(),
                "the header name is empty: write the part after `Mcp-Param-`, such as #[header(\"Region\")]",
            );
            continue;
        }
        if let Some(rest) = name
            .get(..10)
            .filter(|p| p.eq_ignore_ascii_case("mcp-param-"))
            .and_then(|_| name.get(10..))
        {
            errors.span(
                lit.span(),
                format!("write only the part after `Mcp-Param-`: #[header(\"{rest}\")] is sent as `Mcp-Param-{rest}`"),
            );
            continue;
        }
        if let Some((at, bad)) = name.char_indices().find(|(_, c)| !is_tchar(*c)) {
            // Each run of other characters becomes one `-`: `Region Code` -> `Region-Code`.
            let fixed = name
                .split(|c: char| !is_tchar(c))
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let what = if bad.is_control() {
                format!("the control character {bad:?}")
            } else {
                format!("{bad:?}")
            };
            errors.span(
                inner_span(lit, at..at + bad.len_utf8()),
                format!("`{}` is not an HTTP header name: it contains {what}; header names are letters, digits and !#$%&'*+-.^_`|~ (such as \"{fixed}\")", name.escape_debug()),
            );
            continue;
        }
        let lower = name.to_ascii_lowercase();
        if let Some((first, other, _)) = seen.iter().find(|(_, _, l)| *l == lower) {
            errors.span(
                lit.span(),
                format!("`{name}` is mirrored from `{other}` already (as `{first}`): header names compare case-insensitively, so give `{}` a header of its own", param.name),
            );
            continue;
        }
        seen.push((name, &param.name, lower));
    }
}

/// RFC 9110 section 5.6.2: the characters of a token.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}
