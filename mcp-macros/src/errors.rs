//! An error collector: every problem is recorded with its span and reported together, so
//! one build shows every mistake in a declaration rather than the first.

use proc_macro2::TokenStream;

/// Collects `syn::Error`s while a declaration is read; `finish` hands them over as
/// `compile_error!` tokens.
///
/// Dropping a collector that was never finished panics (as serde_derive's `Ctxt` does): a
/// path that forgot `finish` would otherwise lose its diagnostics and let a broken
/// declaration compile.
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
    finished: bool,
}

impl Errors {
    /// Record an error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Record `message` at `tokens`.
    pub fn at<T: quote::ToTokens>(&mut self, tokens: T, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Record `message` at `span`.
    pub fn span(&mut self, span: proc_macro2::Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Take the errors: `Ok` when there are none, otherwise their `compile_error!`
    /// invocations in the order they were recorded.
    pub fn finish(mut self) -> Result<(), TokenStream> {
        self.finished = true;
        let errors = std::mem::take(&mut self.errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.into_iter().map(|e| e.to_compile_error()).collect())
        }
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        // While unwinding from another panic, a second one would abort and hide the first.
        if !self.finished && !std::thread::panicking() {
            panic!(
                "mcp-runtime-macros: an error collector was dropped without `finish` ({} error(s) would be lost)",
                self.errors.len()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_hands_over_errors_in_order() {
        let mut errors = Errors::default();
        errors.span(proc_macro2::Span::call_site(), "first");
        errors.span(proc_macro2::Span::call_site(), "second");
        let tokens = errors.finish().err().unwrap_or_default().to_string();
        let first = tokens.find("first");
        let second = tokens.find("second");
        assert!(first.is_some() && first < second, "{tokens}");
        assert!(Errors::default().finish().is_ok());
    }

    #[test]
    #[should_panic(expected = "dropped without `finish`")]
    fn an_unfinished_collector_panics() {
        let mut errors = Errors::default();
        errors.span(proc_macro2::Span::call_site(), "lost");
        drop(errors);
    }

    #[test]
    #[should_panic(expected = "dropped without `finish`")]
    fn an_unfinished_empty_collector_panics() {
        drop(Errors::default());
    }
}
