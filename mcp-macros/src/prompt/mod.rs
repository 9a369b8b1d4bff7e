//! `#[prompt]`: parse -> model -> validate -> expand, as `#[tool]`. `model` reads the
//! options and the arguments, `validate` checks the name and the completers, `expand` emits
//! a `PromptDef`.

mod expand;
mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::stages::{self, Stages};

/// `#[prompt(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let stages = Stages {
        parse: parse::parse,
        model: model::build,
        validate: validate::check,
        expand: expand::prompt,
        stub: expand::stub,
    };
    stages::run(stages, attr, item)
}
