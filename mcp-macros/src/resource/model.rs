//! What `#[resource]` declares: its options read into typed values, and its parameters,
//! each bound to the URI variable of its name or to the request context.
//!
//! A check that concerns one option (an empty name, a MIME type, a duration, a priority's
//! range, `size` on a template) is made where the option is read, so its error comes in the
//! order the options are written; `validate` holds the rules between the template, the
//! parameters and the completers.

use proc_macro2::Span;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Type};

use super::parse::Parsed;
use crate::docs;
use crate::errors::Errors;
use crate::options::{self, option_keys, RawOption, Reader};
use crate::sig::{self, Param};
use crate::uri::Piece;

option_keys! {
    /// The options of `#[resource(..)]`, after the template.
    enum ResourceKey for "resource" {
        Name = "name",
        Title = "title",
        Description = "description",
        Mime = "mime",
        Size = "size",
        Audience = "audience",
        Priority = "priority",
        Ttl = "ttl",
        Cache = "cache",
        Complete = "complete",
        Scopes = "scopes",
        Tags = "tags",
    }
}

/// How a parameter is produced.
pub enum Source {
    /// From the URI variable of the same name.
    Uri,
    /// From the request context (an extractor).
    Context,
}

/// A resource as declared, before its rules are checked.
pub struct Model {
    /// The template literal, where errors about its variables point.
    pub template: LitStr,
    /// The template as written (`orders://<id>`).
    pub uri: String,
    pub pieces: Vec<Piece>,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime: Option<String>,
    pub size: Option<u64>,
    /// `user` and/or `assistant`.
    pub audience: Option<Vec<String>>,
    pub priority: Option<f64>,
    pub ttl_ms: Option<u64>,
    /// `cache = private` (`Some(true)`) or `cache = public` (`Some(false)`).
    pub cache_private: Option<bool>,
    pub scopes: Vec<String>,
    /// `tags(..)`: labels to enable, disable, show and search it by.
    pub tags: Vec<String>,
    /// `complete(variable = function)`, keyed by the variable as written.
    pub completers: Vec<(Ident, syn::Path)>,
    /// The parameters, in order, each with what produces it.
    pub params: Vec<(Param, Source)>,
    pub is_async: bool,
    /// The return type (`()` when none is written).
    pub output: Type,
    /// Where rustc reports a second resource with the same URI shape.
    pub dup_span: Span,
    /// `#[view]`: what the MCP Apps host needs to frame it.
    pub view: Option<crate::view::framing::ViewModel>,
}

/// `None` when the attribute could not be read (its error is recorded).
pub fn build(parsed: &Parsed, errors: &mut Errors) -> Option<Model> {
    let attr = parsed.attr.as_ref()?;
    let func = &parsed.func;
    let lit = &attr.template;
    let mut model = Model {
        template: lit.clone(),
        uri: lit.value(),
        pieces: attr.pieces.clone(),
        name: func
            .sig
            .ident
            .to_string()
            .trim_start_matches("r#")
            .to_owned(),
        title: None,
        description: None,
        mime: None,
        size: None,
        audience: None,
        priority: None,
        ttl_ms: None,
        cache_private: None,
        scopes: Vec::new(),
        tags: Vec::new(),
        completers: Vec::new(),
        params: Vec::new(),
        is_async: func.sig.asyncness.is_some(),
        output: syn::parse_quote!(()),
        dup_span: lit.span(),
        view: None,
    };
    // `size` is refused on a template, as the resources it matches differ in size.
    let is_template = attr.pieces.iter().any(|p| p.var().is_some());
    let mut reader = Reader::<ResourceKey>::new(errors);
    for option in &attr.options {
        let Some(key) = reader.key(option) else {
            continue;
        };
        read_option(&mut model, key, option, is_template, &mut reader);
    }

    sig::check_signature(&func.sig, "resource", errors);
    let params = sig::params(&func.sig, "resource", errors);
    model.output = sig::output(&func.sig, errors);
    if model.description.is_none() {
        model.description = docs::text(&func.attrs);
    }
    // Variables and parameters are bound by name; `validate` reports the ones left over.
    model.params = params
        .into_iter()
        .map(|p| {
            let source = if attr
                .pieces
                .iter()
                .filter_map(Piece::var)
                .any(|(v, _)| v == p.name)
            {
                Source::Uri
            } else {
                Source::Context
            };
            (p, source)
        })
        .collect();
    Some(model)
}

