//! The pipeline every macro runs: parse -> model -> validate -> expand. Each macro's folder
//! supplies its four stages (and the stub emitted beside errors); [`run`] drives them in
//! the same order for every macro, so they cannot drift in how they collect and
//! report errors.

use proc_macro2::TokenStream;

use crate::errors::Errors;

/// One macro's stages, each a function of its folder.
pub(crate) struct Stages<P, M> {
    /// Tokens to syntax; `None` when the item is not even a function.
    pub(crate) parse: fn(TokenStream, TokenStream, &mut Errors) -> Option<P>,
    /// Syntax to model; `None` when the declaration cannot be understood.
    pub(crate) model: fn(&P, &mut Errors) -> Option<M>,
    /// The rules between fields and the wire rules.
    pub(crate) validate: fn(&M, &mut Errors),
    /// The generated code.
    pub(crate) expand: fn(&P, &M) -> TokenStream,
    /// The function alone, emitted beside errors so one mistake gives one message.
    pub(crate) stub: fn(&P) -> TokenStream,
}

/// `#[macro(attr)] item`: the expansion, or the function and its errors.
pub(crate) fn run<P, M>(stages: Stages<P, M>, attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(parsed) = (stages.parse)(attr, item, &mut errors) else {
        // Not even a function: nothing to keep.
        return errors.finish().err().unwrap_or_default();
    };
    let model = (stages.model)(&parsed, &mut errors);
    if let Some(model) = &model {
        (stages.validate)(model, &mut errors);
    }
    match (model, errors.finish()) {
        (Some(model), Ok(())) => (stages.expand)(&parsed, &model),
        (_, result) => {
            let mut out = (stages.stub)(&parsed);
            out.extend(result.err());
            out
        }
    }
}
