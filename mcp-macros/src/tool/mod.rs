//! `#[tool]`: parse -> model -> validate -> expand.

mod expand;
mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;

/// `#[tool(attr)] item`: the expansion, or the function and its errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let parsed = match parse::parse(attr, item, &mut errors) {
        Some(parsed) => parsed,
        // Not even a function: nothing to keep.
        None => return errors.finish().err().unwrap_or_default(),
    };
    let model = model::build(&parsed, &mut errors);
    if let Some(model) = &model {
        validate::check(model, &mut errors);
    }
    match (model, errors.finish()) {
        (Some(model), Ok(())) => expand::tool(&parsed, &model),
        (_, result) => {
            let mut out = expand::stub(&parsed);
            out.extend(result.err());
            out
        }
    }
}
