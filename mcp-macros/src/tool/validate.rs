//! Wire rules of `#[tool]` checked at compile time: the name, options that contradict each
//! other, and the headers arguments are mirrored into.

use quote::ToTokens;
use syn::Type;

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
    check_paging(model, errors);
}

/// A tool that takes a `Cursor` hands out the next page's cursor in what it returns: a
/// `Page`, or a type of its own holding what `Page::into_parts` gives. A list, text or a
/// number cannot hold one, so the `cursor` argument it publishes could never be given.
/// The parameter is known by its type's name, and the return by its written type.
fn check_paging(model: &Model, errors: &mut Errors) {
    let cursor = model
        .params
        .iter()
        .find(|p| last_ident(&p.ty).is_some_and(|i| i == "Cursor"));
    let Some(cursor) = cursor else {
        return;
    };
    let ok = ok_type(&model.output);
    let holds_no_cursor = match ok {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Reference(reference) => last_ident(&reference.elem).is_some_and(|i| i == "str"),
        other => last_ident(other).is_some_and(|i| {
            [
                "Vec", "VecDeque", "HashSet", "BTreeSet", "String", "bool", "char", "i8", "i16",
                "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
                "f64",
            ]
            .iter()
            .any(|name| i == name)
        }),
    };
    if holds_no_cursor {
        errors.at(
            ok,
            format!(
                "`{}` takes a `Cursor`, but `{}` cannot hand out the next page's cursor, so no call could ever send one back: return `{}.page(items, next)` (a `Page<T>`), or a type of your own holding the cursor `Page::into_parts` gives, or drop the `Cursor` parameter",
                model.name,
                ok.to_token_stream().to_string().replace(" < ", "<").replace(" >", ">").replace(" ,", ","),
                cursor.name
            ),
        );
    }
}

/// The success type of a return type: `T` of `Result<T, E>`, else the type itself.
fn ok_type(output: &Type) -> &Type {
    if let Type::Path(path) = output {
        if let Some(last) = path.path.segments.last() {
            if last.ident == "Result" {
                if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(ok)) = args.args.first() {
                        return ok;
                    }
                }
            }
        }
    }
    output
}

/// The last name of a type's path (`Vec` of `std::vec::Vec<u8>`).
fn last_ident(ty: &Type) -> Option<&syn::Ident> {
    match ty {
        Type::Path(path) => path.path.segments.last().map(|s| &s.ident),
        Type::Group(group) => last_ident(&group.elem),
        Type::Paren(paren) => last_ident(&paren.elem),
        _ => None,
    }
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
