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

/// `#[resource(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(parsed) = parse::parse(attr, item, &mut errors) else {
        // Not even a function: nothing to keep.
        return errors.finish().err().unwrap_or_default();
    };
    let model = model::build(&parsed, &mut errors);
    if let Some(model) = &model {
        validate::check(model, &mut errors);
    }
    match (model, errors.finish()) {
        (Some(model), Ok(())) => expand::resource(&parsed, &model),
        (_, result) => {
            let mut out = expand::stub(&parsed);
            out.extend(result.err());
            out
        }
    }
}
