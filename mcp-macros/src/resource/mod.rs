//! `#[resource("scheme://path/<id>")]`: parse the template and options, match variables to
//! parameters, expand to a `ResourceDef`.

mod expand;
mod model;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(func) = crate::sig::parse_fn(item, "resource", &mut errors) else {
        return errors.into_tokens();
    };
    match model::build(attr, &func, &mut errors) {
        Some(model) if errors.is_empty() => expand::resource(&func, &model),
        _ => {
            let mut out = crate::sig::stub(&func);
            out.extend(errors.into_tokens());
            out
        }
    }
}
