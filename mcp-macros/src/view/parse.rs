//! Tokens to syntax for `#[view]`: the function item, the URI literal and the options
//! after it.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{ItemFn, LitStr};

use crate::errors::Errors;
use crate::options::{self, RawOption};

/// The attribute and the item, as syntax.
pub struct Parsed {
    pub func: ItemFn,
    /// The attribute, or `None` when it could not be read (the error is recorded).
    pub attr: Option<Attr>,
}

/// `#[view("ui://..", option, ..)]`.
pub struct Attr {
    pub uri: LitStr,
    pub options: Vec<RawOption>,
}

impl Parse for Attr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (uri, options) = options::parse_after_string(
            input,
            "#[view] starts with the view's URI: #[view(\"ui://orders/board\")]",
        )?;
        Ok(Attr { uri, options })
    }
}

/// `None` when `item` is not a function (there is nothing to emit but the error).
pub fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<Parsed> {
    let func = crate::sig::parse_fn(item, "view", errors)?;
    let attr = match syn::parse2::<Attr>(attr) {
        Ok(attr) => Some(attr),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    Some(Parsed { func, attr })
}
