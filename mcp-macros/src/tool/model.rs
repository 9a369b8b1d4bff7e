//! What the user declared: the tool's options and its parameters.

use proc_macro2::Span;
use syn::{LitStr, Type};

use super::parse::Parsed;
use crate::errors::Errors;
use crate::options::{option_keys, Reader};
use crate::{docs, sig};

/// A tool as declared, before its rules are checked.
pub struct Model {
    pub name: String,
    /// The `name = ".."` literal, or the function's name when there is none.
    pub name_span: Span,
    pub title: Option<String>,
    /// The `description` option, else the doc comment (required).
    pub description: String,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub scopes: Vec<String>,
    /// `tags(..)`: labels to enable, disable, show and search the tool by.
    pub tags: Vec<String>,
    /// `version = ".."`: one of several versions of the tool's name.
    pub version: Option<String>,
    /// `task` (optional) or `task = required`: `None` when the tool never runs as a task.
    pub task: Option<bool>,
    /// `once` / `once = false`, with the span of the option; unset, destructive tools are
    /// single-use.
    pub once: Option<(bool, Span)>,
    /// `idempotency`, with its span.
    pub idempotency: Option<Span>,
    /// `inline_limit = <bytes>` (`Some(Some(n))`) or `inline_limit = unlimited`
    /// (`Some(None)`).
    pub inline_limit: Option<Option<usize>>,
    /// `false` with `output_schema = false`: a structured result is sent without an
    /// `outputSchema`.
    pub output_schema: bool,
    /// `ui = "ui://.."`: the view its results are rendered in.
    pub ui: Option<LitStr>,
    /// `visibility = model|app|[model, app]`: `None` for the default (both).
    pub visibility: Option<Who>,
    /// `continues = "tool"`: the tool whose page cursors it shares.
    pub continues: Option<LitStr>,
    /// `timeout = "30s"`: the longest a call may run, in milliseconds.
    pub timeout: Option<u64>,
    /// `concurrency = n`: how many calls run at once.
    pub concurrency: Option<u32>,
    /// `queue = n`: how many more wait (needs `concurrency`).
    pub queue: Option<u32>,
    /// The arguments, in order.
    pub params: Vec<Param>,
    pub is_async: bool,
    /// The return type (`()` when none is written).
    pub output: Type,
}

/// Who may call a tool (`_meta.ui.visibility`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Model,
    App,
    Both,
}

/// One argument of the tool.
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub doc: Option<String>,
    /// `#[header("Name")]`: the header the argument is mirrored into.
    pub header: Option<LitStr>,
    /// `#[schemars(..)]`: carried onto the field of the one-field struct whose schema is
    /// the argument's.
    pub constraints: Vec<syn::Attribute>,
}

option_keys! {
    /// The options of `#[tool(..)]`.
    enum ToolKey for "tool" {
        Name = "name",
        Title = "title",
        Description = "description",
        ReadOnly = "read_only",
        Destructive = "destructive",
        Idempotent = "idempotent",
        OpenWorld = "open_world",
        Scopes = "scopes",
        Tags = "tags",
        Version = "version",
        Task = "task",
        Once = "once",
        Idempotency = "idempotency",
        InlineLimit = "inline_limit",
        OutputSchema = "output_schema",
        Ui = "ui",
        Visibility = "visibility",
        Continues = "continues",
        Timeout = "timeout",
        Concurrency = "concurrency",
        Queue = "queue",
    }
}

/// The one form of the `output_schema` option, which only turns the schema off.
const OUTPUT_SCHEMA_FORM: &str = "the return type's schema is the tool's `outputSchema` unless the tool says otherwise: write `output_schema = false` to send structured results without one";

