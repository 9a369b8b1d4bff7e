//! JSON-RPC error objects and the codes this crate emits.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Error codes, grouped by the layer that owns them.
pub mod codes {
    /// The message is not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message is JSON but not a valid JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown or removed method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Malformed params, missing `_meta`, unknown tool, bad cursor.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A server fault (including a panicking handler).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// HTTP headers missing, malformed or disagreeing with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability it did not declare.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// The requested protocol revision is not served here.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// The `Authorize` hook refused the call. Application code, outside the reserved
    /// JSON-RPC range (-32768..-32000) as the specification asks.
    pub const ACCESS_DENIED: i64 = -31403;
    /// The request carries no access token, or one that does not verify (with HTTP 401
    /// and a `WWW-Authenticate` challenge on Streamable HTTP).
    pub const UNAUTHORIZED: i64 = -31401;
    /// The caller made too many calls, or has too many running: `data.retryAfterMs` says
    /// when to try again (HTTP 429 with `Retry-After` on Streamable HTTP).
    pub const RATE_LIMITED: i64 = -31429;
    /// The handler did not finish within the server's call timeout and was cancelled.
    pub const REQUEST_TIMEOUT: i64 = -31408;
    /// The server shut down before the call finished; it was stopped and may be sent
    /// again, to this server once it is back or to another instance (HTTP 503).
    pub const SHUTTING_DOWN: i64 = -31503;
}

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// Integer error code (see [`codes`]).
    pub code: i64,
    /// One short sentence.
    pub message: String,
    /// Structured detail for programs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with a code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attach structured detail.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// -32600.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, message)
    }

    /// -32601 naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
        .with_data(serde_json::json!({ "method": method }))
    }

    /// -32602.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    /// -32602 "Resource not found" with the URI in `data` (2026-07-28; earlier revisions
    /// used -32002).
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(codes::INVALID_PARAMS, "Resource not found")
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// -32603.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }

    /// -32020.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(codes::HEADER_MISMATCH, message)
    }

    /// -32021 with `data.requiredCapabilities` (a `ClientCapabilities` object).
    pub fn missing_capability(required: Value) -> Self {
        // An extension is named by its id: "extensions" alone would not say which one.
        let names: Vec<String> = match &required {
            Value::Object(map) => map
                .iter()
                .flat_map(|(name, value)| match (name.as_str(), value) {
                    ("extensions", Value::Object(ids)) if !ids.is_empty() => {
                        ids.keys().map(|id| format!("extension {id}")).collect()
                    }
                    _ => vec![name.clone()],
                })
                .collect(),
            _ => Vec::new(),
        };
        Self::new(
            codes::MISSING_CLIENT_CAPABILITY,
            format!("Missing required client capability: {}", names.join(", ")),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// -32022 with `data.supported` and `data.requested`.
    pub fn unsupported_version(supported: &[&str], requested: &str) -> Self {
        Self::new(
            codes::UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "Unsupported protocol version {requested:?}; this server supports {}",
                supported.join(", ")
            ),
        )
        .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}
