//! The era-neutral server: a [`Call`] goes in, a [`Reply`] comes out.
//!
//! The core looks a request's target up in the catalog (once), builds the [`RequestContext`], runs the
//! `Authorize` hook, validates arguments, runs the generated glue (catching panics) and
//! maps the outcome. It never sees a session, a header or an era-specific field.
//!
//! A request flows one way through it:
//!
//! - `resolved`: the request's method and target, looked up in the catalog once as it
//!   arrives ([`Core::resolve`]), carried in the [`Call`];
//! - `inbound`: what a transport knows of a request besides the message, made into its
//!   [`RequestContext`];
//! - `dispatch`: the [`Core`] and its entry, [`Core::handle`], which routes each method to
//!   its family;
//! - `methods/`: one file per family (tools, resources, prompts, completion, lists, tasks,
//!   subscriptions), with `params` for reading params the same way everywhere;
//! - `pipeline`: the steps every handler call shares (scopes and `Authorize`, limits,
//!   panic isolation, shutdown, the end of an input round);
//! - below them, what a handler sees and returns: `context` (the [`RequestContext`]),
//!   `extract` (parameters and extractors), `returns` (what handlers may return),
//!   `failure` (a tool's failures as the wire shows them), `notify` (progress, logs,
//!   cancellation), `input` (asking the client mid-call), `pages`, `artifacts`,
//!   `idempotency`, `downstream` (tokens for other APIs in the caller's name: token
//!   exchange, and connected accounts in `downstream/accounts`);
//! - and what the core keeps: `live` (the catalog in use, swapped whole when tools
//!   change), `served` (methods served and list pages), `tasks` (the task runtime),
//!   `lifecycle` (draining and shutdown), `canonical` (the canonical JSON bindings are
//!   hashed in), `layers` (the server's layers around calls) and `response_cache` (the
//!   results it serves again, the innermost of them);
//! - beside the flow, `error`: the server's own [`Error`] (why it could not start or
//!   stopped).

pub(crate) mod artifacts;
pub(crate) mod audit;
pub(crate) mod canonical;
mod context;
mod dispatch;
#[cfg(feature = "oauth")]
pub(crate) mod downstream;
mod error;
mod extract;
mod failure;
pub(crate) mod idempotency;
mod inbound;
pub(crate) mod input;
pub(crate) mod layers;
pub(crate) mod lifecycle;
pub(crate) mod live;
pub(crate) mod methods;
mod notify;
pub(crate) mod pages;
mod pipeline;
mod resolved;
pub(crate) mod response_cache;
pub mod returns;
pub(crate) mod search;
mod served;
pub(crate) mod tasks;

pub use artifacts::{Artifact, ArtifactError, ArtifactLink};
pub use context::{ClientCapabilities, RequestContext, Transport};
pub(crate) use context::{ContextParts, StateMap};
pub use dispatch::{Call, Core, Reply};
pub use error::Error;
pub use extract::{
    Args, CallParts, CompletionRequest, ConstraintsDerived, ConstraintsUnread, FromContext,
    FromUriParam, HeaderArg, PromptParam, PromptParts, State, ToolParam,
};
pub use failure::{Rejected, ToolError};
pub use inbound::Inbound;
pub use input::{Elicitation, InputRequired};
pub use live::ServerHandle;
pub use methods::subscriptions::Subscription;
#[cfg(feature = "legacy")]
pub(crate) use notify::FrameSink;
pub use notify::{Cancellation, Log, Notifier, Progress};
pub use pages::{Cursor, Page};
pub(crate) use resolved::Resolved;
pub use returns::{IntoCompletion, IntoContents, IntoPromptResult};
