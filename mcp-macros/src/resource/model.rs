//! What `#[resource]` declares: the template, its options and the parameters.

use syn::parse::{Parse, ParseStream};
use syn::{Expr, ExprLit, ItemFn, Lit, LitStr, Token, Type};

use crate::docs;
use crate::errors::Errors;
use crate::options::{self, inner_span, option_keys, RawOption, Reader};
use crate::sig::{self, Param};
use crate::uri::{self as template, Piece};

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
    }
}

struct Attr {
    template: LitStr,
    options: Vec<RawOption>,
}

impl Parse for Attr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let template: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "#[resource] starts with the URI template: #[resource(\"orders://<id>\")]",
            )
        })?;
        let options = if input.is_empty() {
            Vec::new()
        } else {
            input.parse::<Token![,]>()?;
            options::parse_list(input)?
        };
        Ok(Attr { template, options })
    }
}

/// How a parameter is produced.
pub enum Source {
    /// From the URI variable of the same name.
    Uri,
    /// From the request context (an extractor).
    Context,
}

pub struct Model {
    pub uri: String,
    pub pieces: Vec<Piece>,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime: Option<String>,
    pub size: Option<u64>,
    pub audience: Option<Vec<String>>,
    pub priority: Option<f64>,
    pub ttl_ms: Option<u64>,
    pub cache_private: Option<bool>,
    pub scopes: Vec<String>,
    pub completers: Vec<(String, syn::Path)>,
    pub params: Vec<(Param, Source)>,
    pub is_async: bool,
    pub output: Type,
    pub dup_span: proc_macro2::Span,
}

pub fn build(attr: proc_macro2::TokenStream, func: &ItemFn, errors: &mut Errors) -> Option<Model> {
    let attr: Attr = match syn::parse2(attr) {
        Ok(a) => a,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let lit = &attr.template;
    let uri = lit.value();
    let pieces = match template::parse(&uri) {
        Ok(pieces) => pieces,
        Err(problems) => {
            for p in problems {
                errors.span(
                    inner_span(lit, p.range.clone()),
                    format!("{}{}", p.message, template::caret(&uri, &p.range)),
                );
            }
            Vec::new()
        }
    };

    let mut model = Model {
        uri: uri.clone(),
        pieces: Vec::new(),
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
        completers: Vec::new(),
        params: Vec::new(),
        is_async: func.sig.asyncness.is_some(),
        output: syn::parse_quote!(()),
        dup_span: lit.span(),
    };
    let mut completers = Vec::new();
    let mut reader = Reader::<ResourceKey>::new(errors);
    for option in &attr.options {
        let Some(key) = reader.key(option) else {
            continue;
        };
        // `key` reports repeats, so each arm runs at most once per key.
        match key {
            ResourceKey::Name => {
                if let Some(s) = reader.string(option) {
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
                if let Some(s) = reader.string(option) {
                    let value = s.value();
                    match parse_duration_ms(&value) {
                        Some(ms) => model.ttl_ms = Some(ms),
                        None => reader.errors.at(&s, format!("`{value}` is not a duration: write a number with a unit, such as \"500ms\", \"30s\", \"5m\" or \"1h\"")),
                    }
                }
            }
            ResourceKey::Size => match &option.value {
                Some(Expr::Lit(ExprLit { lit: Lit::Int(i), .. })) => match i.base10_parse::<u64>() {
                    Ok(_) if pieces.iter().any(|p| p.var().is_some()) => reader.errors.at(
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
            ResourceKey::Audience => {
                let mut roles = Vec::new();
                let items: Vec<&Expr> = match &option.value {
                    Some(Expr::Array(a)) => a.elems.iter().collect(),
                    Some(e) => vec![e],
                    None => Vec::new(),
                };
                let mut ok = !items.is_empty();
                for item in items {
                    match item {
                        Expr::Path(p) if p.path.is_ident("user") || p.path.is_ident("assistant") => {
                            roles.push(p.path.get_ident().map(|i| i.to_string()).unwrap_or_default())
                        }
                        _ => ok = false,
                    }
                }
                if ok {
                    model.audience = Some(roles);
                } else {
                    reader.errors.at(
                        &option.key,
                        "`audience` is `user`, `assistant` or both: audience = [user, assistant]",
                    );
                }
            }
            ResourceKey::Cache => match &option.value {
                Some(Expr::Path(p)) if p.path.is_ident("public") => model.cache_private = Some(false),
                Some(Expr::Path(p)) if p.path.is_ident("private") => model.cache_private = Some(true),
                _ => reader.errors.at(
                    &option.key,
                    "`cache` is `public` (same for every caller) or `private` (per user): cache = private",
                ),
            },
            ResourceKey::Scopes => model.scopes = options::scopes(option, reader.errors),
            ResourceKey::Complete => completers = options::completers(option, reader.errors),
        }
    }

    sig::check_signature(&func.sig, "resource", errors);
    let params = sig::params(&func.sig, "resource", errors);
    model.output = sig::output(&func.sig, errors);
    if model.description.is_none() {
        model.description = docs::text(&func.attrs);
    }

    // Variables and parameters are matched by name, in both directions.
    let vars: Vec<(&str, &std::ops::Range<usize>)> = pieces.iter().filter_map(Piece::var).collect();
    let unmatched_params: Vec<&Param> = params
        .iter()
        .filter(|p| !vars.iter().any(|(v, _)| *v == p.name))
        .collect();
    for (var, range) in &vars {
        if params.iter().any(|p| p.name == *var) {
            continue;
        }
        let others = if unmatched_params.is_empty() {
            "the function has no parameter of that name".to_owned()
        } else {
            format!(
                "the function has no parameter `{var}` (parameters not in the template: {})",
                unmatched_params
                    .iter()
                    .map(|p| format!("`{}`", p.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        errors.span(
            inner_span(lit, (*range).clone()),
            format!(
                "URI variable `{var}` has no matching parameter: {others}{}",
                template::caret(&uri, range)
            ),
        );
    }
    let unmatched_vars: Vec<&str> = vars
        .iter()
        .map(|(v, _)| *v)
        .filter(|v| !params.iter().any(|p| p.name == *v))
        .collect();
    if !unmatched_vars.is_empty() {
        for p in &unmatched_params {
            errors.span(
                p.ident_span,
                format!(
                    "parameter `{}` matches no variable of the URI template \"{uri}\" (variables without a parameter: {}); rename one so they match",
                    p.name,
                    unmatched_vars.iter().map(|v| format!("`<{v}>`")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
    for (key, _) in &completers {
        if !vars.iter().any(|(v, _)| key == v) {
            errors.at(
                key,
                format!(
                    "`{key}` is not a variable of the URI template \"{uri}\"{}",
                    if vars.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (variables: {})",
                            vars.iter()
                                .map(|(v, _)| format!("`{v}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ),
            );
        }
    }
    model.completers = completers
        .into_iter()
        .map(|(k, p)| (k.to_string(), p))
        .collect();
    model.params = params
        .into_iter()
        .map(|p| {
            let source = if vars.iter().any(|(v, _)| *v == p.name) {
                Source::Uri
            } else {
                Source::Context
            };
            (p, source)
        })
        .collect();
    model.pieces = pieces;
    Some(model)
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

fn parse_duration_ms(text: &str) -> Option<u64> {
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
