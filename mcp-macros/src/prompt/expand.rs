//! Code generation for `#[prompt]`: the get glue, its arguments' extraction and the
//! `PromptDef`, inside the shared registration of `register`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::Model;
use super::parse::Parsed;
use crate::options::{opt_str, readable};
use crate::register::{self, Registration};
use crate::sig::{self, clean_fn};

/// What is emitted when the declaration has errors.
pub fn stub(parsed: &Parsed) -> TokenStream {
    sig::stub(&parsed.func)
}

/// The function, its name item and the registered `PromptDef`.
pub fn prompt(parsed: &Parsed, model: &Model) -> TokenStream {
    let func = &parsed.func;
    let func_clean = clean_fn(func);
    let ident = &func.sig.ident;
    let name = &model.name;
    let title = opt_str(&model.title);
    let description = opt_str(&model.description);
    let scopes = &model.scopes;
    let tags = &model.tags;
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
    let await_ = register::awaiting(model.is_async);
    let output = &model.output;
    let render = register::rpc_render(
        output,
        quote_spanned!(output.span()=> ::core::result::Result::Ok(
            __mcp::IntoPromptResult::into_prompt_result(value)
        )),
    );
    let params = register::params_fn(describe);
    let (completer_fns, completer_entries) = register::completers(&model.completers);
    let boxed = quote_spanned! {ident.span()=> __mcp::boxed_prompt };
    // rustc names the detector in its error, so its name says what is wrong and what to do.
    let dup = format_ident!(
        "two_prompts_named_{}__give_one_another_name",
        readable(name),
        span = model.name_span
    );

    register::emit(Registration {
        func: &func_clean,
        uses: register::rpc_uses(),
        body: quote! {
            #params

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
                scopes: &[#(#scopes),*],
                tags: &[#(#tags),*],
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
                params: __mcp_params,
                get: __mcp_get,
                completions: &[#(#completer_entries),*],
            };
        },
        def: format_ident!("PromptDef"),
        item: format_ident!("PromptItem"),
        registration: format_ident!("PromptRegistration"),
        duplicate: dup,
    })
}
