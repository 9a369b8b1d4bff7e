//! The wire model: serde types for JSON-RPC framing and the MCP messages this crate serves.
//!
//! Types here carry data, with the few rules of the wire every party reads alike: what
//! values must look like (`checks`), which arguments a call mirrors into HTTP headers
//! (`mirror`), which member of a request's params names its target (`method`), the names
//! of the extensions served (`extensions`). Behaviour (admission,
//! dispatch, rendering per era) lives in `core` and `era`, the way the `http` crate holds
//! types and hyper holds behaviour.

// The model every client of this crate shares (features `client` and `testing`): how a
// client answers a server's questions (`answers`) and reads a tool's result as a type
// (`typed`). It lives here because the client and the test kit may not depend on each
// other; it does no I/O (answers.rs says more).
#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod answers;
pub mod cache;
#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod catalog;
pub(crate) mod checks;
pub mod completion;
pub mod content;
pub mod error;
#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod exchange;
pub(crate) mod extensions;
pub mod jsonrpc;
pub(crate) mod member;
pub mod meta;
pub(crate) mod method;
pub(crate) mod mirror;
pub mod mrtr;
pub mod params;
pub mod prompts;
pub mod resources;
#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod sse;
pub mod tools;
#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod typed;
pub mod version;

pub use completion::Completion;
pub use content::{Annotations, Content, EmbeddedResource, ResourceContents, ResourceLink, Role};
pub use error::{codes, RpcError};
pub use jsonrpc::{Message, RequestId};
pub use mrtr::{
    ElicitAction, ElicitResult, ListRootsResult, LogLevel, Root, SamplingMessage, SamplingRequest,
    SamplingResult,
};
pub use params::Params;
pub use prompts::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
pub use resources::{ReadResourceResult, Resource, ResourceTemplate};
pub use tools::{CallToolResult, Implementation, StructuredContent, Tool, ToolAnnotations};
