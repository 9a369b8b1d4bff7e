//! An error collector: every problem is recorded with its span and reported together.

use proc_macro2::TokenStream;

/// Collects `syn::Error`s; `finish` combines them.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub fn at<T: quote::ToTokens>(&mut self, tokens: T, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn span(&mut self, span: proc_macro2::Span, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, message));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_tokens(self) -> TokenStream {
        self.0.into_iter().map(|e| e.to_compile_error()).collect()
    }
}
