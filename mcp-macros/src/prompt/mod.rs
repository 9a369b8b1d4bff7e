//! `#[prompt]`: parse -> model -> validate -> expand, as `#[tool]`. `model` reads the
//! options and the arguments, `validate` checks the name and the completers, `expand` emits
//! a `PromptDef`.

mod expand;
mod model;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;

/// `#[prompt(attr)] item`: the expansion, or the function and its errors.
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
        (Some(model), Ok(())) => expand::prompt(&parsed, &model),
        (_, result) => {
            let mut out = expand::stub(&parsed);
            out.extend(result.err());
            out
        }
    }
}
