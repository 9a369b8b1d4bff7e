//! Declarative MCP servers.
//!
//! Write plain functions, mark them `#[tool]`, and serve them over stdio or Streamable
//! HTTP to any client of the MCP 2026-07-28 revision:
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Adds two integers.
//! #[tool(read_only, idempotent)]
//! async fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     Server::new("calculator", env!("CARGO_PKG_VERSION")).serve_from_args().await
//! }
//! ```
//!
//! The macro derives the input schema from the parameters (doc comments become argument
//! descriptions), the output schema from the return type, and registers the tool; the
//! runtime handles discovery, validation, authorization hooks, cache hints, pagination and
//! both transports.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod core;
pub mod era;
mod observe;
pub mod policy;
pub mod protocol;
pub mod registry;
mod server;
#[cfg(feature = "testing")]
pub mod testing;
pub mod transport;
pub mod validate;

pub use crate::core::output::{IntoToolResult, Json};
pub use crate::core::{
    Args, ClientCapabilities, RequestContext, State, ToolError, ToolParam, Transport,
};
pub use crate::policy::auth::{Action, AllowAll, Authorize, Denied};
pub use crate::policy::cache::{CacheHints, CacheScope};
pub use crate::policy::seal::SealKey;
pub use crate::protocol::{CallToolResult, Content, RpcError};
pub use crate::registry::{BuildError, ToolRef};
pub use crate::server::{App, Server};

/// Turns an async (or sync) function into an MCP tool. See the crate docs and the book.
pub use mcp_macros::tool;

/// What most servers need in one import.
pub mod prelude {
    pub use crate::{
        tool, tools, Action, Args, Authorize, CacheHints, CacheScope, CallToolResult, Content,
        Denied, Json, RequestContext, RpcError, Server, State, ToolError,
    };
}

/// Names tools by path for [`Server::only`]: `tools![add, billing::refund]`.
#[macro_export]
macro_rules! tools {
    ($($path:path),* $(,)?) => {
        [$($crate::ToolRef::of::<$path>()),*]
    };
}

/// Why a server could not start or stopped with an error.
pub enum Error {
    /// The tools or configuration are inconsistent (found at start).
    Build(Vec<BuildError>),
    /// Reading or writing the transport failed.
    Io(std::io::Error),
    /// The command line was not understood.
    Args(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Build(errors) => {
                f.write_str("the server cannot start:")?;
                for e in errors {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
            Error::Io(e) => write!(f, "transport error: {e}"),
            Error::Args(text) => f.write_str(text),
        }
    }
}

// `main() -> Result<(), Error>` prints Debug; make that the readable message.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

/// Used by generated code only; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::core::output::{
        tag_of, FailureDisplay, FailureExplicit, OutputExplicit, OutputStructured, OutputText,
        SplitPlain, SplitResult, Tag,
    };
    pub use crate::core::{CallParts, RequestContext, ToolParam};
    pub use crate::protocol::{CallToolResult, RpcError};
    pub use crate::registry::{ParamSpec, ToolDef, ToolItem, ToolRegistration};
    pub use futures_util::future::BoxFuture;
    pub use inventory;
    pub use schemars::{self, Schema, SchemaGenerator};
    pub use serde;
    pub use serde_json::{self, Map, Value};

    /// Box a tool's future.
    pub fn boxed<F>(future: F) -> BoxFuture<'static, Result<CallToolResult, RpcError>>
    where
        F: std::future::Future<Output = Result<CallToolResult, RpcError>> + Send + 'static,
    {
        Box::pin(future)
    }
}
