//! Tokens to syntax for `#[prompt]`: the attribute's options and the function item.

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::errors::Errors;
use crate::options::{self, RawOption};

/// The attribute and the item, as syntax.
pub struct Parsed {
    pub options: Vec<RawOption>,
    pub func: ItemFn,
}

/// `None` when `item` is not a function (there is nothing to emit but the error). Options
/// that cannot be read are reported and the prompt is read without them.
pub fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<Parsed> {
    let func = crate::sig::parse_fn(item, "prompt", errors)?;
    let options = match syn::parse::Parser::parse2(options::parse_list, attr) {
        Ok(list) => list,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                "expected options such as `name = \"..\"`, `title = \"..\"`, `complete(argument = completer_fn)`",
            ));
            Vec::new()
        }
    };
    Some(Parsed { options, func })
}
