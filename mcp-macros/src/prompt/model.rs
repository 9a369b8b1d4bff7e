//! What `#[prompt]` declares: its options read into typed values, its parameters (the
//! prompt's arguments) and its completers.

use proc_macro2::Span;
use syn::{Ident, Type};

use super::parse::Parsed;
use crate::docs;
use crate::errors::Errors;
use crate::options::{self, option_keys, Reader};
use crate::sig::{self, Param};

option_keys! {
    /// The options of `#[prompt(..)]`.
    enum PromptKey for "prompt" {
        Name = "name",
        Title = "title",
        Description = "description",
        Complete = "complete",
        Scopes = "scopes",
        Tags = "tags",
    }
}

/// A prompt as declared, before its rules are checked.
pub struct Model {
    pub name: String,
    /// The `name = ".."` literal, or the function's name when there is none.
    pub name_span: Span,
    pub title: Option<String>,
    pub description: Option<String>,
    /// `complete(argument = function)`, keyed by the argument as written.
    pub completers: Vec<(Ident, syn::Path)>,
    pub scopes: Vec<String>,
    /// `tags(..)`: labels to enable, disable, show and search it by.
    pub tags: Vec<String>,
    /// The prompt's arguments, in order.
    pub params: Vec<Param>,
    pub is_async: bool,
    /// The return type (`()` when none is written).
    pub output: Type,
}

/// Read the options and the signature; every problem is recorded in `errors`.
pub fn build(parsed: &Parsed, errors: &mut Errors) -> Option<Model> {
    let func = &parsed.func;
    let sig = &func.sig;
    let mut model = Model {
        name: sig.ident.to_string().trim_start_matches("r#").to_owned(),
        name_span: sig.ident.span(),
        title: None,
        description: None,
        completers: Vec::new(),
        scopes: Vec::new(),
        tags: Vec::new(),
        params: Vec::new(),
        is_async: sig.asyncness.is_some(),
        output: syn::parse_quote!(()),
    };
    let mut reader = Reader::<PromptKey>::new(errors);
    for option in &parsed.options {
        let Some(key) = reader.key(option) else {
            continue;
        };
        // `key` reports repeats, so each arm runs at most once per key.
        match key {
            PromptKey::Name => {
                if let Some(s) = reader.string(option) {
                    model.name = s.value();
                    model.name_span = s.span();
                }
            }
            PromptKey::Title => model.title = reader.string(option).map(|s| s.value()),
            PromptKey::Description => model.description = reader.string(option).map(|s| s.value()),
            PromptKey::Complete => model.completers = options::completers(option, reader.errors),
            PromptKey::Scopes => model.scopes = options::scopes(option, reader.errors),
            PromptKey::Tags => model.tags = options::tags(option, reader.errors),
        }
    }
    sig::check_signature(sig, "prompt", errors);
    model.params = sig::params(sig, "prompt", errors);
    model.output = sig::output(sig, errors);
    if model.description.is_none() {
        model.description = docs::text(&func.attrs);
    }
    Some(model)
}
