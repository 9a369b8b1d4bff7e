//! What a handler gets from [`RequestContext::downstream`](crate::RequestContext::downstream):
//! a token for the API, or why there is none, as the call answers it.

use std::sync::Arc;

use serde_json::json;

use crate::core::{Rejected, ToolError};
use crate::protocol::{codes, RpcError};

/// A token for a downstream API, issued in the caller's name. Send it as
/// `Authorization: Bearer` to that API alone; it is never printed (`Debug` hides it).
#[derive(Clone)]
pub struct DownstreamToken {
    secret: Arc<str>,
    expires_at_ms: Option<u64>,
}

impl DownstreamToken {
    pub(crate) fn new(secret: Arc<str>, expires_at_ms: Option<u64>) -> Self {
        DownstreamToken {
            secret,
            expires_at_ms,
        }
    }

    /// The token, to send to the API it was issued for.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// When it expires (milliseconds since the Unix epoch), when the issuer said.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.expires_at_ms
    }
}

impl std::fmt::Debug for DownstreamToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DownstreamToken")
            .field("expires_at_ms", &self.expires_at_ms)
            .finish_non_exhaustive()
    }
}

/// Why no token for a downstream API could be had. `?` turns it into the call's answer
/// ([`ToolError`], [`Rejected`] or [`RpcError`]); the business refusals carry the code
/// `downstream_refused`.
#[derive(Debug, Clone)]
pub struct DownstreamError {
    kind: ErrorKind,
}

#[derive(Debug, Clone)]
enum ErrorKind {
    /// A refusal the model can explain to the user (no consent, a scope not granted).
    Refused {
        message: String,
        detail: serde_json::Value,
    },
    /// The call fails with this protocol error (unreachable authorization server, no
    /// caller's token, a misconfigured server, or a question for the client).
    Protocol(RpcError),
}

impl DownstreamError {
    pub(crate) fn refused(message: String, detail: serde_json::Value) -> Self {
        DownstreamError {
            kind: ErrorKind::Refused { message, detail },
        }
    }

    pub(crate) fn protocol(error: RpcError) -> Self {
        DownstreamError {
            kind: ErrorKind::Protocol(error),
        }
    }

    /// Whether the authorization server (or the user) refused, as opposed to the call
    /// failing for want of a reachable server or a token to exchange.
    pub fn is_refusal(&self) -> bool {
        matches!(self.kind, ErrorKind::Refused { .. })
    }

    /// The JSON-RPC error the call fails with, for an error that is not a refusal.
    pub fn protocol_error(&self) -> Option<&RpcError> {
        match &self.kind {
            ErrorKind::Protocol(error) => Some(error),
            ErrorKind::Refused { .. } => None,
        }
    }
}

impl std::fmt::Display for DownstreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ErrorKind::Refused { message, .. } => f.write_str(message),
            ErrorKind::Protocol(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for DownstreamError {}

/// The code of a business refusal.
const REFUSED: &str = "downstream_refused";

impl From<DownstreamError> for ToolError {
    fn from(error: DownstreamError) -> Self {
        match error.kind {
            ErrorKind::Refused { message, detail } => {
                ToolError::new(message).with_detail(json!({"code": REFUSED, "refusal": detail}))
            }
            ErrorKind::Protocol(error) => ToolError::protocol(error),
        }
    }
}

impl<E> From<DownstreamError> for Rejected<E> {
    fn from(error: DownstreamError) -> Self {
        match error.kind {
            ErrorKind::Refused { message, .. } => Rejected::new(REFUSED, message),
            ErrorKind::Protocol(error) => Rejected::from(error),
        }
    }
}

impl From<DownstreamError> for RpcError {
    fn from(error: DownstreamError) -> Self {
        match error.kind {
            ErrorKind::Refused { message, detail } => RpcError::new(codes::ACCESS_DENIED, message)
                .with_data(json!({"reason": REFUSED, "refusal": detail})),
            ErrorKind::Protocol(error) => error,
        }
    }
}
