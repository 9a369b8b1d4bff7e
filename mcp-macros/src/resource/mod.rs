//! `#[resource("scheme://path/<id>")]`: parse -> model -> validate -> expand, as `#[tool]`.
//! `parse` splits the URI template, `model` reads the options and binds each parameter to
//! a variable or the request context, `validate` checks the template against the
//! parameters and completers, `expand` emits a `ResourceDef`.

pub(crate) mod expand;
pub(crate) mod model;
pub(crate) mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::stages::{self, Stages};

/// `#[resource(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let stages = Stages {
        parse: parse::parse,
        model: model::build,
        validate: validate::check,
        expand: expand::resource,
        stub: expand::stub,
    };
    stages::run(stages, attr, item)
}
