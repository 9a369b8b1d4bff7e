//! Code generation. Generated code names `::mcp_runtime::__private` only and sits in
//! `const _: () = { .. };` so it adds no names to the user's module besides the tool's
//! type-namespace item (which `tools![..]` uses).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::LitStr;

use super::model::{Model, Who};
use super::parse::Parsed;
use crate::options::{opt_str, readable};
use crate::register::{self, Registration};
use crate::sig::{self, clean_fn};

/// How many calls of a tool with `concurrency` wait for a turn when it says nothing.
const DEFAULT_QUEUE: u32 = 16;

/// What is emitted when the declaration has errors.
pub fn stub(parsed: &Parsed) -> TokenStream {
    sig::stub(&parsed.func)
}

fn opt_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_lit(value: &Option<LitStr>) -> TokenStream {
    match value {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    }
}

/// The function, its name item and the registered `ToolDef`: the argument wrappers, the
/// parameters' description, the check that its view is declared, the schemas of its
/// output and errors, the call, and the definition that names them all.
pub fn tool(parsed: &Parsed, model: &Model) -> TokenStream {
    let func = clean_fn(&parsed.func);
    let constrained = constrained(model);
    let wrappers = constrained.iter().map(|(_, _, item)| item);
    let params = register::params_fn(describe(model, &constrained));
    let ui_check = ui_check(model);
    let output_schema = output_schema(model);
    let error_detail = error_detail(model);
    let call = call_fn(model, &func.sig.ident);
    let def = def(model);
    // Versions of one name are told apart by their version. rustc names the detector in
    // its error ("the name `..` is defined multiple times", at both attributes), so its
    // name says what is wrong and what to do.
    let dup = match &model.version {
        None => format_ident!(
            "two_tools_named_{}__give_one_another_name",
            readable(&model.name),
            span = model.name_span
        ),
        Some(version) => format_ident!(
            "two_tools_named_{}_at_version_{}__give_one_another_version",
            readable(&model.name),
            readable(version),
            span = model.name_span
        ),
    };

    register::emit(Registration {
        func: &func,
        uses: quote!(
            ConstraintsDerived as _,
            ConstraintsUnread as _,
            FailureDisplay as _,
            FailureExplicit as _,
            FailureUnsupported as _,
            OutputExplicit as _,
            OutputStructured as _,
            OutputUnschemed as _,
            OutputUnsupported as _,
            SplitPlain as _,
            SplitResult as _,
        ),
        body: quote! {
            #(#wrappers)*

            #params

            #ui_check

            fn __mcp_output(generator: &mut __mcp::SchemaGenerator) -> ::core::option::Option<__mcp::Schema> {
                #output_schema
            }

            fn __mcp_errors(generator: &mut __mcp::SchemaGenerator) -> __mcp::ErrorDetail {
                #error_detail
            }

            #call

            #def
        },
        def: format_ident!("ToolDef"),
        item: format_ident!("ToolItem"),
        registration: format_ident!("ToolRegistration"),
        duplicate: dup,
    })
}

/// A parameter with `#[schemars(..)]` gets a one-field struct deriving `JsonSchema` with
/// those attributes; its field's schema is the argument's. Each with its parameter's
/// index and the struct's name.
fn constrained(model: &Model) -> Vec<(usize, Ident, TokenStream)> {
    model
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.constraints.is_empty())
        .map(|(i, p)| {
            let ty = &p.ty;
            let attrs = &p.constraints;
            let wrapper = format_ident!("__McpArgument{}", i);
            let item = quote! {
                #[derive(::mcp_runtime::__private::schemars::JsonSchema)]
                #[schemars(crate = "::mcp_runtime::__private::schemars")]
                #[allow(dead_code, non_camel_case_types)]
                struct #wrapper {
                    #(#attrs)*
                    value: #ty,
                }
            };
            (i, wrapper, item)
        })
        .collect()
}

