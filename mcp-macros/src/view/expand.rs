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

/// What is emitted when the declaration has errors: the function, and the URI's marker
/// when the URI itself is a view's, so that a mistake in an option is reported once, at
/// the option, and not a second time at every tool that names the view.
pub fn stub(parsed: &Parsed) -> TokenStream {
    let mut out = sig::stub(&parsed.func);
    if let Some(attr) = &parsed.attr {
        // The URI's own errors are reported by the stage that checked it; this only asks
        // whether there are any.
        let mut scratch = crate::errors::Errors::default();
        let valid = super::check_uri(&attr.uri, &mut scratch);
        let _ = scratch.finish();
        if valid {
            out.extend(marker(&attr.uri.value()));
        }
    }
    out
}

/// The resource and the marker `#[tool(ui = "..")]` looks for.
pub fn view(parsed: &Parsed, model: &Model) -> TokenStream {
    let as_resource = ResourceParsed {
        func: parsed.func.clone(),
        attr: None,
    };
    let mut out = resource::resource(&as_resource, &model.resource);
    out.extend(marker(&model.resource.uri));
    out
}

/// The one implementation of `ViewDeclared<_>` for this URI's marker type: a tool that
/// names the URI infers the `_` from it, and fails to compile when there is none. The type
/// is local (so the crate may implement the runtime's trait for the runtime's type) and
/// public, though unnameable in its anonymous block: a tool in any module may infer it.
fn marker(uri: &str) -> TokenStream {
    let hash = uri_hash(uri);
    quote! {
        const _: () = {
            #[doc(hidden)]
            #[allow(dead_code)]
            pub struct __McpView;
            // Not listed under the error of a tool naming another URI (see the runtime's
            // implementation for marker 0).
            #[diagnostic::do_not_recommend]
            impl ::mcp_runtime::__private::ViewDeclared<__McpView>
                for ::mcp_runtime::__private::ViewUri<#hash>
            {
            }
        };
    }
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
