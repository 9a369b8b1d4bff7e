//! Tokens to syntax: the attribute's options and the function item.

use proc_macro2::TokenStream;
use syn::{Attribute, Ident, ItemFn, LitStr, Meta};

use crate::errors::Errors;

use crate::options::RawOption;

/// The attribute and the item, as syntax.
pub struct Parsed {
    pub options: Vec<RawOption>,
    pub func: ItemFn,
}

/// `None` when `item` is not a function (there is nothing to emit but the error). Options
/// that cannot be read are reported and the tool is read without them.
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

/// A parameter's `#[header("Name")]`: the name's literal, or errors showing the form.
pub fn header(attrs: &[Attribute], param: &str, errors: &mut Errors) -> Option<LitStr> {
    let example = example_header(param);
    let form = format!("#[header(\"{example}\")]");
    let mut found: Option<LitStr> = None;
    for attr in attrs {
        let lit = match &attr.meta {
            Meta::List(list) => match syn::parse2::<LitStr>(list.tokens.clone()) {
                Ok(lit) => lit,
                Err(_) => {
                    let written = syn::parse2::<Ident>(list.tokens.clone())
                        .map(|i| format!("#[header(\"{i}\")]"))
                        .unwrap_or(form.clone());
                    errors.at(
                        &list.tokens,
                        format!("write the header name as one string literal: {written}"),
                    );
                    continue;
                }
            },
            Meta::Path(path) => {
                errors.at(
                    path,
                    format!("name the header: {form} mirrors `{param}` into `Mcp-Param-{example}`"),
                );
                continue;
            }
            Meta::NameValue(nv) => {
                errors.at(nv, format!("write the header name in parentheses: {form}"));
                continue;
            }
        };
        if found.is_some() {
            errors.at(
                attr,
                format!(
                    "`{param}` has a #[header] already: an argument is mirrored into one header"
                ),
            );
            continue;
        }
        found = Some(lit);
    }
    found
}

/// A header name for a parameter, for suggestions: `region_code` -> `Region-Code`.
fn example_header(param: &str) -> String {
    let words: Vec<String> = param
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect();
    if words.is_empty() {
        "Name".to_owned()
    } else {
        words.join("-")
    }
}
