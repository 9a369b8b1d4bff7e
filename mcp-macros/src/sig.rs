//! Function signature checks and parameter collection shared by the attribute macros.

use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ItemFn, Pat, ReturnType, Signature, Type};

use crate::docs;
use crate::errors::Errors;

/// One named parameter.
pub struct Param {
    pub name: String,
    /// Where errors about the parameter's name point.
    pub ident_span: proc_macro2::Span,
    pub ty: Type,
    pub doc: Option<String>,
    /// Its `#[header(..)]` attributes (tools only; other kinds report them).
    pub headers: Vec<Attribute>,
    /// Its `#[schemars(..)]` attributes, carried onto the argument's schema (tools only;
    /// other kinds report them).
    pub constraints: Vec<Attribute>,
}

/// `#[header("Name")]` on a tool parameter: mirror the argument into `Mcp-Param-Name`.
pub fn is_header(attr: &Attribute) -> bool {
    attr.path().is_ident("header")
}

/// `#[schemars(..)]` on a tool parameter: constraints and annotations for its schema.
pub fn is_schemars(attr: &Attribute) -> bool {
    attr.path().is_ident("schemars")
}

/// `#[redact]` on a tool parameter: its value is secret. The argument's schema says
/// `writeOnly: true`, which keeps it out of audit records and error messages.
pub fn is_redact(attr: &Attribute) -> bool {
    attr.path().is_ident("redact")
}

/// `#[serde(..)]` on a parameter, which nothing reads.
fn is_serde(attr: &Attribute) -> bool {
    attr.path().is_ident("serde")
}

/// Report the attributes on a parameter that a `kind` does not read: `#[schemars]`
/// outside tools, and `#[serde]` everywhere (rustc would say only that it cannot find them).
fn check_attributes(attrs: &[Attribute], kind: &str, errors: &mut Errors) {
    for attr in attrs {
        if is_redact(attr) {
            if kind == "prompt" {
                errors.at(
                    attr,
                    "#[redact] marks a tool argument secret; a prompt's arguments become the text of its messages, so take a secret in a tool instead",
                );
            } else if kind != "tool" {
                errors.at(
                    attr,
                    "#[redact] marks a tool argument secret; a URI variable is part of the URI that records and logs name, so keep secrets out of URIs",
                );
            } else if !matches!(attr.meta, syn::Meta::Path(_)) {
                errors.at(attr, "#[redact] takes no arguments: write `#[redact]`");
            }
        } else if is_schemars(attr) {
            match kind {
                "tool" => check_schemars(attr, errors),
                "prompt" => errors.at(
                    attr,
                    "#[schemars(..)] shapes a tool argument's schema; a prompt argument is a string without one, so check the value in the function (and return `RpcError::invalid_params`)",
                ),
                _ => errors.at(
                    attr,
                    "#[schemars(..)] shapes a tool argument's schema; a URI variable has none, so check it in the function or in its type's `FromStr`",
                ),
            }
        } else if is_serde(attr) {
            let advice = match kind {
                "tool" => "the parameter's name is the argument's name and `Option<T>` makes it optional; for more, take `Args<T>` and put serde attributes on its struct's fields",
                "prompt" => "the parameter's name is the argument's name and `Option<T>` makes it optional",
                _ => "it takes the URI variable of the same name, parsed by its type's `FromStr`",
            };
            errors.at(
                attr,
                format!("#[serde(..)] is not read on a {kind} parameter: {advice}"),
            );
        }
    }
}

/// A tool argument is named by its parameter, so `#[schemars(rename = ..)]` (at the top
/// level of the attribute) would publish it under a name it is not read by.
fn check_schemars(attr: &Attribute, errors: &mut Errors) {
    let syn::Meta::List(list) = &attr.meta else {
        return;
    };
    for token in list.tokens.clone() {
        if let proc_macro2::TokenTree::Ident(ident) = &token {
            if ident == "rename" {
                errors.at(
                    ident,
                    "a tool argument is named by its parameter: rename the parameter (`r#type` for a keyword) instead",
                );
            }
        }
    }
}

