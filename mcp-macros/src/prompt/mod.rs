//! `#[prompt]`: options and parameters to a `PromptDef`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Type};

use crate::docs;
use crate::errors::Errors;
use crate::options::{self, encode, opt_str, Reader};
use crate::sig::{self, clean_fn, Param};

const OPTIONS: &[&str] = &["name", "title", "description", "complete"];

struct Model {
    name: String,
    name_span: proc_macro2::Span,
    title: Option<String>,
    description: Option<String>,
    completers: Vec<(String, syn::Path)>,
    params: Vec<Param>,
    is_async: bool,
    output: Type,
}

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(func) = sig::parse_fn(item, "prompt", &mut errors) else {
        return errors.into_tokens();
    };
    match build(attr, &func, &mut errors) {
        Some(model) if errors.is_empty() => prompt(&func, &model),
        _ => {
            let mut out = sig::stub(&func);
            out.extend(errors.into_tokens());
            out
        }
    }
}

fn build(attr: TokenStream, func: &ItemFn, errors: &mut Errors) -> Option<Model> {
    let list = match syn::parse::Parser::parse2(options::parse_list, attr) {
        Ok(list) => list,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                "expected options such as `name = \"..\"`, `title = \"..\"`, `complete(argument = completer_fn)`",
            ));
            Vec::new()
        }
    };
    let sig = &func.sig;
    let mut model = Model {
        name: sig.ident.to_string().trim_start_matches("r#").to_owned(),
        name_span: sig.ident.span(),
        title: None,
        description: None,
        completers: Vec::new(),
        params: Vec::new(),
        is_async: sig.asyncness.is_some(),
        output: syn::parse_quote!(()),
    };
    let mut completers = Vec::new();
    let mut reader = Reader::new("prompt", OPTIONS, errors);
    for option in &list {
        let Some(key) = reader.key(option) else {
            continue;
        };
        if key == "complete" {
            completers = options::completers(option, reader.errors);
            continue;
        }
        let Some(s) = reader.string(option) else {
            continue;
        };
        match key.as_str() {
            "name" => {
                model.name = s.value();
                model.name_span = s.span();
            }
            "title" => model.title = Some(s.value()),
            _ => model.description = Some(s.value()),
        }
    }
    let name = &model.name;
    if name.is_empty()
        || name.len() > 128
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        errors.span(
            model.name_span,
            format!("prompt name `{name}` must be 1 to 128 characters of A-Z a-z 0-9 _ - ."),
        );
    }
    sig::check_signature(sig, "prompt", errors);
    model.params = sig::params(sig, "prompt", errors);
    model.output = sig::output(sig, errors);
    if model.description.is_none() {
        model.description = docs::text(&func.attrs);
    }
    for (key, _) in &completers {
        if !model.params.iter().any(|p| *key == p.name) {
            let names: Vec<String> = model
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            errors.at(
                key,
                format!(
                    "`{key}` is not a parameter of this prompt{}",
                    if names.is_empty() {
                        String::new()
                    } else {
                        format!(" (parameters: {})", names.join(", "))
                    }
                ),
            );
        }
    }
    model.completers = completers
        .into_iter()
        .map(|(k, p)| (k.to_string(), p))
        .collect();
    Some(model)
}

fn prompt(func: &ItemFn, model: &Model) -> TokenStream {
    let func_clean = clean_fn(func);
    let ident = &func.sig.ident;
    let vis = &func.vis;
    let name = &model.name;
    let title = opt_str(&model.title);
    let description = opt_str(&model.description);
    let describe = model.params.iter().map(|p| {
        let ty = &p.ty;
        let param_name = &p.name;
        let doc = opt_str(&p.doc);
        quote_spanned! {ty.span()=> <#ty as __mcp::PromptParam>::describe(spec, #param_name, #doc); }
    });
    let vars: Vec<_> = (0..model.params.len())
        .map(|i| format_ident!("__mcp_p{}", i))
        .collect();
    let extracts = model.params.iter().zip(&vars).map(|(p, var)| {
        let ty = &p.ty;
        let param_name = &p.name;
        quote_spanned! {ty.span()=>
            let #var = <#ty as __mcp::PromptParam>::extract(&mut parts, #param_name)?;
        }
    });
    let await_ = if model.is_async {
        quote!(.await)
    } else {
        quote!()
    };
    let output = &model.output;
    let render = quote_spanned! {output.span()=>
        let split = (&&__mcp::tag_of(&out)).__mcp_split();
        match (split.split)(out) {
            ::core::result::Result::Ok(value) => ::core::result::Result::Ok(__mcp::IntoPromptResult::into_prompt_result(value)),
            ::core::result::Result::Err(error) => ::core::result::Result::Err(((&&__mcp::tag_of(&error)).__mcp_rpc_failure().render)(error)),
        }
    };
    let (completer_fns, completer_entries) = crate::resource::completers(&model.completers);
    let boxed = quote_spanned! {ident.span()=> __mcp::boxed_prompt };
    let dup = format_ident!(
        "duplicate_prompt_name_{}",
        encode(name),
        span = model.name_span
    );

    quote! {
        #func_clean

        #[allow(non_camel_case_types, dead_code)]
        #[doc(hidden)]
        #vis struct #ident {}

        #[allow(non_upper_case_globals, clippy::needless_borrow, clippy::let_unit_value, clippy::unit_arg, clippy::question_mark)]
        const _: () = {
            use ::mcp_runtime::__private as __mcp;
            #[allow(unused_imports)]
            use __mcp::{RpcFailureDisplay as _, RpcFailureExplicit as _, SplitPlain as _, SplitResult as _};

            fn __mcp_params(spec: &mut __mcp::ParamSpec) {
                let _ = &spec;
                #(#describe)*
            }

            fn __mcp_get(
                ctx: __mcp::RequestContext,
                args: __mcp::Map<::std::string::String, __mcp::Value>,
            ) -> __mcp::PromptFuture {
                #boxed(async move {
                    #[allow(unused_mut)]
                    let mut parts = __mcp::PromptParts::new(&ctx, args);
                    #(#extracts)*
                    let _ = parts;
                    let out = #ident(#(#vars),*) #await_;
                    #render
                })
            }

            #(#completer_fns)*

            static __MCP_DEF: __mcp::PromptDef = __mcp::PromptDef {
                name: #name,
                title: #title,
                description: #description,
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
                params: __mcp_params,
                get: __mcp_get,
                completions: &[#(#completer_entries),*],
            };

            impl __mcp::PromptItem for #ident {
                fn def() -> &'static __mcp::PromptDef {
                    &__MCP_DEF
                }
            }

            __mcp::inventory::submit! { __mcp::PromptRegistration(&__MCP_DEF) }
        };

        // Two prompts with one name in one crate define this macro twice, which rustc
        // reports at the name.
        #[doc(hidden)]
        #[allow(non_local_definitions)]
        #[macro_export]
        macro_rules! #dup { () => {}; }
    }
}
