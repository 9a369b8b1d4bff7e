//! The era-neutral server: a [`Call`] goes in, a [`Reply`] comes out.
//!
//! The core looks names up in the catalog, builds the [`RequestContext`], runs the
//! `Authorize` hook, validates arguments, runs the generated glue (catching panics) and
//! maps the outcome. It never sees a session, a header or an era-specific field.

pub(crate) mod artifacts;
mod context;
mod dispatch;
mod error;
mod extract;
pub(crate) mod idempotency;
mod inbound;
pub(crate) mod input;
pub(crate) mod lifecycle;
pub(crate) mod live;
pub(crate) mod methods;
mod notify;
pub mod output;
pub(crate) mod pages;
pub mod returns;

pub use artifacts::{Artifact, ArtifactError, ArtifactLink};
pub use context::{ClientCapabilities, RequestContext, Transport};
pub(crate) use context::{ContextParts, StateMap};
pub use dispatch::{CacheHints, Call, Core, Reply};
pub use error::{Rejected, ToolError};
pub use extract::{
    Args, CallParts, Complete, FromContext, FromUriParam, HeaderArg, PromptParam, PromptParts,
    Rejection, State, ToolParam,
};
pub use inbound::Inbound;
pub use input::{Elicitation, InputRequired};
pub use live::ServerHandle;
pub use methods::subscriptions::Subscription;
pub use notify::{Cancellation, FrameSink, Log, Notifier, Progress};
pub use pages::{Cursor, Page};
pub use returns::{IntoCompletion, IntoContents, IntoPromptResult};