/// Read the options and the signature; every problem is recorded in `errors`.
pub fn build(parsed: &Parsed, errors: &mut Errors) -> Option<Model> {
    let func = &parsed.func;
    let sig = &func.sig;
    let mut name: Option<(String, Span)> = None;
    let mut title = None;
    let mut description = None;
    let mut read_only = None;
    let mut destructive = None;
    let mut idempotent = None;
    let mut open_world = None;
    let mut scopes = Vec::new();
    let mut tags = Vec::new();
    let mut version = None;
    let mut task = None;
    let mut once = None;
    let mut idempotency = None;
    let mut inline_limit = None;
    let mut output_schema = true;
    let mut ui = None;
    let mut visibility = None;
    let mut continues = None;
    let mut timeout = None;
    let mut concurrency = None;
    let mut queue: Option<(u32, Span)> = None;

    let mut reader = Reader::<ToolKey>::new(errors);
    for option in &parsed.options {
        let Some(key) = reader.key(option) else {
            continue;
        };
        // `key` reports repeats, so each arm runs at most once per key and sets a field
        // that is still unset.
        match key {
            ToolKey::Name => name = reader.string(option).map(|s| (s.value(), s.span())),
            ToolKey::Title => title = reader.string(option).map(|s| s.value()),
            ToolKey::Description => description = reader.string(option).map(|s| s.value()),
            ToolKey::ReadOnly => read_only = reader.flag(option),
            ToolKey::Destructive => destructive = reader.flag(option),
            ToolKey::Idempotent => idempotent = reader.flag(option),
            ToolKey::OpenWorld => open_world = reader.flag(option),
            ToolKey::Scopes => scopes = crate::options::scopes(option, reader.errors),
            ToolKey::Tags => tags = crate::options::tags(option, reader.errors),
            ToolKey::Version => {
                version = reader
                    .string(option)
                    .and_then(|lit| crate::options::version(&lit, reader.errors))
            }
            ToolKey::Once => {
                if let Some(value) = reader.flag(option) {
                    once = Some((value, option.key.span()));
                }
            }
            ToolKey::Idempotency => match &option.value {
                None => idempotency = Some(option.key.span()),
                Some(other) => reader.errors.at(
                    other,
                    "`idempotency` takes no value: write `#[tool(idempotency)]` (how long outcomes are kept is set with Server::idempotency_ttl)",
                ),
            },
            ToolKey::InlineLimit => match &option.value {
                Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                })) => match n.base10_parse::<usize>() {
                    Ok(n) if n > 0 => inline_limit = Some(Some(n)),
                    _ => reader.errors.at(
                        n,
                        "`inline_limit` is a positive number of bytes, such as `inline_limit = 1_048_576`",
                    ),
                },
                Some(syn::Expr::Path(p)) if p.path.is_ident("unlimited") => {
                    inline_limit = Some(None)
                }
                Some(other) => reader.errors.at(
                    other,
                    "`inline_limit` is a number of bytes (`inline_limit = 262_144`) or `unlimited` (results are always sent whole)",
                ),
                None => reader.errors.at(
                    &option.key,
                    "`inline_limit` needs a value: a number of bytes (`inline_limit = 262_144`) or `unlimited`",
                ),
            },
            ToolKey::OutputSchema => match &option.value {
                Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                })) if !b.value => output_schema = false,
                Some(other) => reader.errors.at(other, OUTPUT_SCHEMA_FORM),
                None => reader.errors.at(&option.key, OUTPUT_SCHEMA_FORM),
            },
            ToolKey::Ui => ui = reader.string(option),
            ToolKey::Continues => continues = reader.string(option),
            ToolKey::Concurrency => {
                concurrency = count(
                    option,
                    1,
                    reader.errors,
                    "`concurrency` is how many calls of the tool run at once, a number from 1, such as `concurrency = 4`",
                )
            }
            ToolKey::Queue => {
                queue = count(
                    option,
                    0,
                    reader.errors,
                    "`queue` is how many more calls wait for a turn, a number from 0, such as `queue = 16`",
                )
                .map(|n| (n, option.key.span()))
            }
            ToolKey::Timeout => {
                timeout = reader
                    .string(option)
                    .and_then(|lit| crate::options::duration(&lit, reader.errors))
            }
            ToolKey::Visibility => match who(option) {
                Some(w) => visibility = Some(w),
                None => reader.errors.at(
                    value_or_key(option),
                    "`visibility` is `model` (the model only), `app` (the tool's views only) or `[model, app]` (both, the default)",
                ),
            },
            ToolKey::Task => match &option.value {
                None => task = Some(false),
                Some(syn::Expr::Path(p)) if p.path.is_ident("optional") => task = Some(false),
                Some(syn::Expr::Path(p)) if p.path.is_ident("required") => task = Some(true),
                Some(other) => reader.errors.at(
                    other,
                    "`task` is `task` (the server may answer with a task), `task = optional` (the same) or `task = required` (only as a task)",
                ),
            },
        }
    }

    if let (Some((_, span)), None) = (queue, concurrency) {
        errors.push(syn::Error::new(
            span,
            "`queue` bounds the calls waiting for a turn under `concurrency`: add `concurrency = n`, or leave `queue` out",
        ));
    }

    sig::check_signature(sig, "tool", errors);
    let params = sig::params(sig, "tool", errors)
        .into_iter()
        .map(|p| Param {
            header: super::parse::header(&p.headers, &p.name, errors),
            name: p.name,
            ty: p.ty,
            doc: p.doc,
            constraints: p.constraints,
        })
        .collect();
    let output = sig::output(sig, errors);

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
        read_only,
        destructive,
        idempotent,
        open_world,
        scopes,
        tags,
        version,
        task,
        once,
        idempotency,
        inline_limit,
        output_schema,
        ui,
        visibility,
        continues,
        timeout,
        concurrency,
        queue: queue.map(|(n, _)| n),
        params,
        is_async: sig.asyncness.is_some(),
        output,
    })
}

/// `visibility = model`, `= app` or `= [model, app]`; `None` for anything else.
fn who(option: &crate::options::RawOption) -> Option<Who> {
    let items: Vec<&syn::Expr> = match &option.value {
        Some(syn::Expr::Array(a)) => a.elems.iter().collect(),
        Some(e) => vec![e],
        None => return None,
    };
    let mut model = false;
    let mut app = false;
    for item in items {
        match item {
            syn::Expr::Path(p) if p.path.is_ident("model") && !model => model = true,
            syn::Expr::Path(p) if p.path.is_ident("app") && !app => app = true,
            _ => return None,
        }
    }
    match (model, app) {
        (true, true) => Some(Who::Both),
        (true, false) => Some(Who::Model),
        (false, true) => Some(Who::App),
        (false, false) => None,
    }
}

/// The option's value, or its key when it has none: where an error about it points.
fn value_or_key(option: &crate::options::RawOption) -> proc_macro2::TokenStream {
    match &option.value {
        Some(v) => quote::quote!(#v),
        None => {
            let key = &option.key;
            quote::quote!(#key)
        }
    }
}

/// A whole number of at least `least` as the option's value, or `message` at it.
fn count(
    option: &crate::options::RawOption,
    least: u32,
    errors: &mut Errors,
    message: &str,
) -> Option<u32> {
    match &option.value {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        })) => match n.base10_parse::<u32>() {
            Ok(n) if n >= least => Some(n),
            _ => {
                errors.at(n, message);
                None
            }
        },
        Some(other) => {
            errors.at(other, message);
            None
        }
        None => {
            errors.at(&option.key, message);
            None
        }
    }
}
