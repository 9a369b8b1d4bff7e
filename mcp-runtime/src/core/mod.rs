//! The era-neutral server: a [`Call`] goes in, a [`Reply`] comes out.
//!
//! The core looks names up in the catalog, builds the [`RequestContext`], runs the
//! `Authorize` hook, validates arguments, runs the generated glue (catching panics) and
//! maps the outcome. It never sees a session, a header or an era-specific field.

mod context;
mod dispatch;
mod error;
mod extract;
mod methods;
pub mod output;
pub mod returns;

pub use context::{ClientCapabilities, RequestContext, Transport};
pub(crate) use context::{ContextParts, StateMap};
pub use dispatch::{CacheHints, Call, Core, Reply};
pub(crate) use dispatch::{Lists, PagedList, Served};
pub use error::ToolError;
pub use extract::{
    Args, CallParts, Complete, FromContext, FromUriParam, PromptParam, PromptParts, Rejection,
    State, ToolParam,
};
pub use returns::{IntoCompletion, IntoContents, IntoPromptResult};
