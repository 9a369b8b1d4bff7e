//! Code generation for `#[resource]`: the read glue, its parameters' extraction and the
//! `ResourceDef`, inside the shared registration of `register`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::{Model, Source};
use super::parse::Parsed;
use crate::options::{encode, opt_str};
use crate::register::{self, Registration};
use crate::sig::{self, clean_fn};
use crate::uri::{self as template, Piece};

/// What is emitted when the declaration has errors.
pub fn stub(parsed: &Parsed) -> TokenStream {
    sig::stub(&parsed.func)
}

/// The function, its name item and the registered `ResourceDef`.
pub fn resource(parsed: &Parsed, model: &Model) -> TokenStream {
    let func = &parsed.func;
    let func_clean = clean_fn(func);
    let ident = &func.sig.ident;
    let name = &model.name;
    let uri = &model.uri;
    let title = opt_str(&model.title);
    let description = opt_str(&model.description);
    let scopes = &model.scopes;
    let tags = &model.tags;
    let mime = opt_str(&model.mime);
    let size = match model.size {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let priority = match model.priority {
        Some(p) => quote!(::core::option::Option::Some(#p)),
        None => quote!(::core::option::Option::None),
    };
    let audience = match &model.audience {
        Some(roles) => {
            let roles = roles.iter().map(|r| {
                if r == "user" {
                    quote!(__mcp::Role::User)
                } else {
                    quote!(__mcp::Role::Assistant)
                }
            });
            quote!(::core::option::Option::Some(&[#(#roles),*]))
        }
        None => quote!(::core::option::Option::None),
    };
    let ttl = match model.ttl_ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let cache = match model.cache_private {
        Some(true) => quote!(::core::option::Option::Some(__mcp::CacheScope::Private)),
        Some(false) => quote!(::core::option::Option::Some(__mcp::CacheScope::Public)),
        None => quote!(::core::option::Option::None),
    };
    let view = match &model.view {
        None => quote!(::core::option::Option::None),
        Some(v) => {
            let (connect, resource, frame, base_uri) =
                (&v.connect, &v.resource, &v.frame, &v.base_uri);
            let asks = |name: &str| v.permissions.iter().any(|p| p == name);
            let (camera, microphone, geolocation, clipboard_write) = (
                asks("camera"),
                asks("microphone"),
                asks("geolocation"),
                asks("clipboard_write"),
            );
            let domain = opt_str(&v.domain);
            let border = match v.prefers_border {
                Some(b) => quote!(::core::option::Option::Some(#b)),
                None => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(__mcp::ViewDef {
                connect_domains: &[#(#connect),*],
                resource_domains: &[#(#resource),*],
                frame_domains: &[#(#frame),*],
                base_uri_domains: &[#(#base_uri),*],
                permissions: __mcp::Permissions {
                    camera: #camera,
                    microphone: #microphone,
                    geolocation: #geolocation,
                    clipboard_write: #clipboard_write,
                },
                domain: #domain,
                prefers_border: #border,
            }))
        }
    };
    let pieces = model.pieces.iter().map(|p| match p {
        Piece::Literal(text) => quote!(__mcp::Piece::Literal(#text)),
        Piece::Segment(name, _) => quote!(__mcp::Piece::Segment(#name)),
        Piece::Rest(name, _) => quote!(__mcp::Piece::Rest(#name)),
    });

    let describe = model.params.iter().filter_map(|(p, source)| match source {
        Source::Uri => None,
        Source::Context => {
            let ty = &p.ty;
            Some(quote_spanned! {ty.span()=> <#ty as __mcp::FromContext>::describe(spec); })
        }
    });
    let vars: Vec<_> = (0..model.params.len())
        .map(|i| format_ident!("__mcp_p{}", i))
        .collect();
    let extracts = model.params.iter().zip(&vars).map(|((p, source), var)| {
        let ty = &p.ty;
        let param_name = &p.name;
        match source {
            Source::Uri => quote_spanned! {ty.span()=>
                let #var = match <#ty as __mcp::FromUriParam>::from_uri_param(
                    request.params.get(#param_name).unwrap_or_default(),
                ) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(reason) => {
                        return ::core::result::Result::Err(__mcp::bad_uri_param(&request.uri, #param_name, reason))
                    }
                };
            },
            Source::Context => quote_spanned! {ty.span()=>
                let #var = <#ty as __mcp::FromContext>::from_context(&ctx)?;
            },
        }
    });
    let await_ = register::awaiting(model.is_async);
    let output = &model.output;
    let render = register::rpc_render(
        output,
        quote_spanned!(output.span()=> __mcp::IntoContents::into_contents(value, &request.uri, #mime)),
    );
    let params = register::params_fn(describe);
    let (completer_fns, completer_entries) = register::completers(&model.completers);
    let boxed = quote_spanned! {ident.span()=> __mcp::boxed_read };
    // rustc names the detector in its error, so its name says what is wrong and what to
    // do; URI templates of one shape (variables aside) are the same template.
    let dup = format_ident!(
        "two_resources_at_uri_{}__give_one_another_uri",
        encode(&template::shape(&model.pieces)),
        span = model.dup_span
    );

    register::emit(Registration {
        func: &func_clean,
        uses: register::rpc_uses(),
        body: quote! {
            #params

            fn __mcp_read(ctx: __mcp::RequestContext, request: __mcp::ReadRequest) -> __mcp::ReadFuture {
                #boxed(async move {
                    let _ = &ctx;
                    #(#extracts)*
                    let out = #ident(#(#vars),*) #await_;
                    #render
                })
            }

            #(#completer_fns)*

            static __MCP_DEF: __mcp::ResourceDef = __mcp::ResourceDef {
                name: #name,
                title: #title,
                description: #description,
                uri: #uri,
                template: &[#(#pieces),*],
                mime: #mime,
                size: #size,
                audience: #audience,
                priority: #priority,
                ttl_ms: #ttl,
                cache_scope: #cache,
                scopes: &[#(#scopes),*],
                tags: &[#(#tags),*],
                view: #view,
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
                params: __mcp_params,
                read: __mcp_read,
                completions: &[#(#completer_entries),*],
            };
        },
        def: format_ident!("ResourceDef"),
        item: format_ident!("ResourceItem"),
        registration: format_ident!("ResourceRegistration"),
        duplicate: dup,
    })
}
