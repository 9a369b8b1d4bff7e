//! Code generation for `#[view]`: the resource's code (as `#[resource]` emits it, with
//! its `ViewDef`) and the compile-time marker of its URI.

use proc_macro2::TokenStream;
use quote::quote;

use super::model::Model;
use super::parse::Parsed;
use crate::resource::expand as resource;
use crate::resource::parse::Parsed as ResourceParsed;
use crate::sig;

/// The scheme of every view's URI.
pub const SCHEME: &str = "ui://";

/// What is emitted when the declaration has errors.
pub fn stub(parsed: &Parsed) -> TokenStream {
    sig::stub(&parsed.func)
}

/// The resource and the marker `#[tool(ui = "..")]` looks for.
pub fn view(parsed: &Parsed, model: &Model) -> TokenStream {
    let as_resource = ResourceParsed {
        func: parsed.func.clone(),
        attr: None,
    };
    let mut out = resource::resource(&as_resource, &model.resource);
    let hash = uri_hash(&model.resource.uri);
    // The one implementation of `ViewDeclared<_>` for this URI's marker type: a tool that
    // names the URI infers the `_` from it, and fails to compile when there is none.
    out.extend(quote! {
        const _: () = {
            #[doc(hidden)]
            #[allow(dead_code)]
            struct __McpView;
            impl ::mcp_runtime::__private::ViewDeclared<__McpView>
                for ::mcp_runtime::__private::ViewUri<#hash>
            {
            }
        };
    });
    out
}

/// A view URI's marker: 128 bits of FNV-1a over the URI (two 64-bit passes with different
/// offsets), so URIs that differ never share a marker in practice.
pub fn uri_hash(uri: &str) -> u128 {
    let pass = |offset: u64| {
        uri.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let high = pass(0xcbf2_9ce4_8422_2325);
    let low = pass(0x84222325_cbf29ce4);
    (u128::from(high) << 64) | u128::from(low)
}
