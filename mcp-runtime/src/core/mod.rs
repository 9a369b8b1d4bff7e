//! The era-neutral server: a [`Call`] goes in, a [`Reply`] comes out.
//!
//! The core looks names up in the catalog, builds the [`RequestContext`], runs the
//! `Authorize` hook, validates arguments, runs the generated glue (catching panics) and
//! maps the outcome. It never sees a session, a header or an era-specific field.

mod context;
mod dispatch;
mod error;
mod extract;
pub mod output;

pub use context::{ClientCapabilities, RequestContext, Transport};
pub(crate) use context::{ContextParts, StateMap};
pub use dispatch::{CacheHints, Call, Core, Reply};
pub use error::ToolError;
pub use extract::{Args, CallParts, Rejection, State, ToolParam};
