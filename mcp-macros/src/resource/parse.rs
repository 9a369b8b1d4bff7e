//! Tokens to syntax for `#[resource]`: the function item, the URI template literal split
//! into pieces (every syntax problem reported inside the literal), and the options after it.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{ItemFn, LitStr};

use crate::errors::Errors;
use crate::options::{self, inner_span, RawOption};
use crate::uri::{self as template, Piece};

/// The attribute and the item, as syntax.
pub struct Parsed {
    pub func: ItemFn,
    /// The attribute, or `None` when it could not be read (the error is recorded and only
    /// the function is emitted).
    pub attr: Option<Attr>,
}

/// `#[resource("scheme://path/<id>", option, ..)]`.
pub struct Attr {
    pub template: LitStr,
    /// The template's pieces: empty when it has syntax errors, which are recorded already.
    pub pieces: Vec<Piece>,
    pub options: Vec<RawOption>,
}

/// The attribute as written, before the template is split.
struct Syntax {
    template: LitStr,
    options: Vec<RawOption>,
}

impl Parse for Syntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (template, options) = options::parse_after_string(
            input,
            "#[resource] starts with the URI template: #[resource(\"orders://<id>\")]",
        )?;
        Ok(Syntax { template, options })
    }
}

/// `None` when `item` is not a function (there is nothing to emit but the error).
pub fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<Parsed> {
    let func = crate::sig::parse_fn(item, "resource", errors)?;
    let attr = match syn::parse2::<Syntax>(attr) {
        Ok(Syntax { template, options }) => Some(Attr {
            pieces: pieces(&template, errors),
            template,
            options,
        }),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    Some(Parsed { func, attr })
}

/// The template's pieces, or none with each problem reported at its characters.
fn pieces(lit: &LitStr, errors: &mut Errors) -> Vec<Piece> {
    let uri = lit.value();
    match template::parse(&uri) {
        Ok(pieces) => pieces,
        Err(problems) => {
            for p in problems {
                errors.span(
                    inner_span(lit, p.range.clone()),
                    format!("{}{}", p.message, template::caret(&uri, &p.range)),
                );
            }
            Vec::new()
        }
    }
}
