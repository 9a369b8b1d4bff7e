//! Trace events: one `tracing` span per request.
//!
//! Fields: `protocol_version`, `transport`, `method`, `name`, `request_id`, `phase`
//! (input_required, completed, failed) and `error_layer` (jsonrpc, mcp, business), so a protocol error and a
//! tool's business failure are told apart in logs.

use tracing::field::Empty;

use crate::core::Transport;
use crate::protocol::{RequestId, RpcError};

pub(crate) fn request_span(
    transport: Transport,
    method: &str,
    name: Option<&str>,
    id: &RequestId,
) -> tracing::Span {
    tracing::info_span!(
        "mcp.request",
        protocol_version = Empty,
        transport = transport.as_str(),
        method = method,
        name = name.unwrap_or(""),
        request_id = %id,
        phase = Empty,
        error_layer = Empty,
    )
}

/// Record how the current request ended.
fn finish(error_layer: &str, error: Option<&RpcError>) {
    let span = tracing::Span::current();
    if error_layer.is_empty() {
        span.record("phase", "completed");
    } else {
        span.record("phase", "failed");
        span.record("error_layer", error_layer);
    }
    match error {
        Some(e) => tracing::debug!(code = e.code, message = %e.message, "request failed"),
        None => tracing::debug!("request completed"),
    }
}

/// Record a complete result; a tool result with `isError: true` is a business failure.
pub(crate) fn completed(body: &serde_json::Map<String, serde_json::Value>) {
    let is_error = body.get("isError") == Some(&serde_json::Value::Bool(true));
    finish(if is_error { "business" } else { "" }, None);
}

/// Record a JSON-RPC error, in the layer its code belongs to.
pub(crate) fn failed(error: &RpcError) {
    let layer = match error.code {
        -32700..=-32600 => "jsonrpc",
        _ => "mcp",
    };
    finish(layer, Some(error));
}

/// Record that the current request ended waiting for client input.
pub(crate) fn input_required(keys: usize) {
    tracing::Span::current().record("phase", "input_required");
    tracing::debug!(requests = keys, "request needs client input");
}
