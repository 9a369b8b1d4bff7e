//! `#[prompt]`: parse -> model -> validate -> expand, as `#[tool]`. `model` reads the
//! options and the arguments, `validate` checks the name and the completers, `expand` emits
//! a `PromptDef`.

mod expand;
mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;
use crate::stages::{self, Stages};

/// `#[prompt]`'s stages.
struct Prompt;

impl Stages for Prompt {
    type Parsed = parse::Parsed;
    type Model = model::Model;

    fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<parse::Parsed> {
        parse::parse(attr, item, errors)
    }

    fn model(parsed: &parse::Parsed, errors: &mut Errors) -> Option<model::Model> {
        model::build(parsed, errors)
    }

    fn validate(model: &model::Model, errors: &mut Errors) {
        validate::check(model, errors);
    }

    fn expand(parsed: &parse::Parsed, model: &model::Model) -> TokenStream {
        expand::prompt(parsed, model)
    }

    fn stub(parsed: &parse::Parsed) -> TokenStream {
        expand::stub(parsed)
    }
}

/// `#[prompt(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    stages::run::<Prompt>(attr, item)
}
