//! Errors a tool returns.

use serde_json::Value;

use crate::protocol::{CallToolResult, Content, RpcError};

/// A tool's failure, with control over how it is reported.
///
/// Most tools return `Result<T, E>` with any `E: Display`; the message becomes an
/// `isError: true` result the model can read. `ToolError` adds structured detail, or turns
/// the failure into a protocol error when the request itself was wrong.
#[derive(Debug, Clone)]
pub struct ToolError {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Business {
        message: String,
        detail: Option<Value>,
    },
    Protocol(RpcError),
}

impl ToolError {
    /// A business failure: an `isError: true` result with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            kind: Kind::Business {
                message: message.into(),
                detail: None,
            },
        }
    }

    /// Add structured detail, sent as `structuredContent` of the error result.
    pub fn with_detail(mut self, detail: Value) -> Self {
        if let Kind::Business { detail: d, .. } = &mut self.kind {
            *d = Some(detail);
        }
        self
    }

    /// Fail the request with a JSON-RPC error instead of a tool result.
    pub fn protocol(error: RpcError) -> Self {
        ToolError {
            kind: Kind::Protocol(error),
        }
    }

    /// As the error of a request that has no tool result to carry it (a resource read, a
    /// prompt get): a protocol error as is, a business failure as -32603 with its message.
    pub(crate) fn into_rpc_error(self) -> RpcError {
        match self.kind {
            Kind::Business { message, .. } => RpcError::internal(message),
            Kind::Protocol(error) => error,
        }
    }

    pub(crate) fn into_outcome(self) -> Result<CallToolResult, RpcError> {
        match self.kind {
            Kind::Business { message, detail } => Ok(CallToolResult {
                content: vec![Content::text(message)],
                structured_content: detail,
                is_error: true,
                meta: None,
            }),
            Kind::Protocol(error) => Err(error),
        }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Business { message, .. } => f.write_str(message),
            Kind::Protocol(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<RpcError> for ToolError {
    fn from(error: RpcError) -> Self {
        ToolError::protocol(error)
    }
}

impl From<super::input::InputRequired> for ToolError {
    fn from(input: super::input::InputRequired) -> Self {
        ToolError::protocol(input.to_rpc_error())
    }
}
