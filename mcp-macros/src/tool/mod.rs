//! `#[tool]`: parse -> model -> validate -> expand.

mod expand;
mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::stages::{self, Stages};

/// `#[tool(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let stages = Stages {
        parse: parse::parse,
        model: model::build,
        validate: validate::check,
        expand: expand::tool,
        stub: expand::stub,
    };
    stages::run(stages, attr, item)
}
