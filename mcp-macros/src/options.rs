//! Attribute options shared by `#[tool]`, `#[resource]` and `#[prompt]`: `key`,
//! `key = value` and `key(inner = value, ..)`, with "did you mean" hints.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Token};

use crate::errors::Errors;

/// One `key`, `key = value` or `key(..)` inside an attribute.
pub struct RawOption {
    pub key: Ident,
    pub value: Option<Expr>,
    pub nested: Option<Vec<RawOption>>,
    /// `key("a", "b")`: a list of string literals.
    pub strings: Option<Vec<LitStr>>,
}

impl Parse for RawOption {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            if inner.peek(LitStr) {
                let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&inner)?;
                return Ok(RawOption {
                    key,
                    value: None,
                    nested: None,
                    strings: Some(list.into_iter().collect()),
                });
            }
            let list = Punctuated::<RawOption, Token![,]>::parse_terminated(&inner)?;
            return Ok(RawOption {
                key,
                value: None,
                nested: Some(list.into_iter().collect()),
                strings: None,
            });
        }
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(RawOption {
            key,
            value,
            nested: None,
            strings: None,
        })
    }
}

/// Parse a comma-separated option list.
pub fn parse_list(input: ParseStream) -> syn::Result<Vec<RawOption>> {
    Ok(Punctuated::<RawOption, Token![,]>::parse_terminated(input)?
        .into_iter()
        .collect())
}

/// Reads options one by one, reporting repeats, unknown keys and mistyped values.
pub struct Reader<'a> {
    macro_name: &'static str,
    known: &'static [&'static str],
    seen: Vec<String>,
    pub errors: &'a mut Errors,
}

impl<'a> Reader<'a> {
    pub fn new(
        macro_name: &'static str,
        known: &'static [&'static str],
        errors: &'a mut Errors,
    ) -> Self {
        Reader {
            macro_name,
            known,
            seen: Vec::new(),
            errors,
        }
    }

    /// The option's key, or `None` (with an error) when it is repeated or unknown.
    pub fn key(&mut self, option: &RawOption) -> Option<String> {
        let key = option.key.to_string();
        if self.seen.contains(&key) {
            self.errors
                .at(&option.key, format!("`{key}` is given twice"));
            return None;
        }
        self.seen.push(key.clone());
        if !self.known.contains(&key.as_str()) {
            let hint = suggest(&key, self.known)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            self.errors.at(
                &option.key,
                format!(
                    "unknown #[{}] option `{key}`{hint} (options: {})",
                    self.macro_name,
                    self.known.join(", ")
                ),
            );
            return None;
        }
        Some(key)
    }

    /// A `key = "text"` option.
    pub fn string(&mut self, option: &RawOption) -> Option<LitStr> {
        let key = &option.key;
        match &option.value {
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            })) => Some(s.clone()),
            Some(other) => {
                self.errors.at(
                    other,
                    format!("`{key}` takes a string literal: {key} = \"..\""),
                );
                None
            }
            None => {
                self.errors
                    .at(key, format!("`{key}` needs a value: {key} = \"..\""));
                None
            }
        }
    }

    /// A flag: `key` or `key = true|false`.
    pub fn flag(&mut self, option: &RawOption) -> Option<bool> {
        let key = &option.key;
        match &option.value {
            None => Some(true),
            Some(Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            })) => Some(b.value),
            Some(other) => {
                self.errors.at(
                    other,
                    format!("`{key}` is a flag: write `{key}` or `{key} = false`"),
                );
                None
            }
        }
    }
}

/// The closest known option to a misspelled `key`.
pub fn suggest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let normalized = key.replace('-', "_").to_ascii_lowercase();
    let aliases = [
        ("readonly", "read_only"),
        ("openworld", "open_world"),
        ("desc", "description"),
        ("rename", "name"),
        ("mimetype", "mime"),
        ("mime_type", "mime"),
        ("completion", "complete"),
        ("completions", "complete"),
        ("scope", "scopes"),
        ("requires", "scopes"),
        ("cachescope", "cache"),
    ];
    if let Some((_, to)) = aliases.iter().find(|(from, to)| {
        (normalized.replace('_', "") == *from || normalized == *from) && known.contains(to)
    }) {
        return known.iter().copied().find(|k| k == to);
    }
    known
        .iter()
        .map(|o| (distance(&normalized, o), *o))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, o)| o)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `complete(arg = function, ..)`: the argument names and completer paths.
pub fn completers(option: &RawOption, errors: &mut Errors) -> Vec<(Ident, syn::Path)> {
    let Some(nested) = &option.nested else {
        errors.at(&option.key, "write `complete(argument = completer_fn, ..)`");
        return Vec::new();
    };
    let mut out: Vec<(Ident, syn::Path)> = Vec::new();
    for inner in nested {
        if out.iter().any(|(k, _)| *k == inner.key) {
            errors.at(
                &inner.key,
                format!("`{}` has a completer already", inner.key),
            );
            continue;
        }
        match &inner.value {
            Some(Expr::Path(p)) => out.push((inner.key.clone(), p.path.clone())),
            Some(other) => errors.at(
                other,
                format!("name a completer function: {} = my_completer", inner.key),
            ),
            None => errors.at(
                &inner.key,
                format!("name a completer function: {} = my_completer", inner.key),
            ),
        }
    }
    out
}

/// `scopes("a:read", "b")`: OAuth scope tokens, each checked (RFC 6749 section 3.3) and
/// reported at its own literal.
pub fn scopes(option: &RawOption, errors: &mut Errors) -> Vec<String> {
    let Some(strings) = &option.strings else {
        if option.nested.as_ref().is_some_and(Vec::is_empty) {
            errors.at(
                &option.key,
                "`scopes()` is empty: name at least one scope, or leave the option out",
            );
            return Vec::new();
        }
        errors.at(
            &option.key,
            "write the scopes a caller needs as strings: scopes(\"orders:read\", \"orders:write\")",
        );
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for lit in strings {
        let scope = lit.value();
        let valid = !scope.is_empty()
            && scope
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
        if !valid {
            errors.at(
                lit,
                format!("`{scope}` is not an OAuth scope: use visible ASCII without spaces, `\"` or `\\`, such as \"orders:write\""),
            );
        } else if out.contains(&scope) {
            errors.at(lit, format!("scope `{scope}` is listed twice"));
        } else {
            out.push(scope);
        }
    }
    out
}

/// Encode a name into identifier characters, injectively.
pub fn encode(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.push_str(&format!("_{:x}", c as u32));
        }
    }
    out
}

/// `Some("..")` / `None` tokens.
pub fn opt_str(value: &Option<String>) -> TokenStream {
    match value {
        Some(s) => quote::quote!(::core::option::Option::Some(#s)),
        None => quote::quote!(::core::option::Option::None),
    }
}

/// A span inside a string literal for the characters `range` of its value, when the
/// compiler can point there (it needs the literal to have no escapes); otherwise the whole
/// literal.
pub fn inner_span(lit: &LitStr, range: std::ops::Range<usize>) -> Span {
    let token = lit.token();
    let repr = token.to_string();
    // Only a plain "..." literal maps value offsets to source offsets one to one.
    if repr.starts_with('"') && !repr.contains('\\') {
        if let Some(span) = token.subspan(range.start + 1..range.end + 1) {
            return span;
        }
    }
    lit.span()
}
