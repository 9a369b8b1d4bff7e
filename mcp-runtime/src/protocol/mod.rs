//! The wire model: serde types for JSON-RPC framing and the MCP messages this crate serves.
//!
//! Types here carry data only. Behaviour (admission, dispatch, rendering per era) lives in
//! `core` and `era`, the way the `http` crate holds types and hyper holds behaviour.

#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod answers;
pub mod cache;
pub(crate) mod checks;
pub mod completion;
pub mod content;
pub mod error;
#[cfg(any(feature = "testing", feature = "client"))]
pub(crate) mod exchange;
pub mod jsonrpc;
pub mod meta;
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
