//! `#[prompt]`: options and parameters (model) to a `PromptDef` (expand).

mod expand;
mod model;

use proc_macro2::TokenStream;

use crate::errors::Errors;
use crate::sig;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(func) = sig::parse_fn(item, "prompt", &mut errors) else {
        return errors.finish().err().unwrap_or_default();
    };
    let model = model::build(attr, &func, &mut errors);
    match (model, errors.finish()) {
        (Some(model), Ok(())) => expand::prompt(&func, &model),
        (_, result) => {
            let mut out = sig::stub(&func);
            out.extend(result.err());
            out
        }
    }
}
