//! What the user declared: the tool's options and its parameters.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, FnArg, Lit, Pat, ReturnType, Type};

use super::parse::Parsed;
use crate::docs;
use crate::errors::Errors;

pub struct Model {
    pub name: String,
    pub name_span: Span,
    pub title: Option<String>,
    pub description: String,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub params: Vec<Param>,
    pub is_async: bool,
    pub output: Type,
}

pub struct Param {
    pub name: String,
    pub ty: Type,
    pub doc: Option<String>,
}

const OPTIONS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
];

pub fn build(parsed: &Parsed, errors: &mut Errors) -> Option<Model> {
    let func = &parsed.func;
    let sig = &func.sig;
    let mut name: Option<(String, Span)> = None;
    let mut title = None;
    let mut description = None;
    let mut flags: [Option<bool>; 4] = [None; 4];
    let mut seen: Vec<String> = Vec::new();

    for option in &parsed.options {
        let key = option.key.to_string();
        if seen.contains(&key) {
            errors.at(&option.key, format!("`{key}` is given twice"));
            continue;
        }
        seen.push(key.clone());
        match key.as_str() {
            "name" | "title" | "description" => match &option.value {
                Some(Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                })) => {
                    let value = s.value();
                    match key.as_str() {
                        "name" => name = Some((value, s.span())),
                        "title" => title = Some(value),
                        _ => description = Some(value),
                    }
                }
                Some(other) => errors.at(
                    other,
                    format!("`{key}` takes a string literal: {key} = \"..\""),
                ),
                None => errors.at(
                    &option.key,
                    format!("`{key}` needs a value: {key} = \"..\""),
                ),
            },
            "read_only" | "destructive" | "idempotent" | "open_world" => {
                let index = ["read_only", "destructive", "idempotent", "open_world"]
                    .iter()
                    .position(|k| *k == key)
                    .unwrap_or(0);
                match &option.value {
                    None => flags[index] = Some(true),
                    Some(Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    })) => flags[index] = Some(b.value),
                    Some(other) => errors.at(
                        other,
                        format!("`{key}` is a flag: write `{key}` or `{key} = false`"),
                    ),
                }
            }
            _ => {
                let hint = suggest(&key)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                errors.at(
                    &option.key,
                    format!(
                        "unknown #[tool] option `{key}`{hint} (options: {})",
                        OPTIONS.join(", ")
                    ),
                );
            }
        }
    }

    if let Some(c) = &sig.constness {
        errors.at(c, "a tool cannot be a `const fn`");
    }
    if let Some(u) = &sig.unsafety {
        errors.at(u, "a tool cannot be an `unsafe fn`");
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, "a tool cannot have an explicit ABI");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.at(
            &sig.generics,
            "a tool cannot be generic: its schema is fixed at compile time; use concrete types",
        );
    }
    if let Some(v) = &sig.variadic {
        errors.at(v, "a tool cannot be variadic");
    }

    let mut params = Vec::new();
    for (index, input) in sig.inputs.iter().enumerate() {
        match input {
            FnArg::Receiver(r) => errors.at(
                r,
                "a tool is a free function; `self` is not supported (share data with `State<T>`)",
            ),
            FnArg::Typed(pt) => {
                let name = match &*pt.pat {
                    Pat::Ident(p) => {
                        if let Some((_, sub)) = &p.subpat {
                            errors.at(sub, "use a plain parameter name");
                        }
                        Some(p.ident.to_string().trim_start_matches("r#").to_owned())
                    }
                    Pat::TupleStruct(ts) => Some(match ts.elems.iter().next() {
                        Some(Pat::Ident(inner)) if ts.elems.len() == 1 => inner.ident.to_string(),
                        _ => format!("arg{index}"),
                    }),
                    Pat::Wild(w) => {
                        errors.at(w, "give the parameter a name: it becomes the argument's name in the input schema");
                        None
                    }
                    other => {
                        errors.at(other, "use a plain parameter name (or `Args(value)` / `State(value)` for extractors)");
                        None
                    }
                };
                check_type(&pt.ty, errors);
                if let Some(name) = name {
                    params.push(Param {
                        name,
                        ty: (*pt.ty).clone(),
                        doc: docs::text(&pt.attrs),
                    });
                }
            }
        }
    }

    let output: Type = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => {
            if let Type::ImplTrait(t) = &**ty {
                errors.at(
                    t,
                    "name the return type: `impl Trait` cannot be turned into an output schema",
                );
            }
            (**ty).clone()
        }
    };

    let description = description.or_else(|| docs::text(&func.attrs));
    if description.is_none() {
        errors.at(
            &sig.ident,
            "a tool needs a description the model can read: add a `///` doc comment or `description = \"..\"`",
        );
    }
    let (name, name_span) = name.unwrap_or_else(|| {
        (
            sig.ident.to_string().trim_start_matches("r#").to_owned(),
            sig.ident.span(),
        )
    });

    Some(Model {
        name,
        name_span,
        title,
        description: description.unwrap_or_default(),
        read_only: flags[0],
        destructive: flags[1],
        idempotent: flags[2],
        open_world: flags[3],
        params,
        is_async: sig.asyncness.is_some(),
        output,
    })
}

fn check_type(ty: &Type, errors: &mut Errors) {
    match ty {
        Type::Reference(r) => {
            let suggestion = match &*r.elem {
                Type::Path(p) if p.path.is_ident("str") => "`String` instead of `&str`".to_owned(),
                Type::Slice(s) => format!(
                    "`Vec<{}>` instead of a slice",
                    quote::quote!(#s).to_string().trim_matches(['[', ']', ' '])
                ),
                other => format!("`{}` instead of a reference", quote::quote!(#other)),
            };
            errors.span(
                r.span(),
                format!("tool parameters are owned values decoded from JSON; take {suggestion}"),
            );
        }
        Type::ImplTrait(t) => errors.at(
            t,
            "`impl Trait` parameters are not supported: name a concrete type",
        ),
        Type::BareFn(f) => errors.at(f, "a function pointer cannot be a tool parameter"),
        Type::TraitObject(t) => errors.at(t, "a trait object cannot be a tool parameter"),
        Type::Infer(t) => errors.at(t, "write the parameter's type"),
        Type::Never(t) => errors.at(t, "`!` cannot be a tool parameter"),
        _ => {}
    }
}

fn suggest(key: &str) -> Option<&'static str> {
    let normalized = key.replace('-', "_").to_ascii_lowercase();
    let aliases = [
        ("readonly", "read_only"),
        ("openworld", "open_world"),
        ("desc", "description"),
        ("rename", "name"),
    ];
    if let Some((_, to)) = aliases
        .iter()
        .find(|(from, _)| normalized.replace('_', "") == *from)
    {
        return Some(to);
    }
    OPTIONS
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
