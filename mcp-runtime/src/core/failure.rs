//! Errors a tool returns, and the shape business errors take on the wire.
//!
//! A business error is a result with `isError: true`: a text block the model reads, and,
//! when it has structure, `structuredContent` of one shape,
//! `{"error": {"code"?, "message", "detail"?}}`. A tool's published `outputSchema`
//! admits that shape beside its success shape, so clients that validate
//! `structuredContent` against it accept both (S-184).

use serde::Serialize;
use serde_json::{Map, Value};

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

    /// Add structured detail, sent in the error result's `structuredContent` as
    /// `{"error": {"message": .., "detail": <detail>}}` (the shape the tool's output schema
    /// admits for errors). For detail of a declared type, return [`Rejected`] instead.
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
                structured_content: detail
                    .map(|detail| envelope(None, &message, Some(detail)).into()),
                content: vec![Content::text(message)],
                is_error: true,
                meta: None,
            }),
            Kind::Protocol(error) => Err(error),
        }
    }
}

/// The `structuredContent` of a business error.
fn envelope(code: Option<&str>, message: &str, detail: Option<Value>) -> Value {
    let mut error = Map::new();
    if let Some(code) = code {
        error.insert("code".into(), Value::String(code.to_owned()));
    }
    error.insert("message".into(), Value::String(message.to_owned()));
    if let Some(detail) = detail {
        error.insert("detail".into(), detail);
    }
    let mut content = Map::new();
    content.insert("error".into(), Value::Object(error));
    Value::Object(content)
}

/// A business error of the framework's own (`idempotency_conflict`, `outcome_unknown`..):
/// its message as text, and its code and message as structure.
pub(crate) fn business_error(code: &str, message: String) -> CallToolResult {
    CallToolResult {
        structured_content: Some(envelope(Some(code), &message, None).into()),
        content: vec![Content::text(message)],
        is_error: true,
        meta: None,
    }
}

/// A tool's business refusal with a code and detail of a declared type: return
/// `Result<T, Rejected<E>>` and the tool's `outputSchema` describes `E` as the detail of
/// its errors, beside `T` for success.
///
/// The client gets an `isError: true` result: the message as text (what the model reads),
/// and `{"error": {"code", "message", "detail"}}` as `structuredContent`.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Shortfall {
///     balance_cents: i64,
///     requested_cents: i64,
/// }
///
/// /// Withdraws money.
/// #[tool(destructive)]
/// async fn withdraw(amount_cents: i64) -> Result<String, Rejected<Shortfall>> {
///     let balance_cents = 1_000;
///     if amount_cents > balance_cents {
///         return Err(Rejected::new("insufficient_funds", "The balance is too low.")
///             .with_detail(Shortfall { balance_cents, requested_cents: amount_cents }));
///     }
///     Ok(format!("Withdrew {amount_cents} cents."))
/// }
/// ```
///
/// `?` works on [`RpcError`] (the request fails with it) and on
/// [`InputRequired`](crate::InputRequired) (the call asks the client first).
#[derive(Debug, Clone)]
pub struct Rejected<E = ()> {
    kind: Refusal<E>,
}

#[derive(Debug, Clone)]
enum Refusal<E> {
    Business {
        code: String,
        message: String,
        detail: Option<E>,
    },
    Protocol(RpcError),
}

impl<E> Rejected<E> {
    /// A refusal: `code` names it for programs (`insufficient_funds`), `message` says it
    /// for the model and the user, in words they can act on.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Rejected {
            kind: Refusal::Business {
                code: code.into(),
                message: message.into(),
                detail: None,
            },
        }
    }

    /// Add the detail (sent as `error.detail`).
    pub fn with_detail(mut self, detail: E) -> Self {
        if let Refusal::Business { detail: d, .. } = &mut self.kind {
            *d = Some(detail);
        }
        self
    }

    /// The code (`None` for a protocol error).
    pub fn code(&self) -> Option<&str> {
        match &self.kind {
            Refusal::Business { code, .. } => Some(code),
            Refusal::Protocol(_) => None,
        }
    }

    /// The detail, when there is one.
    pub fn detail(&self) -> Option<&E> {
        match &self.kind {
            Refusal::Business { detail, .. } => detail.as_ref(),
            Refusal::Protocol(_) => None,
        }
    }
}

impl<E: Serialize> Rejected<E> {
    pub(crate) fn into_outcome(self) -> Result<CallToolResult, RpcError> {
        match self.kind {
            Refusal::Business {
                code,
                message,
                detail,
            } => {
                let detail = match detail.map(|d| serde_json::to_value(&d)).transpose() {
                    Ok(detail) => detail,
                    Err(e) => {
                        return Err(RpcError::internal(format!(
                            "Internal error: the detail of a `{code}` refusal could not be serialized: {e}"
                        )))
                    }
                };
                Ok(CallToolResult {
                    structured_content: Some(envelope(Some(&code), &message, detail).into()),
                    content: vec![Content::text(message)],
                    is_error: true,
                    meta: None,
                })
            }
            Refusal::Protocol(error) => Err(error),
        }
    }
}

impl<E> std::fmt::Display for Rejected<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Refusal::Business { code, message, .. } => write!(f, "{message} ({code})"),
            Refusal::Protocol(e) => write!(f, "{e}"),
        }
    }
}

impl<E: std::fmt::Debug> std::error::Error for Rejected<E> {}

impl<E> From<RpcError> for Rejected<E> {
    fn from(error: RpcError) -> Self {
        Rejected {
            kind: Refusal::Protocol(error),
        }
    }
}

impl<E> From<super::input::InputRequired> for Rejected<E> {
    fn from(input: super::input::InputRequired) -> Self {
        Rejected::from(input.to_rpc_error())
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