/// What each parameter contributes to the tool's description (its argument's schema, or
/// what it extracts), and the header it is mirrored into.
fn describe<'a>(
    model: &'a Model,
    constrained: &'a [(usize, Ident, TokenStream)],
) -> impl Iterator<Item = TokenStream> + 'a {
    model.params.iter().enumerate().map(move |(i, p)| {
        let ty = &p.ty;
        let param_name = &p.name;
        let doc = opt_str(&p.doc);
        // The header's type check is spanned at the parameter's type, where it fails.
        let mirror = p.header.as_ref().map(|header| {
            quote_spanned! {ty.span()=>
                __mcp::mirror_argument::<#ty>(spec, #param_name, #header);
            }
        });
        let argument = match constrained.iter().find(|(index, _, _)| *index == i) {
            Some((_, wrapper, _)) => quote_spanned! {ty.span()=>
                __mcp::constrained_argument::<#ty>(
                    spec,
                    #param_name,
                    #doc,
                    (&&__mcp::Tag::<#wrapper>::new()).__mcp_constraints(),
                );
            },
            None => quote_spanned! {ty.span()=>
                <#ty as __mcp::ToolParam>::describe(spec, #param_name, #doc);
            },
        };
        quote! {
            #argument
            #mirror
        }
    })
}

/// The view the tool names must be declared: the marker type of its URI has exactly one
/// `ViewDeclared` implementation, emitted by its `#[view]`. Spanned at the URI.
fn ui_check(model: &Model) -> Option<TokenStream> {
    model.ui.as_ref().map(|lit| {
        let hash = crate::view::expand::uri_hash(&lit.value());
        quote_spanned! {lit.span()=>
            #[allow(dead_code)]
            fn __mcp_ui_declared() {
                __mcp::view_declared::<_, __mcp::ViewUri<#hash>>();
            }
        }
    })
}

/// The body of `__mcp_output`: the schema of the success type, or none. The checks the
/// resolution leaves are made here, once, at the success type of the return type: a type
/// the runtime cannot send fails them with the framework's message.
fn output_schema(model: &Model) -> TokenStream {
    let output = &model.output;
    let out_span = output.span();
    let (ok_span, _) = sig::result_spans(output);
    let sendable = quote_spanned! {ok_span=>
        __mcp::SendableOutput::check(&output.sendable());
    };
    let schema = if model.output_schema {
        let described = quote_spanned! {ok_span=>
            __mcp::DescribedOutput::check(&output.described());
        };
        quote_spanned! {out_span=>
            #described
            (output.schema)(generator)
        }
    } else {
        // `output_schema = false`: structured content, never a schema.
        quote_spanned! {out_span=>
            let _ = (output, generator);
            ::core::option::Option::None
        }
    };
    quote_spanned! {out_span=>
        let split = (&&__mcp::Tag::<#output>::new()).__mcp_split();
        let ok = split.ok_tag();
        let output = (&&&&ok).__mcp_output();
        #sendable
        #schema
    }
}

/// The body of `__mcp_errors`: what the error type carries as structure, once it is
/// checked to have a message (at the error type of the return type).
fn error_detail(model: &Model) -> TokenStream {
    let output = &model.output;
    let (_, err_span) = sig::result_spans(output);
    let displayable = quote_spanned! {err_span=>
        __mcp::ToolErrorMessage::check(&failure.displayable());
    };
    quote_spanned! {output.span()=>
        let split = (&&__mcp::Tag::<#output>::new()).__mcp_split();
        let err = split.err_tag();
        let failure = (&&&err).__mcp_failure();
        #displayable
        (failure.detail)(generator)
    }
}

/// `fn __mcp_call`: extract each argument, run the function, render what it returns (its
/// success as the tool's output, its error as the tool's failure).
fn call_fn(model: &Model, ident: &Ident) -> TokenStream {
    let vars: Vec<_> = (0..model.params.len())
        .map(|i| format_ident!("__mcp_p{}", i))
        .collect();
    let extracts = model.params.iter().zip(&vars).map(|(p, var)| {
        let ty = &p.ty;
        let param_name = &p.name;
        quote_spanned! {ty.span()=>
            let #var = match <#ty as __mcp::ToolParam>::extract(&mut parts, #param_name) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(rejection) => return rejection.into_outcome(),
            };
        }
    });
    let await_ = register::awaiting(model.is_async);
    let render = quote_spanned! {model.output.span()=>
        let split = (&&__mcp::tag_of(&out)).__mcp_split();
        match (split.split)(out) {
            ::core::result::Result::Ok(value) => {
                ::core::result::Result::Ok(((&&&&__mcp::tag_of(&value)).__mcp_output().render)(value))
            }
            ::core::result::Result::Err(error) => ((&&&__mcp::tag_of(&error)).__mcp_failure().render)(error),
        }
    };
    let boxed = quote_spanned! {ident.span()=> __mcp::boxed };
    quote! {
        fn __mcp_call(
            ctx: __mcp::RequestContext,
            args: __mcp::Map<::std::string::String, __mcp::Value>,
        ) -> __mcp::BoxFuture<'static, ::core::result::Result<__mcp::CallToolResult, __mcp::RpcError>> {
            #boxed(async move {
                #[allow(unused_mut)]
                let mut parts = __mcp::CallParts::new(&ctx, args);
                #(#extracts)*
                let _ = parts;
                let out = #ident(#(#vars),*) #await_;
                #render
            })
        }
    }
}

