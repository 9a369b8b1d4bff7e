//! `#[view("ui://..")]`: a resource of the MCP Apps extension, parse -> model -> validate
//! -> expand as `#[resource]`. `model` reads the options (the resource's own and the
//! framing the host needs), `validate` checks the URI, and `expand` emits the resource's
//! `ResourceDef` with its `ViewDef` plus the marker a `#[tool(ui = "..")]` naming this URI
//! resolves at compile time.

pub(crate) mod expand;
pub(crate) mod framing;
pub(crate) mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::stages::{self, Stages};
pub(crate) use validate::check_uri;

/// `#[view(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let stages = Stages {
        parse: parse::parse,
        model: model::build,
        validate: validate::check,
        expand: expand::view,
        stub: expand::stub,
    };
    stages::run(stages, attr, item)
}
