//! Doc comments to descriptions.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` lines among `attrs`, joined, with the common leading space removed.
/// `None` when there is no doc comment or it is blank.
pub fn text(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                for line in s.value().split('\n') {
                    lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
                }
            }
        }
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        None
    } else {
        Some(lines.join("\n"))
    }
}

/// Whether `attr` is a doc comment (these are stripped from parameters, where rustc rejects them).
pub fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_lines_are_joined_and_trimmed() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Adds two numbers."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Overflow wraps."]),
            syn::parse_quote!(#[inline]),
        ];
        assert_eq!(
            text(&attrs).as_deref(),
            Some("Adds two numbers.\n\nOverflow wraps.")
        );
        assert_eq!(text(&[]), None);
    }
}
