//! The bearer-token check on HTTP: the policy ([`HttpAuth`]) decides, this module reads
//! what it needs from the request and renders its refusals (status, `WWW-Authenticate`
//! challenge, JSON-RPC body) and the protected-resource metadata document.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::core::Core;
use crate::policy::oauth::{insufficient_scope, AuthRefusal, HttpAuth};
use crate::policy::principal::Principal;
use crate::protocol::jsonrpc::{error_response, Frame};
use crate::protocol::{codes, RpcError};

use super::render::json;

/// The caller a request's bearer token speaks for, or the response refusing it.
pub(super) async fn authenticate(
    auth: &HttpAuth,
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<Principal, Response> {
    // A value that is not text is no Bearer token; the policy refuses it as such.
    let authorization: Vec<&str> = headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .map(|value| value.to_str().unwrap_or(""))
        .collect();
    auth.authenticate(&authorization, query)
        .await
        .map_err(|refusal| refuse(&refusal))
}

/// A refusal of the token policy as a response.
pub(super) fn refuse(refusal: &AuthRefusal) -> Response {
    let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::UNAUTHORIZED);
    let mut response = json(status, &refusal.body);
    if let Ok(value) = HeaderValue::from_str(&refusal.www_authenticate()) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The RFC 9728 metadata document as a response (public, cacheable, readable
/// cross-origin).
pub(super) fn metadata_response(document: &Value) -> Response {
    let mut response = json(StatusCode::OK, document);
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

/// 403 with an `insufficient_scope` challenge when the request targets a tool, prompt or
/// resource whose declared scopes the caller's token lacks.
pub(super) fn scope_challenge(
    core: &Core,
    auth: &HttpAuth,
    principal: &Principal,
    frame: &Frame,
) -> Option<Response> {
    let message = frame.envelope()?;
    let method = message.method()?;
    let params = message.params()?;
    let needed = core.required_scopes(method, params);
    if principal.missing_scopes(needed).is_empty() {
        return None;
    }
    let target = crate::era::target_of(params).unwrap_or_default();
    let kind = match method {
        "tools/call" => "tool",
        "prompts/get" => "prompt",
        _ => "resource",
    };
    let id = message.id();
    let error = RpcError::new(
        codes::ACCESS_DENIED,
        format!(
            "Access denied to {kind} {target}: it needs the scope(s) {}",
            needed.join(" ")
        ),
    )
    .with_data(serde_json::json!({ "name": target, "requiredScopes": needed }));
    tracing::info!(target = %target, "refused a call for want of scopes");
    let refusal = insufficient_scope(
        needed,
        auth.metadata_url(),
        error_response(id.as_ref(), &error),
    );
    Some(refuse(&refusal))
}