/// Reject `const`, `unsafe`, ABIs, generics and variadics, in the words of `kind`.
pub fn check_signature(sig: &Signature, kind: &str, errors: &mut Errors) {
    if let Some(c) = &sig.constness {
        errors.at(c, format!("a {kind} cannot be a `const fn`"));
    }
    if let Some(u) = &sig.unsafety {
        errors.at(u, format!("a {kind} cannot be an `unsafe fn`"));
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, format!("a {kind} cannot have an explicit ABI"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let why = if kind == "tool" {
            "its schema is fixed at compile time"
        } else {
            "it is registered once, with concrete types"
        };
        errors.at(
            &sig.generics,
            format!("a {kind} cannot be generic: {why}; use concrete types"),
        );
    }
    if let Some(v) = &sig.variadic {
        errors.at(v, format!("a {kind} cannot be variadic"));
    }
}

/// The named parameters, with errors for receivers, patterns and unusable types.
pub fn params(sig: &Signature, kind: &str, errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    for (index, input) in sig.inputs.iter().enumerate() {
        match input {
            FnArg::Receiver(r) => errors.at(
                r,
                format!("a {kind} is a free function; `self` is not supported (share data with `State<T>`)"),
            ),
            FnArg::Typed(pt) => {
                let found = match &*pt.pat {
                    Pat::Ident(p) => {
                        if let Some((_, sub)) = &p.subpat {
                            errors.at(sub, "use a plain parameter name");
                        }
                        Some((
                            p.ident.to_string().trim_start_matches("r#").to_owned(),
                            p.ident.span(),
                        ))
                    }
                    Pat::TupleStruct(ts) => Some(match ts.elems.iter().next() {
                        Some(Pat::Ident(inner)) if ts.elems.len() == 1 => {
                            (inner.ident.to_string(), inner.ident.span())
                        }
                        _ => (format!("arg{index}"), ts.span()),
                    }),
                    Pat::Wild(w) => {
                        let role = match kind {
                            "tool" => "the argument's name in the input schema",
                            "prompt" => "the prompt argument's name",
                            _ => "the URI variable it binds to",
                        };
                        errors.at(w, format!("give the parameter a name: it becomes {role}"));
                        None
                    }
                    other => {
                        errors.at(other, "use a plain parameter name (or `Args(value)` / `State(value)` for extractors)");
                        None
                    }
                };
                check_type(&pt.ty, kind, errors);
                check_attributes(&pt.attrs, kind, errors);
                let headers: Vec<Attribute> =
                    pt.attrs.iter().filter(|a| is_header(a)).cloned().collect();
                if kind != "tool" {
                    for attr in &headers {
                        errors.at(
                            attr,
                            format!("#[header] mirrors a tool argument into an HTTP header; a {kind} has no arguments a client mirrors, so remove it"),
                        );
                    }
                }
                if let Some((name, ident_span)) = found {
                    params.push(Param {
                        name,
                        ident_span,
                        ty: (*pt.ty).clone(),
                        doc: docs::text(&pt.attrs),
                        headers,
                        constraints: constraints(&pt.attrs),
                    });
                }
            }
        }
    }
    params
}

/// A tool parameter's `#[schemars(..)]` attributes, and for `#[redact]` the one that
/// marks its schema `writeOnly`.
fn constraints(attrs: &[Attribute]) -> Vec<Attribute> {
    let mut constraints: Vec<Attribute> =
        attrs.iter().filter(|a| is_schemars(a)).cloned().collect();
    if let Some(redact) = attrs.iter().find(|a| is_redact(a)) {
        let span = redact.span();
        constraints.push(syn::parse_quote_spanned! {span=>
            #[schemars(extend("writeOnly" = true))]
        });
    }
    constraints
}

/// The return type (`()` when omitted), rejecting `impl Trait`.
pub fn output(sig: &Signature, errors: &mut Errors) -> Type {
    match &sig.output {
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
    }
}

/// Where checks on a return type's success and error types point: at `T` and `E` of a
/// written `Result<T, E>` (at `T` of a one-argument alias such as `anyhow::Result<T>`),
/// otherwise at the type.
pub fn result_spans(ty: &Type) -> (proc_macro2::Span, proc_macro2::Span) {
    let whole = ty.span();
    let Type::Path(path) = ty else {
        return (whole, whole);
    };
    let Some(last) = path.path.segments.last() else {
        return (whole, whole);
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return (whole, whole);
    };
    if path.qself.is_some() || last.ident != "Result" {
        return (whole, whole);
    }
    let mut types = args.args.iter().filter_map(|arg| match arg {
        syn::GenericArgument::Type(t) => Some(t.span()),
        _ => None,
    });
    let ok = types.next().unwrap_or(whole);
    let err = types.next().unwrap_or(whole);
    (ok, err)
}

fn check_type(ty: &Type, kind: &str, errors: &mut Errors) {
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
            let what = if kind == "tool" {
                "decoded from JSON"
            } else {
                "parsed from the request"
            };
            errors.span(
                r.span(),
                format!("{kind} parameters are owned values {what}; take {suggestion}"),
            );
        }
        Type::ImplTrait(t) => errors.at(
            t,
            "`impl Trait` parameters are not supported: name a concrete type",
        ),
        Type::BareFn(f) => errors.at(
            f,
            format!("a function pointer cannot be a {kind} parameter"),
        ),
        Type::TraitObject(t) => {
            errors.at(t, format!("a trait object cannot be a {kind} parameter"))
        }
        Type::Infer(t) => errors.at(t, "write the parameter's type"),
        Type::Never(t) => errors.at(t, format!("`!` cannot be a {kind} parameter")),
        _ => {}
    }
}

/// The function as written, minus parameter doc comments (rustc rejects those in output)
/// and the `#[header(..)]`, `#[schemars(..)]`, `#[serde(..)]` and `#[redact]` attributes (read or
/// reported by the macro, unknown to rustc there).
pub fn clean_fn(func: &ItemFn) -> ItemFn {
    let mut func = func.clone();
    for input in func.sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| {
                !docs::is_doc(a)
                    && !is_header(a)
                    && !is_schemars(a)
                    && !is_serde(a)
                    && !is_redact(a)
            });
        }
    }
    func
}

/// What is emitted when a declaration has errors: the function and its name item, so the
/// errors are the only messages.
pub fn stub(func: &ItemFn) -> proc_macro2::TokenStream {
    let func = clean_fn(func);
    // A method sits in an impl block, where the name item cannot go: emit the function only.
    if matches!(func.sig.inputs.first(), Some(FnArg::Receiver(_))) {
        return quote::quote!(#func);
    }
    let ident = &func.sig.ident;
    let vis = &func.vis;
    quote::quote! {
        #func
        #[allow(non_camel_case_types, dead_code)]
        #[doc(hidden)]
        #vis struct #ident {}
    }
}

/// Parse the annotated item as a function, or explain what the attribute goes on.
pub fn parse_fn(item: proc_macro2::TokenStream, attr: &str, errors: &mut Errors) -> Option<ItemFn> {
    match syn::parse2::<ItemFn>(item) {
        Ok(f) => Some(f),
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                format!("#[{attr}] goes on a function (`async fn name(..) -> T {{ .. }}`)"),
            ));
            None
        }
    }
}
