//! `POST /mcp` (and, for handshake-era sessions, `GET` and `DELETE`), step by step: the
//! guards that need no body (Host/Origin, bearer token, method, `Content-Type`), the body
//! read within its size and time limits, the era the message belongs to; for a 2026-07-28
//! request, its target resolved once (`Core::resolve`) and its headers checked against
//! it, then the modern adapter's answer as JSON or as an event stream. A refusal for want
//! of scopes, made by the core's one check, is rendered as a 403 with its challenge
//! (`auth`).

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio_util::sync::CancellationToken;

use crate::core::{Core, Transport};
use crate::era::modern::{self, Answer, Inbound};
use crate::observe;
use crate::policy::limits::check_depth;
use crate::policy::principal::Principal;
use crate::protocol::jsonrpc::{error_response, Frame, Message};
use crate::protocol::meta::Meta;
use crate::protocol::{Params, RequestId, RpcError};

use super::headers::{
    accepts_event_stream, check_content_type, check_headers, check_host_and_origin,
};
use super::render::{answer, json, too_large};
use super::{auth, sse, Shared};

/// The `/mcp` route.
pub(super) async fn endpoint(State(shared): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let principal = match guard(&shared, &parts).await {
        Ok(principal) => principal,
        Err(refusal) => return refusal,
    };
    // GET and DELETE exist only for handshake-era sessions.
    #[cfg(feature = "legacy")]
    if super::session::names_session_stream(&parts.method, &parts.headers) {
        let incoming = incoming(&shared, &parts.headers, principal);
        return super::session::get_or_delete(incoming, &parts.method);
    }
    if let Some(refusal) = refuse_unless_json_post(&shared.core, &parts) {
        return refusal;
    }
    let frame = match read_frame(&shared, &parts.headers, body).await {
        Ok(frame) => frame,
        Err(refusal) => return refusal,
    };
    #[cfg(feature = "legacy")]
    if super::session::claims(&shared.eras, &parts.headers, &frame) {
        let incoming = incoming(&shared, &parts.headers, principal);
        return super::session::post(incoming, frame).await;
    }
    modern_post(&shared, &parts.headers, frame, principal).await
}

/// What the handshake era's HTTP sessions need of a request.
#[cfg(feature = "legacy")]
fn incoming<'a>(
    shared: &'a Shared,
    headers: &'a HeaderMap,
    principal: Option<Principal>,
) -> super::session::Incoming<'a> {
    super::session::Incoming {
        core: &shared.core,
        sessions: &shared.sessions,
        auth: shared.config.auth.as_ref(),
        headers,
        principal,
    }
}

/// Trace and count a request this transport refused before any JSON-RPC handling.
fn refused(core: &Core, status: u16, reason: &str) {
    observe::refused(core, Transport::Http, "transport", Some(status), reason);
}

/// Refuse a body that is no JSON-RPC request (400), traced as a `jsonrpc` failure.
fn not_jsonrpc(core: &Core, id: Option<&RequestId>, error: &RpcError) -> Response {
    observe::refused(core, Transport::Http, "jsonrpc", Some(400), &error.message);
    json(StatusCode::BAD_REQUEST, &error_response(id, error))
}

/// The Host/Origin allowlist, then the bearer token: the caller, or the refusal. The token
/// is checked before anything else is read. Without a verifier, an authentication layer
/// in front of this router identifies the caller through the request's extensions.
async fn guard(shared: &Shared, parts: &Parts) -> Result<Option<Principal>, Response> {
    if let Err(reason) = check_host_and_origin(&parts.headers, &shared.config.allowed_hosts) {
        tracing::warn!(%reason, "refused a request from a foreign host or origin");
        refused(&shared.core, 403, &reason);
        return Err(json(
            StatusCode::FORBIDDEN,
            &error_response(
                None,
                &RpcError::invalid_request(format!("Forbidden: {reason}")),
            ),
        ));
    }
    match &shared.config.auth {
        Some(verifier) => {
            match auth::authenticate(verifier, &parts.headers, parts.uri.query()).await {
                Ok(principal) => Ok(Some(principal)),
                Err(refusal) => {
                    let status = refusal.status().as_u16();
                    refused(&shared.core, status, "no valid access token");
                    Err(refusal)
                }
            }
        }
        None => Ok(parts.extensions.get::<Principal>().cloned()),
    }
}

/// A message comes as a `POST` declared `application/json`: the 405 or 415 otherwise.
fn refuse_unless_json_post(core: &Core, parts: &Parts) -> Option<Response> {
    if parts.method != Method::POST {
        let error = RpcError::invalid_request(format!(
            "{} is not supported on this endpoint: send each JSON-RPC message as a POST",
            parts.method
        ));
        refused(core, 405, &error.message);
        let mut response = json(
            StatusCode::METHOD_NOT_ALLOWED,
            &error_response(None, &error),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("POST"));
        return Some(response);
    }
    let error = check_content_type(&parts.headers).err()?;
    refused(core, 415, &error.message);
    Some(json(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        &error_response(None, &error),
    ))
}