/// Read one option into `model`, reporting a value that does not fit it where it is written.
fn read_option(
    model: &mut Model,
    key: ResourceKey,
    option: &RawOption,
    is_template: bool,
    reader: &mut Reader<'_, ResourceKey>,
) {
    // `key` reports repeats, so each arm runs at most once per key.
    match key {
        ResourceKey::Name => {
            if let Some(s) = reader.string(option) {
                // Resource names are free text in MCP (unlike tool and prompt names);
                // only an empty one is useless to a client.
                if s.value().is_empty() {
                    reader.errors.at(&s, "a resource name cannot be empty");
                }
                model.name = s.value();
            }
        }
        ResourceKey::Title => model.title = reader.string(option).map(|s| s.value()),
        ResourceKey::Description => {
            model.description = reader.string(option).map(|s| s.value())
        }
        ResourceKey::Mime => {
            if let Some(s) = reader.string(option) {
                let value = s.value();
                if !is_mime(&value) {
                    reader.errors.at(&s, format!("`{value}` is not a MIME type such as `text/plain` or `application/json`"));
                }
                model.mime = Some(value);
            }
        }
        ResourceKey::Ttl => {
            if let Some(ms) = ttl(option, reader) {
                model.ttl_ms = Some(ms);
            }
        }
        ResourceKey::Size => match &option.value {
            Some(Expr::Lit(ExprLit { lit: Lit::Int(i), .. })) => match i.base10_parse::<u64>() {
                Ok(_) if is_template => reader.errors.at(
                    &option.key,
                    "`size` describes one resource; the resources a template matches differ in size, so leave it out",
                ),
                Ok(n) => model.size = Some(n),
                Err(e) => reader.errors.at(i, e),
            },
            _ => reader.errors.at(
                value_or_key(option),
                "`size` takes the size in bytes: size = 1024",
            ),
        },
        ResourceKey::Priority => {
            let value = match &option.value {
                Some(Expr::Lit(ExprLit { lit: Lit::Float(f), .. })) => f.base10_parse::<f64>().ok(),
                Some(Expr::Lit(ExprLit { lit: Lit::Int(i), .. })) => i.base10_parse::<f64>().ok(),
                _ => None,
            };
            match value {
                Some(p) if (0.0..=1.0).contains(&p) => model.priority = Some(p),
                _ => reader.errors.at(
                    value_or_key(option),
                    "`priority` is a number from 0.0 (least) to 1.0 (most important): priority = 0.8",
                ),
            }
        }
        ResourceKey::Audience => match audience(option) {
            Some(roles) => model.audience = Some(roles),
            None => reader.errors.at(
                &option.key,
                "`audience` is `user`, `assistant` or both: audience = [user, assistant]",
            ),
        },
        ResourceKey::Cache => {
            if let Some(private) = cache_private(option, reader.errors) {
                model.cache_private = Some(private);
            }
        }
        ResourceKey::Scopes => model.scopes = options::scopes(option, reader.errors),
        ResourceKey::Tags => model.tags = options::tags(option, reader.errors),
        ResourceKey::Complete => model.completers = options::completers(option, reader.errors),
    }
}

/// `ttl = "5m"` (of `#[resource]` and `#[view]`): the milliseconds, or `None` with the
/// error recorded at the string.
pub fn ttl<K: options::Key>(option: &RawOption, reader: &mut Reader<'_, K>) -> Option<u64> {
    let s = reader.string(option)?;
    let value = s.value();
    let ms = parse_duration_ms(&value);
    if ms.is_none() {
        reader.errors.at(&s, format!("`{value}` is not a duration: write a number with a unit, such as \"500ms\", \"30s\", \"5m\" or \"1h\""));
    }
    ms
}

/// `cache = private` (`Some(true)`) or `cache = public` (`Some(false)`), of `#[resource]`
/// and `#[view]`; `None` with the error recorded at the key for anything else.
pub fn cache_private(option: &RawOption, errors: &mut Errors) -> Option<bool> {
    match &option.value {
        Some(Expr::Path(p)) if p.path.is_ident("public") => Some(false),
        Some(Expr::Path(p)) if p.path.is_ident("private") => Some(true),
        _ => {
            errors.at(
                &option.key,
                "`cache` is `public` (same for every caller) or `private` (per user): cache = private",
            );
            None
        }
    }
}

/// `audience = user`, `= assistant` or `= [user, assistant]`: the roles, or `None` when
/// anything else is written.
fn audience(option: &RawOption) -> Option<Vec<String>> {
    let items: Vec<&Expr> = match &option.value {
        Some(Expr::Array(a)) => a.elems.iter().collect(),
        Some(e) => vec![e],
        None => Vec::new(),
    };
    if items.is_empty() {
        return None;
    }
    items
        .into_iter()
        .map(|item| match item {
            Expr::Path(p) if p.path.is_ident("user") || p.path.is_ident("assistant") => Some(
                p.path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default(),
            ),
            _ => None,
        })
        .collect()
}

/// The option's value, or its key when it has none: where an error about it points.
fn value_or_key(option: &RawOption) -> proc_macro2::TokenStream {
    match &option.value {
        Some(v) => quote::quote!(#v),
        None => {
            let key = &option.key;
            quote::quote!(#key)
        }
    }
}

fn is_mime(value: &str) -> bool {
    let token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    match essence.split_once('/') {
        Some((kind, sub)) => token(kind) && token(sub),
        None => false,
    }
}

pub(crate) fn parse_duration_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: u64 = number.parse().ok()?;
    let factor = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_mime_types() {
        assert_eq!(parse_duration_ms("30s"), Some(30_000));
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("0s"), Some(0));
        assert_eq!(parse_duration_ms("5"), None);
        assert_eq!(parse_duration_ms("5 parsecs"), None);
        assert!(is_mime("application/json"));
        assert!(is_mime("text/plain; charset=utf-8"));
        assert!(!is_mime("json"));
    }
}
