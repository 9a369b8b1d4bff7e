//! The bearer-token check on HTTP: the policy ([`HttpAuth`]) decides, this module reads
//! what it needs from the request and renders its refusals (status, `WWW-Authenticate`
//! challenge, JSON-RPC body) and the protected-resource metadata document.
//!
//! It also holds the one rule for refusals for want of scopes: whichever check made one
//! (the core's check of the declared scopes, or the `Authorize` hook) and whatever named
//! the caller (the verifier, or a layer of the application inserting a `Principal` into
//! the request's extensions), it is a 403 with an `insufficient_scope` challenge naming
//! the scopes the refusal carries, and the metadata document when there is one.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::era::modern::Answer;
use crate::policy::oauth::{insufficient_scope, AuthRefusal, HttpAuth};
use crate::policy::principal::Principal;

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

/// The `insufficient_scope` challenge naming `scopes`, the scopes an answer refuses its
/// caller for want of; `None` when it names none (any other answer).
fn challenge_for(auth: Option<&HttpAuth>, scopes: &[String]) -> Option<HeaderValue> {
    if scopes.is_empty() {
        return None;
    }
    let refusal = insufficient_scope(scopes, auth.and_then(HttpAuth::metadata_url), Value::Null);
    HeaderValue::from_str(&refusal.www_authenticate()).ok()
}

/// A 2026-07-28 answer as a response; a refusal for want of scopes (by the declared
/// scopes or the `Authorize` hook) gets its challenge (its status, 403, is the era's).
pub(super) fn answer(auth: Option<&HttpAuth>, answer: Answer) -> Response {
    let challenge = challenge_for(auth, answer.challenge_scopes());
    with_challenge(super::render::answer(answer), challenge)
}

/// `response`, made 403 with the `insufficient_scope` challenge when its handshake-era
/// answer refuses the caller for want of `scopes`, else left as it is.
#[cfg(feature = "legacy")]
pub(super) fn scope_rule(
    auth: Option<&HttpAuth>,
    scopes: &[String],
    response: Response,
) -> Response {
    with_challenge(response, challenge_for(auth, scopes))
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