/// Read the body within the size limit (413) and the time limit (408), then parse it
/// within the nesting limit (-32600) as JSON-RPC (-32700).
async fn read_frame(shared: &Shared, headers: &HeaderMap, body: Body) -> Result<Frame, Response> {
    let core = &shared.core;
    let limit = shared.config.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        refused(core, 413, "declared body too large");
        return Err(too_large(limit));
    }
    let read = tokio::time::timeout(
        shared.config.body_timeout,
        axum::body::to_bytes(body, limit),
    );
    let bytes: Bytes = match read.await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            refused(core, 413, "body too large");
            return Err(too_large(limit));
        }
        Err(_) => {
            refused(core, 408, "body too slow");
            let error = RpcError::invalid_request(format!(
                "The request body did not arrive within {} s",
                shared.config.body_timeout.as_secs_f64()
            ));
            return Err(json(
                StatusCode::REQUEST_TIMEOUT,
                &error_response(None, &error),
            ));
        }
    };
    if let Err(error) = check_depth(&bytes, core.limiter.limits().max_json_depth) {
        return Err(not_jsonrpc(core, None, &error));
    }
    Frame::parse(&bytes).map_err(|e| not_jsonrpc(core, None, &RpcError::parse_error(e)))
}

/// A message of the 2026-07-28 revision: only requests are answered; a notification is
/// accepted and a response refused.
async fn modern_post(
    shared: &Shared,
    headers: &HeaderMap,
    frame: Frame,
    principal: Option<Principal>,
) -> Response {
    match frame.into_message() {
        Err(malformed) => not_jsonrpc(&shared.core, malformed.id.as_ref(), &malformed.error),
        Ok(Message::Notification { .. }) => StatusCode::ACCEPTED.into_response(),
        Ok(Message::Response { id, .. }) => {
            let error = RpcError::invalid_request(
                "Clients do not send responses in this protocol revision",
            );
            not_jsonrpc(&shared.core, id.as_ref(), &error)
        }
        Ok(Message::Request {
            id,
            method,
            params,
            meta,
        }) => modern_request(shared, headers, id, method, params, meta, principal).await,
    }
}

/// Whether the caller may see the tool `target` names, by the server's visibility rule
/// (asked only for a request whose mirrored headers disagree with its body: the rule
/// needs the request's context).
fn sees_tool(
    core: &Core,
    id: &RequestId,
    target: &crate::core::Resolved,
    meta: Option<&Meta>,
    principal: Option<&Principal>,
) -> bool {
    // A `_meta` that cannot be admitted is refused later, with its own error; until
    // then the tool is as unknown to the caller as any tool it may not see.
    let Ok(request_meta) = modern::admit(core, ("tools/call", true), meta.cloned()) else {
        return false;
    };
    let inbound = Inbound {
        principal: principal.cloned(),
        ..Inbound::new(Transport::Http)
    };
    core.sees_tool(id, target, request_meta, inbound)
}

/// A 2026-07-28 request: its headers against its body, then the modern adapter, answered
/// as JSON, as an event stream (the client wants notifications and takes SSE), or as the
/// `subscriptions/listen` stream.
async fn modern_request(
    shared: &Shared,
    headers: &HeaderMap,
    id: RequestId,
    method: String,
    params: Option<Params>,
    meta: Option<Meta>,
    principal: Option<Principal>,
) -> Response {
    // The request's one lookup of its target; everything after reads this.
    let target = shared.core.resolve(&method, params.as_ref());
    let sees = || {
        sees_tool(
            &shared.core,
            &id,
            &target,
            meta.as_ref(),
            principal.as_ref(),
        )
    };
    if let Err(error) = check_headers(
        headers,
        (&method, params.as_ref(), meta.as_ref()),
        &target,
        shared.core.supported_versions(),
        sees,
    ) {
        observe::refused(
            &shared.core,
            Transport::Http,
            "mcp",
            Some(400),
            &error.message,
        );
        return answer(Answer::error(Some(&id), &error, 400));
    }
    let auth = shared.config.auth.as_ref();
    if method == "subscriptions/listen" {
        return match modern::listen(&shared.core, &id, params, meta, principal.as_ref()) {
            Ok(subscription) => sse::listen_stream(subscription, shared.closing.clone()),
            Err(error) => auth::answer(auth, error),
        };
    }
    let cancel = CancellationToken::new();
    let inbound = Inbound {
        transport: Transport::Http,
        notifier: None,
        cancel: cancel.clone(),
        // Never fired: an HTTP request has no connection of its own to outlive, and the
        // server's stop is awaited beside this one (`Core::stopped`). A child of the
        // server's token, shared by every worker thread, locked it twice per request.
        stop: CancellationToken::new(),
        principal,
    };
    if modern::wants_stream(meta.as_ref()) && accepts_event_stream(headers) {
        let config = shared.config.clone();
        return sse::streamed(
            shared.core.clone(),
            config,
            id,
            (method, params, meta),
            target,
            inbound,
        )
        .await;
    }
    // If the client goes away, hyper drops this future; the guard then cancels the
    // request's token so work the handler spawned stops too.
    let guard = cancel.drop_guard();
    let reply =
        modern::handle_resolved(&shared.core, id, (method, params, meta), target, inbound).await;
    guard.disarm();
    auth::answer(auth, reply)
}
