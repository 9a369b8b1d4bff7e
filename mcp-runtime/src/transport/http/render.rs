//! JSON responses: an era answer with its status (and `Retry-After` for 429), a JSON-RPC
//! error, and the failures the endpoint answers itself.

use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;

use crate::era::modern::Answer;
use crate::protocol::jsonrpc::error_response;
use crate::protocol::RpcError;

/// A modern-era answer as a response, with the status it carries.
pub(crate) fn answer(answer: Answer) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = json_bytes(status, answer.to_bytes());
    if status == StatusCode::TOO_MANY_REQUESTS {
        // Whole seconds, rounded up, from the error's retryAfterMs.
        let ms = answer
            .error_member()
            .and_then(|error| error.pointer("/data/retryAfterMs"))
            .and_then(Value::as_u64)
            .unwrap_or(1000);
        if let Ok(value) = header::HeaderValue::from_str(&ms.div_ceil(1000).max(1).to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
    }
    response
}

/// `body` as an `application/json` response.
pub(crate) fn json(status: StatusCode, body: &Value) -> Response {
    json_bytes(status, serde_json::to_vec(body).unwrap_or_default())
}

/// Bytes already holding JSON as an `application/json` response.
pub(crate) fn json_bytes(status: StatusCode, bytes: impl Into<Bytes>) -> Response {
    // Built by hand: as a tuple, the bytes' own `Content-Type` (octet-stream) was inserted
    // and then replaced, two header-map inserts on every answer.
    let mut response = Response::new(Body::from(bytes.into()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

/// A request task that panicked or was aborted: 500.
pub(crate) fn internal_failure(error: tokio::task::JoinError) -> Response {
    tracing::error!("a request task failed: {error}");
    json(
        StatusCode::INTERNAL_SERVER_ERROR,
        &error_response(
            None,
            &RpcError::internal("Internal error: the request failed unexpectedly"),
        ),
    )
}

/// 413 for a body beyond `limit`.
pub(crate) fn too_large(limit: usize) -> Response {
    let error = RpcError::invalid_request(format!(
        "Request body exceeds the {limit} byte limit of this server"
    ));
    json(StatusCode::PAYLOAD_TOO_LARGE, &error_response(None, &error))
}
