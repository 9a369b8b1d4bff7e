//! `#[resource("scheme://path/<id>")]`: parse the template and options, match variables to
//! parameters, expand to a `ResourceDef`.

mod expand;
mod model;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(func) = crate::sig::parse_fn(item, "resource", &mut errors) else {
        return errors.finish().err().unwrap_or_default();
    };
    let model = model::build(attr, &func, &mut errors);
    match (model, errors.finish()) {
        (Some(model), Ok(())) => expand::resource(&func, &model),
        (_, result) => {
            let mut out = crate::sig::stub(&func);
            out.extend(result.err());
            out
        }
    }
}
