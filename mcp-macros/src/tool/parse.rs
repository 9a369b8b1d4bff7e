//! Tokens to syntax: the attribute's options and the function item.

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::errors::Errors;

pub use crate::options::RawOption;

pub struct Parsed {
    pub options: Vec<RawOption>,
    pub func: ItemFn,
}

pub fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<Parsed> {
    let func = crate::sig::parse_fn(item, "tool", errors)?;
    let options = match syn::parse::Parser::parse2(crate::options::parse_list, attr) {
        Ok(list) => list,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                "expected options such as `name = \"..\"`, `title = \"..\"`, `read_only`, `destructive`, `idempotent`, `open_world`",
            ));
            Vec::new()
        }
    };
    Some(Parsed { options, func })
}