/// `static __MCP_DEF`: the options as the runtime reads them, and the glue functions.
fn def(model: &Model) -> TokenStream {
    let name = &model.name;
    let title = opt_str(&model.title);
    let description = &model.description;
    let (read_only, destructive, idempotent, open_world) = (
        opt_bool(model.read_only),
        opt_bool(model.destructive),
        opt_bool(model.idempotent),
        opt_bool(model.open_world),
    );
    let scopes = &model.scopes;
    let tags = &model.tags;
    let version = opt_str(&model.version);
    let task = match model.task {
        None => quote!(__mcp::TaskSupport::Forbidden),
        Some(false) => quote!(__mcp::TaskSupport::Optional),
        Some(true) => quote!(__mcp::TaskSupport::Required),
    };
    // Confirmations of destructive tools are single-use unless the tool says otherwise.
    let once = match model.once {
        Some((once, _)) => once,
        None => model.destructive == Some(true),
    };
    let idempotency = model.idempotency.is_some();
    let inline_limit = match model.inline_limit {
        None => quote!(__mcp::InlineLimit::Server),
        Some(Some(n)) => quote!(__mcp::InlineLimit::Bytes(#n)),
        Some(None) => quote!(__mcp::InlineLimit::Unlimited),
    };
    let ui = opt_lit(&model.ui);
    let visibility = match model.visibility {
        None | Some(Who::Both) => quote!(__mcp::Visibility::ModelAndApp),
        Some(Who::Model) => quote!(__mcp::Visibility::Model),
        Some(Who::App) => quote!(__mcp::Visibility::App),
    };
    let continues = opt_lit(&model.continues);
    let timeout = match model.timeout {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    let concurrency = match model.concurrency {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let queue = model.queue.unwrap_or(DEFAULT_QUEUE);
    quote! {
        static __MCP_DEF: __mcp::ToolDef = __mcp::ToolDef {
            name: #name,
            title: #title,
            description: #description,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            scopes: &[#(#scopes),*],
            tags: &[#(#tags),*],
            version: #version,
            ui: #ui,
            visibility: #visibility,
            continues: #continues,
            timeout: #timeout,
            concurrency: #concurrency,
            queue: #queue,
            task: #task,
            once: #once,
            idempotency: #idempotency,
            inline_limit: #inline_limit,
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
            params: __mcp_params,
            output_schema: __mcp_output,
            error_detail: __mcp_errors,
            call: __mcp_call,
        };
    }
}
