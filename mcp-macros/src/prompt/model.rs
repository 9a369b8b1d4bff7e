//! What `#[prompt]` declares: options, parameters, completers.

use proc_macro2::TokenStream;
use syn::{ItemFn, Type};

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
    }
}

pub struct Model {
    pub name: String,
    pub name_span: proc_macro2::Span,
    pub title: Option<String>,
    pub description: Option<String>,
    /// `complete(argument = function)`, keyed by the argument as written.
    pub completers: Vec<(syn::Ident, syn::Path)>,
    pub scopes: Vec<String>,
    pub params: Vec<Param>,
    pub is_async: bool,
    pub output: Type,
}

pub fn build(attr: TokenStream, func: &ItemFn, errors: &mut Errors) -> Option<Model> {
    let list = match syn::parse::Parser::parse2(options::parse_list, attr) {
        Ok(list) => list,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                "expected options such as `name = \"..\"`, `title = \"..\"`, `complete(argument = completer_fn)`",
            ));
            Vec::new()
        }
    };
    let sig = &func.sig;
    let mut model = Model {
        name: sig.ident.to_string().trim_start_matches("r#").to_owned(),
        name_span: sig.ident.span(),
        title: None,
        description: None,
        completers: Vec::new(),
        scopes: Vec::new(),
        params: Vec::new(),
        is_async: sig.asyncness.is_some(),
        output: syn::parse_quote!(()),
    };
    let mut completers = Vec::new();
    let mut reader = Reader::<PromptKey>::new(errors);
    for option in &list {
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
            PromptKey::Complete => completers = options::completers(option, reader.errors),
            PromptKey::Scopes => model.scopes = options::scopes(option, reader.errors),
        }
    }
    let name = &model.name;
    if name.is_empty()
        || name.len() > 128
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        errors.span(
            model.name_span,
            format!("prompt name `{name}` must be 1 to 128 characters of A-Z a-z 0-9 _ - ."),
        );
    }
    sig::check_signature(sig, "prompt", errors);
    model.params = sig::params(sig, "prompt", errors);
    model.output = sig::output(sig, errors);
    if model.description.is_none() {
        model.description = docs::text(&func.attrs);
    }
    for (key, _) in &completers {
        if !model.params.iter().any(|p| *key == p.name) {
            let names: Vec<String> = model
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            errors.at(
                key,
                format!(
                    "`{key}` is not a parameter of this prompt{}",
                    if names.is_empty() {
                        String::new()
                    } else {
                        format!(" (parameters: {})", names.join(", "))
                    }
                ),
            );
        }
    }
    model.completers = completers;
    Some(model)
}
