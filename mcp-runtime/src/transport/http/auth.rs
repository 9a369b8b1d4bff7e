//! The bearer-token check on HTTP: the policy ([`HttpAuth`]) decides, this module reads
//! what it needs from the request and renders its refusals (status, `WWW-Authenticate`
//! challenge, JSON-RPC body) and the protected-resource metadata document.
//!
//! It also holds the one rule for refusals for want of scopes: whichever check made one
//! (the declared scopes checked here before the era adapter, or the core's check and
//! `Authorize` hook) and whatever named the caller (the verifier, or a layer of the
//! application inserting a `Principal` into the request's extensions), it is a 403 with an
//! `insufficient_scope` challenge, naming the metadata document when there is one.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::core::Core;
use crate::era::modern::Answer;
use crate::policy::auth::{refused_scopes, DeclaredScopes, Denied};
use crate::policy::oauth::{insufficient_scope, AuthRefusal, HttpAuth};
use crate::policy::principal::Principal;
use crate::protocol::jsonrpc::{error_response, Frame};

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
/// resource whose declared scopes the caller lacks (an anonymous caller lacks them all).
/// The body is the error the core's own check would give.
pub(super) fn scope_challenge(
    core: &Core,
    auth: Option<&HttpAuth>,
    principal: Option<&Principal>,
    frame: &Frame,
) -> Option<Response> {
    let message = frame.envelope()?;
    let method = message.method()?;
    let params = message.params()?;
    let needed = core.required_scopes(method, params);
    let denied: Denied = DeclaredScopes::check_principal(principal, needed).err()?;
    let target = crate::era::target_of(params).unwrap_or_default();
    let kind = match method {
        "tools/call" => "tool",
        "prompts/get" => "prompt",
        _ => "resource",
    };
    tracing::info!(target = %target, "refused a call for want of scopes");
    let error = denied.to_error(kind, &target);
    let body = error_response(message.id().as_ref(), &error);
    let refusal = insufficient_scope(needed, auth.and_then(HttpAuth::metadata_url), body);
    Some(refuse(&refusal))
}

/// The `insufficient_scope` challenge for a JSON-RPC error (the `error` member of a
/// response) that refuses the caller for want of scopes; `None` for any other error.
fn challenge_for(auth: Option<&HttpAuth>, error: Option<&Value>) -> Option<HeaderValue> {
    let error = error?;
    let scopes = refused_scopes(error.get("code").and_then(Value::as_i64), error.get("data"))?;
    let refusal = insufficient_scope(&scopes, auth.and_then(HttpAuth::metadata_url), Value::Null);
    HeaderValue::from_str(&refusal.www_authenticate()).ok()
}

/// A 2026-07-28 answer as a response; a refusal for want of scopes made past the edge
/// (by the core's check or the `Authorize` hook) gets its challenge (its status, 403, is
/// the era's).
pub(super) fn answer(auth: Option<&HttpAuth>, answer: Answer) -> Response {
    let challenge = challenge_for(auth, answer.error_member());
    with_challenge(super::render::answer(answer), challenge)
}

/// `response`, carrying the JSON-RPC error `error` (the `error` member of a response):
/// made 403 with the `insufficient_scope` challenge when that error refuses the caller
/// for want of scopes, else left as it is.
#[cfg(feature = "legacy")]
pub(super) fn scope_rule(
    auth: Option<&HttpAuth>,
    error: Option<&Value>,
    response: Response,
) -> Response {
    with_challenge(response, challenge_for(auth, error))
}

fn with_challenge(mut response: Response, challenge: Option<HeaderValue>) -> Response {
    if let Some(value) = challenge {
        *response.status_mut() = StatusCode::FORBIDDEN;
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}
