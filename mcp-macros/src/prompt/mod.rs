//! `#[prompt]`: options and parameters (model) to a `PromptDef` (expand).

mod expand;
mod model;

use proc_macro2::TokenStream;

use crate::errors::Errors;
use crate::sig;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(func) = sig::parse_fn(item, "prompt", &mut errors) else {
        return errors.into_tokens();
    };
    match model::build(attr, &func, &mut errors) {
        Some(model) if errors.is_empty() => expand::prompt(&func, &model),
        _ => {
            let mut out = sig::stub(&func);
            out.extend(errors.into_tokens());
            out
        }
    }
}
