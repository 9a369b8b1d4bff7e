//! Tokens to syntax: the attribute's options and the function item.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, ItemFn, Token};

use crate::errors::Errors;

/// One `key` or `key = value` inside `#[tool(...)]`.
pub struct RawOption {
    pub key: Ident,
    pub value: Option<Expr>,
}

impl Parse for RawOption {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(RawOption { key, value })
    }
}

pub struct Parsed {
    pub options: Vec<RawOption>,
    pub func: ItemFn,
}

pub fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<Parsed> {
    let func = match syn::parse2::<ItemFn>(item) {
        Ok(f) => f,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                "#[tool] goes on a function (`async fn name(..) -> T { .. }`)",
            ));
            return None;
        }
    };
    let options = match syn::parse::Parser::parse2(
        Punctuated::<RawOption, Token![,]>::parse_terminated,
        attr,
    ) {
        Ok(list) => list.into_iter().collect(),
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
