//! `#[resource("scheme://path/<id>")]`: parse -> model -> validate -> expand, as `#[tool]`.
//! `parse` splits the URI template, `model` reads the options and binds each parameter to
//! a variable or the request context, `validate` checks the template against the
//! parameters and completers, `expand` emits a `ResourceDef`.

mod expand;
mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;
use crate::stages::{self, Stages};

/// `#[resource]`'s stages.
struct Resource;

impl Stages for Resource {
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
        expand::resource(parsed, model)
    }

    fn stub(parsed: &parse::Parsed) -> TokenStream {
        expand::stub(parsed)
    }
}

/// `#[resource(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    stages::run::<Resource>(attr, item)
}
