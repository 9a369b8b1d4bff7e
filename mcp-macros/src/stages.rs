//! The pipeline every macro runs: parse -> model -> validate -> expand. Each macro's folder
//! supplies its four stages (and the stub emitted beside errors) as a [`Stages`]; [`run`]
//! drives them in the same order for all three, so the macros cannot drift in how they
//! collect and report errors.

use proc_macro2::TokenStream;

use crate::errors::Errors;

/// One macro's stages.
pub(crate) trait Stages {
    /// The attribute and the function, as syntax.
    type Parsed;
    /// What the user declared, each option read into a typed field.
    type Model;
    /// Tokens to syntax; `None` when the item is not even a function.
    fn parse(attr: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<Self::Parsed>;
    /// Syntax to model; `None` when the declaration cannot be understood.
    fn model(parsed: &Self::Parsed, errors: &mut Errors) -> Option<Self::Model>;
    /// The rules between fields and the wire rules.
    fn validate(model: &Self::Model, errors: &mut Errors);
    /// The generated code.
    fn expand(parsed: &Self::Parsed, model: &Self::Model) -> TokenStream;
    /// The function alone, emitted beside errors so one mistake gives one message.
    fn stub(parsed: &Self::Parsed) -> TokenStream;
}

/// `#[macro(attr)] item`: the expansion, or the function and its errors.
pub(crate) fn run<S: Stages>(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(parsed) = S::parse(attr, item, &mut errors) else {
        // Not even a function: nothing to keep.
        return errors.finish().err().unwrap_or_default();
    };
    let model = S::model(&parsed, &mut errors);
    if let Some(model) = &model {
        S::validate(model, &mut errors);
    }
    match (model, errors.finish()) {
        (Some(model), Ok(())) => S::expand(&parsed, &model),
        (_, result) => {
            let mut out = S::stub(&parsed);
            out.extend(result.err());
            out
        }
    }
}
