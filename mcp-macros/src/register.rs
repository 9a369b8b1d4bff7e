//! The code every attribute macro emits around its own glue: the function, the name item
//! in the type namespace, the `static` definition registered with `inventory`, and the
//! macro whose second definition makes rustc report a duplicate in one crate.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::ItemFn;

/// What differs between `#[tool]`, `#[resource]` and `#[prompt]`.
pub struct Registration<'a> {
    /// The function as emitted (parameter docs stripped).
    pub func: &'a ItemFn,
    /// Resolution traits the glue calls methods of.
    pub uses: TokenStream,
    /// Glue functions plus `static __MCP_DEF: __mcp::<def> = ..;`.
    pub body: TokenStream,
    /// `ToolDef`, `ResourceDef` or `PromptDef`.
    pub def: Ident,
    /// `ToolItem`, `ResourceItem` or `PromptItem`.
    pub item: Ident,
    /// `ToolRegistration`, `ResourceRegistration` or `PromptRegistration`.
    pub registration: Ident,
    /// The duplicate detector, spanned where rustc should report a second definition.
    pub duplicate: Ident,
}

/// The function, its name item, the glue in `const _` and the duplicate detector.
pub fn emit(r: Registration<'_>) -> TokenStream {
    let Registration {
        func,
        uses,
        body,
        def,
        item,
        registration,
        duplicate,
    } = r;
    let ident = &func.sig.ident;
    let vis = &func.vis;
    quote! {
        #func

        #[allow(non_camel_case_types, dead_code)]
        #[doc(hidden)]
        #vis struct #ident {}

        #[allow(non_upper_case_globals, clippy::needless_borrow, clippy::let_unit_value, clippy::unit_arg, clippy::question_mark)]
        const _: () = {
            use ::mcp_runtime::__private as __mcp;
            #[allow(unused_imports)]
            use __mcp::{#uses};

            #body

            impl __mcp::#item for #ident {
                fn def() -> &'static __mcp::#def {
                    &__MCP_DEF
                }
            }

            __mcp::inventory::submit! { __mcp::#registration(&__MCP_DEF) }
        };

        // A second item with this name (or URI) in the crate defines this macro again,
        // which rustc reports at the name: "the name `duplicate_..` is defined multiple times".
        #[doc(hidden)]
        #[allow(non_local_definitions)]
        #[macro_export]
        macro_rules! #duplicate { () => {}; }
    }
}

/// `.await` after the call of an async function, nothing after a sync one.
pub fn awaiting(is_async: bool) -> TokenStream {
    if is_async {
        quote!(.await)
    } else {
        quote!()
    }
}

/// `fn __mcp_params`, which runs each parameter's `describe` once at server start.
pub fn params_fn(describe: impl Iterator<Item = TokenStream>) -> TokenStream {
    quote! {
        fn __mcp_params(spec: &mut __mcp::ParamSpec) {
            let _ = &spec;
            #(#describe)*
        }
    }
}

/// The resolution traits of resources and prompts, whose failures are JSON-RPC errors.
pub fn rpc_uses() -> TokenStream {
    quote!(
        RpcFailureDisplay as _,
        RpcFailureExplicit as _,
        RpcFailureUnsupported as _,
        SplitPlain as _,
        SplitResult as _
    )
}

/// Split the return value `out` into success (turned into the result by `ok`, which sees
/// `value`) and failure (a JSON-RPC error), resolved on the return type's span, where an
/// error type without a message fails its check.
pub fn rpc_render(output: &syn::Type, ok: TokenStream) -> TokenStream {
    let (_, err_span) = crate::sig::result_spans(output);
    let displayable = quote_spanned! {err_span=>
        __mcp::RpcErrorMessage::check(&failure.displayable());
    };
    quote_spanned! {output.span()=>
        let split = (&&__mcp::tag_of(&out)).__mcp_split();
        match (split.split)(out) {
            ::core::result::Result::Ok(value) => #ok,
            ::core::result::Result::Err(error) => {
                let failure = (&&&__mcp::tag_of(&error)).__mcp_rpc_failure();
                #displayable
                ::core::result::Result::Err((failure.render)(error))
            }
        }
    }
}

/// Glue functions and `Completer` entries for `complete(arg = function)`.
pub fn completers(list: &[(Ident, syn::Path)]) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut fns = Vec::new();
    let mut entries = Vec::new();
    for (index, (argument, path)) in list.iter().enumerate() {
        // The argument's name as a string literal, spelled as written.
        let argument = argument.to_string();
        let glue = format_ident!("__mcp_complete_{}", index);
        let call = quote_spanned! {path.span()=> #path(request).await };
        fns.push(quote! {
            fn #glue(request: __mcp::CompletionRequest) -> __mcp::CompleteFuture {
                __mcp::boxed_complete(async move {
                    __mcp::IntoCompletion::into_completion(#call)
                })
            }
        });
        entries.push(quote! {
            __mcp::Completer { argument: #argument, complete: #glue }
        });
    }
    (fns, entries)
}
