//! Streamable HTTP (2026-07-28): `POST /mcp` with one JSON-RPC message per body.
//!
//! Checks, in order: Host/Origin allowlist (403), the bearer token when a verifier is
//! configured (401, or 400 for a malformed authorization), method (405), `Content-Type`
//! (415 unless `application/json`), body size (413) and arrival time (408), nesting depth
//! (-32600), JSON (-32700), declared scopes (403 with an `insufficient_scope` challenge),
//! envelope (-32600), the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers and a
//! tool's `Mcp-Param-*` headers against the body (-32020), then the era adapter (version
//! -32022, method -32601 with 404, `_meta` -32602 with 400).
//!
//! Responses are JSON, except in two cases that stream Server-Sent Events: a request whose
//! client asked for progress or log messages (and accepts `text/event-stream`) switches to
//! SSE when its first notification is ready (a request that finishes first is answered
//! with plain JSON and its proper status), and `subscriptions/listen` is always a stream.
//! Closing a response stream, or the connection, cancels the request.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, Method, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use base64::Engine as _;
use futures_util::Stream;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::core::{Core, Notifier, Subscription, Transport};
use crate::era::modern::{self, Answer, Inbound};
use crate::era::Eras;
use crate::observe;
use crate::policy::auth::Principal;
use crate::policy::limits::check_depth;
use crate::policy::oauth::HttpAuth;
use crate::protocol::jsonrpc::{error_response, Frame, Message};
use crate::protocol::{meta, RequestId, RpcError};

/// HTTP limits, the DNS-rebinding allowlist and the bearer-token check.
#[derive(Clone)]
pub struct HttpConfig {
    /// Hosts accepted in `Host` and `Origin` (compared without port, case-insensitively).
    pub allowed_hosts: Vec<String>,
    /// Largest accepted body in bytes.
    pub max_body_bytes: usize,
    /// Longest time a client may take to send its body.
    pub body_timeout: Duration,
    /// Serve a non-loopback address without a token verifier.
    pub allow_unauthenticated_remote: bool,
    pub(crate) auth: Option<HttpAuth>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("body_timeout", &self.body_timeout)
            .field(
                "allow_unauthenticated_remote",
                &self.allow_unauthenticated_remote,
            )
            .field(
                "oauth",
                &self.auth.as_ref().map(|a| a.resource().resource()),
            )
            .finish()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            max_body_bytes: 4 * 1024 * 1024,
            body_timeout: Duration::from_secs(30),
            allow_unauthenticated_remote: false,
            auth: None,
        }
    }
}

#[derive(Clone)]
struct Shared {
    core: Arc<Core>,
    config: Arc<HttpConfig>,
    closing: CancellationToken,
    #[cfg(feature = "legacy")]
    sessions: Arc<crate::era::legacy::http::Sessions>,
    #[cfg(feature = "legacy")]
    legacy: Arc<crate::era::legacy::LegacyConfig>,
}

/// Where RFC 9728 metadata lives for a resource at the root of its host.
const ROOT_METADATA: &str = "/.well-known/oauth-protected-resource";

/// The `/mcp` endpoint (and the protected-resource metadata when tokens are checked).
/// Open subscription streams end when `closing` is cancelled.
pub(crate) fn router(
    core: Arc<Core>,
    eras: &Eras,
    config: Arc<HttpConfig>,
    closing: CancellationToken,
) -> Router {
    #[cfg(not(feature = "legacy"))]
    let _ = eras;
    let mut router = Router::new()
        .route("/mcp", any(endpoint))
        .route("/healthz", axum::routing::get(healthz))
        .route("/readyz", axum::routing::get(readyz));
    if let Some(auth) = &config.auth {
        // RFC 9728: at the path-inserted location, and at the root for clients that look
        // there first.
        let own = auth.resource().metadata_path();
        let paths = if own == ROOT_METADATA {
            vec![own]
        } else {
            vec![own, ROOT_METADATA.to_owned()]
        };
        for path in paths {
            let auth = auth.clone();
            let serve = move || {
                let auth = auth.clone();
                async move { auth.metadata_response() }
            };
            router = router.route(&path, axum::routing::get(serve));
        }
    }
    router.with_state(Shared {
        core,
        config,
        closing,
        #[cfg(feature = "legacy")]
        sessions: eras.sessions.clone(),
        #[cfg(feature = "legacy")]
        legacy: eras.legacy.clone(),
    })
}

/// A POST's body must be declared JSON (parameters such as `charset=utf-8` allowed), or it
/// is refused before it is read. Besides the protocol asking for it, this keeps the
/// endpoint from being a CORS "simple request" target: a web page may POST `text/plain`
/// (or no type) to any address without asking first. The Origin check stays the main
/// defence; this is the second.
fn check_content_type(headers: &HeaderMap) -> Result<(), RpcError> {
    let refuse = |got: &str| {
        RpcError::invalid_request(format!(
            "Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json (got {got})"
        ))
    };
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let value = match (values.next(), values.next()) {
        (Some(value), None) => value,
        (None, _) => return Err(refuse("none")),
        (Some(_), Some(_)) => return Err(refuse("several")),
    };
    let text = value
        .to_str()
        .map_err(|_| refuse("a value that is not text"))?;
    let mut parts = text.split(';');
    let essence = parts.next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(refuse(&format!("{essence:?}")));
    }
    for parameter in parts {
        let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
        if name.trim().eq_ignore_ascii_case("charset")
            && !value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        {
            return Err(RpcError::invalid_request(format!(
                "Unsupported Media Type: JSON-RPC messages are UTF-8, not {}",
                value.trim()
            )));
        }
    }
    Ok(())
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

/// Liveness for orchestrators: 200 while the process serves at all. Off the MCP path: no
/// Host check (probes use the pod's address) and no token.
async fn healthz() -> Response {
    probe(StatusCode::OK, "ok")
}

/// Readiness: 200 while the server takes new work, 503 once shutdown has begun, so a load
/// balancer stops routing here before the listener closes.
async fn readyz(State(shared): State<Shared>) -> Response {
    if shared.core.lifecycle.is_ready() {
        probe(StatusCode::OK, "ready")
    } else {
        probe(StatusCode::SERVICE_UNAVAILABLE, "draining")
    }
}

fn probe(status: StatusCode, state: &str) -> Response {
    let mut response = json(status, &serde_json::json!({ "status": state }));
    response.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    response
}

async fn endpoint(State(shared): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let method = parts.method;
    let headers = parts.headers;
    if let Err(reason) = check_host_and_origin(&headers, &shared.config.allowed_hosts) {
        tracing::warn!(%reason, "refused a request from a foreign host or origin");
        refused(&shared.core, 403, &reason);
        return json(
            StatusCode::FORBIDDEN,
            &error_response(
                None,
                &RpcError::invalid_request(format!("Forbidden: {reason}")),
            ),
        );
    }
    // The token is checked before anything else is read. Without a verifier, an
    // authentication layer in front of this router identifies the caller through the
    // request's extensions.
    let principal = match &shared.config.auth {
        Some(auth) => match auth.authenticate(&headers, parts.uri.query()).await {
            Ok(principal) => Some(principal),
            Err(refusal) => {
                let status = refusal.status().as_u16();
                refused(&shared.core, status, "no valid access token");
                return refusal;
            }
        },
        None => parts.extensions.get::<Principal>().cloned(),
    };
    // GET and DELETE exist only for handshake-era sessions.
    #[cfg(feature = "legacy")]
    if (method == Method::GET || method == Method::DELETE)
        && headers.contains_key(crate::era::legacy::http::SESSION_HEADER)
    {
        let incoming = crate::era::legacy::http::Incoming {
            core: &shared.core,
            sessions: &shared.sessions,
            headers: &headers,
            principal,
        };
        return if method == Method::GET {
            crate::era::legacy::http::get(incoming)
        } else {
            crate::era::legacy::http::delete(incoming)
        };
    }
    if method != Method::POST {
        let error = RpcError::invalid_request(format!(
            "{method} is not supported on this endpoint: send each JSON-RPC message as a POST"
        ));
        refused(&shared.core, 405, &error.message);
        let mut response = json(
            StatusCode::METHOD_NOT_ALLOWED,
            &error_response(None, &error),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("POST"));
        return response;
    }
    if let Err(error) = check_content_type(&headers) {
        refused(&shared.core, 415, &error.message);
        return json(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &error_response(None, &error),
        );
    }
    let limit = shared.config.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        refused(&shared.core, 413, "declared body too large");
        return too_large(limit);
    }
    let bytes: Bytes = match tokio::time::timeout(
        shared.config.body_timeout,
        axum::body::to_bytes(body, limit),
    )
    .await
    {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            refused(&shared.core, 413, "body too large");
            return too_large(limit);
        }
        Err(_) => {
            refused(&shared.core, 408, "body too slow");
            let error = RpcError::invalid_request(format!(
                "The request body did not arrive within {} s",
                shared.config.body_timeout.as_secs_f64()
            ));
            return json(StatusCode::REQUEST_TIMEOUT, &error_response(None, &error));
        }
    };
    if let Err(error) = check_depth(&bytes, shared.core.limiter.limits().max_json_depth) {
        return not_jsonrpc(&shared.core, None, &error);
    }
    let frame = match Frame::parse(&bytes) {
        Ok(frame) => frame,
        Err(e) => return not_jsonrpc(&shared.core, None, &RpcError::parse_error(e)),
    };
    if let (Some(auth), Some(principal)) = (&shared.config.auth, &principal) {
        if let Some(refusal) = scope_challenge(&shared.core, auth, principal, &frame) {
            refused(&shared.core, 403, "insufficient scope");
            return refusal;
        }
    }
    #[cfg(feature = "legacy")]
    if crate::era::legacy::http::claims(&shared.legacy, &headers, &frame) {
        let incoming = crate::era::legacy::http::Incoming {
            core: &shared.core,
            sessions: &shared.sessions,
            headers: &headers,
            principal,
        };
        return crate::era::legacy::http::post(incoming, frame).await;
    }
    match frame.into_message() {
        Err(malformed) => not_jsonrpc(&shared.core, malformed.id.as_ref(), &malformed.error),
        Ok(Message::Notification { .. }) => StatusCode::ACCEPTED.into_response(),
        Ok(Message::Response { id, .. }) => {
            let error = RpcError::invalid_request(
                "Clients do not send responses in this protocol revision",
            );
            not_jsonrpc(&shared.core, id.as_ref(), &error)
        }
        Ok(Message::Request { id, method, params }) => {
            if let Err(error) = check_headers(&headers, &method, params.as_ref(), &shared.core) {
                observe::refused(
                    &shared.core,
                    Transport::Http,
                    "mcp",
                    Some(400),
                    &error.message,
                );
                return answer(Answer::error(Some(&id), &error, 400));
            }
            if method == "subscriptions/listen" {
                return match modern::listen(&shared.core, &id, params, principal.as_ref()) {
                    Ok(subscription) => listen_stream(subscription, shared.closing.clone()),
                    Err(error) => answer(error),
                };
            }
            let cancel = CancellationToken::new();
            let inbound = Inbound {
                transport: Transport::Http,
                notifier: None,
                cancel: cancel.clone(),
                stop: shared.core.lifecycle.stop_token().child_token(),
                principal,
            };
            if modern::wants_stream(params.as_ref()) && accepts_event_stream(&headers) {
                return streamed(shared.core.clone(), id, method, params, inbound).await;
            }
            // If the client goes away, hyper drops this future; the guard then cancels the
            // request's token so work the handler spawned stops too.
            let guard = cancel.drop_guard();
            let reply = modern::handle_request(&shared.core, id, method, params, inbound).await;
            guard.disarm();
            answer(reply)
        }
    }
}

pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.to_ascii_lowercase().contains("text/event-stream"))
}

/// Cancels the request and stops its task when the response (or stream) is dropped
/// before the request finished.
struct Abandon {
    cancel: Option<DropGuard>,
    task: tokio::task::AbortHandle,
}

impl Abandon {
    /// The request finished: dropping now must not cancel anything.
    fn disarm(mut self) {
        if let Some(guard) = self.cancel.take() {
            guard.disarm();
        }
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        if self.cancel.is_some() {
            self.task.abort();
        }
    }
}

/// Where a streamed response is.
enum Phase {
    /// The request runs; its notifications arrive on `rx`.
    Running {
        rx: mpsc::Receiver<Vec<u8>>,
        task: tokio::task::JoinHandle<Answer>,
        abandon: Abandon,
    },
    /// The request finished: the queue holds the rest, ending with the response.
    Draining,
}

/// Run a request whose client wants notifications: JSON if it finishes before sending any,
/// else an SSE stream of its notifications followed by its response.
async fn streamed(
    core: Arc<Core>,
    id: crate::protocol::RequestId,
    method: String,
    params: Option<Map<String, Value>>,
    mut inbound: Inbound,
) -> Response {
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
    inbound.notifier = Some(Notifier::new(tx));
    let cancel = inbound.cancel.clone();
    let mut task =
        tokio::spawn(
            async move { modern::handle_request(&core, id, method, params, inbound).await },
        );
    let abandon = Abandon {
        cancel: Some(cancel.drop_guard()),
        task: task.abort_handle(),
    };
    let first = tokio::select! {
        biased;
        frame = rx.recv() => frame,
        done = &mut task => {
            abandon.disarm();
            return match done {
                Ok(reply) => answer(reply),
                Err(e) => internal_failure(e),
            };
        }
    };
    let mut queue = std::collections::VecDeque::new();
    queue.extend(first);
    let start = (queue, Some(Phase::Running { rx, task, abandon }));
    let events = futures_util::stream::unfold(start, |(mut queue, phase)| async move {
        if let Some(frame) = queue.pop_front() {
            return Some((event(frame), (queue, phase)));
        }
        let Phase::Running {
            mut rx,
            mut task,
            abandon,
        } = phase?
        else {
            return None;
        };
        tokio::select! {
            biased;
            Some(frame) = rx.recv() => {
                let phase = Phase::Running { rx, task, abandon };
                Some((event(frame), (queue, Some(phase))))
            }
            done = &mut task => {
                abandon.disarm();
                // The notifier closed before the response was made: what is still queued
                // precedes the response.
                while let Ok(frame) = rx.try_recv() {
                    queue.push_back(frame);
                }
                let last = match done {
                    Ok(reply) => reply.to_bytes(),
                    Err(e) => {
                        tracing::error!("a request task failed: {e}");
                        let error =
                            RpcError::internal("Internal error: the request failed unexpectedly");
                        Answer::error(None, &error, 500).to_bytes()
                    }
                };
                queue.push_back(last);
                let frame = queue.pop_front().unwrap_or_default();
                Some((event(frame), (queue, Some(Phase::Draining))))
            }
        }
    });
    sse_response(events, None)
}

fn event(frame: Vec<u8>) -> Result<Event, Infallible> {
    Ok(Event::default().data(String::from_utf8_lossy(&frame)))
}

fn internal_failure(error: tokio::task::JoinError) -> Response {
    tracing::error!("a request task failed: {error}");
    json(
        StatusCode::INTERNAL_SERVER_ERROR,
        &error_response(
            None,
            &RpcError::internal("Internal error: the request failed unexpectedly"),
        ),
    )
}

fn sse_response<S>(events: S, keep_alive: Option<Duration>) -> Response
where
    S: Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    let sse = Sse::new(events);
    let mut response = match keep_alive {
        Some(every) => sse
            .keep_alive(KeepAlive::new().interval(every).text(""))
            .into_response(),
        None => sse.into_response(),
    };
    // Proxies such as nginx must not buffer the stream.
    response
        .headers_mut()
        .insert("x-accel-buffering", header::HeaderValue::from_static("no"));
    response
}

/// The `subscriptions/listen` stream: acknowledgement, then notifications, until the
/// client leaves or the server closes (then the closing result ends it).
fn listen_stream(subscription: Subscription, closing: CancellationToken) -> Response {
    let ack = subscription.acknowledgement();
    let state = (Some(ack), Some(subscription), closing);
    let events = futures_util::stream::unfold(state, |(first, subscription, closing)| async move {
        if let Some(ack) = first {
            return Some((json_event(&ack), (None, subscription, closing)));
        }
        let mut subscription = subscription?;
        tokio::select! {
            _ = closing.cancelled() => {
                let last = subscription.closing_result();
                Some((json_event(&last), (None, None, closing)))
            }
            next = subscription.next() => match next {
                Some(message) => Some((json_event(&message), (None, Some(subscription), closing))),
                None => {
                    let last = subscription.closing_result();
                    Some((json_event(&last), (None, None, closing)))
                }
            },
        }
    });
    sse_response(events, Some(Duration::from_secs(15)))
}

fn json_event(message: &Value) -> Result<Event, Infallible> {
    Ok(Event::default().data(serde_json::to_string(message).unwrap_or_default()))
}

fn too_large(limit: usize) -> Response {
    let error = RpcError::invalid_request(format!(
        "Request body exceeds the {limit} byte limit of this server"
    ));
    json(StatusCode::PAYLOAD_TOO_LARGE, &error_response(None, &error))
}

/// 403 with an `insufficient_scope` challenge when the request targets a tool, prompt or
/// resource whose declared scopes the caller's token lacks.
fn scope_challenge(
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
        crate::protocol::codes::ACCESS_DENIED,
        format!(
            "Access denied to {kind} {target}: it needs the scope(s) {}",
            needed.join(" ")
        ),
    )
    .with_data(serde_json::json!({ "name": target, "requiredScopes": needed }));
    tracing::info!(target = %target, "refused a call for want of scopes");
    Some(auth.insufficient_scope(needed, &error_response(id.as_ref(), &error)))
}

fn answer(answer: Answer) -> Response {
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

pub(crate) fn json(status: StatusCode, body: &Value) -> Response {
    json_bytes(status, serde_json::to_vec(body).unwrap_or_default())
}

fn json_bytes(status: StatusCode, bytes: Vec<u8>) -> Response {
    let content_type = header::HeaderValue::from_static("application/json");
    (status, [(header::CONTENT_TYPE, content_type)], bytes).into_response()
}

/// The host part of `Host` or of an `Origin` URL, lower-cased and without port.
pub(crate) fn host_of(authority: &str) -> String {
    host_name(authority).to_ascii_lowercase()
}

/// The host part of `Host` or of an `Origin` URL, without port, as written.
fn host_name(authority: &str) -> &str {
    let authority = authority.trim();
    if authority.starts_with('[') {
        // IPv6 literal: keep the brackets, drop the port.
        return match authority.find(']') {
            Some(end) => authority.get(..=end).unwrap_or_default(),
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

fn check_host_and_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
    let is_allowed = |host: &str| allowed.iter().any(|a| a.eq_ignore_ascii_case(host));
    if let Some(host) = headers.get(header::HOST) {
        let host = host
            .to_str()
            .map_err(|_| "the Host header is not valid text".to_owned())?;
        let name = host_name(host);
        if !is_allowed(name) {
            return Err(format!(
                "host {:?} is not allowed",
                name.to_ascii_lowercase()
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| "the Origin header is not valid text".to_owned())?;
        let authority = origin
            .split_once("://")
            .map(|(_, rest)| rest.split('/').next().unwrap_or(""))
            .ok_or_else(|| format!("origin {origin:?} is not allowed"))?;
        if !is_allowed(host_name(authority)) {
            return Err(format!("origin {origin:?} is not allowed"));
        }
    }
    Ok(())
}

/// The protocol's header names, made once: looking a header up by a string parses the name
/// on every request.
pub(crate) mod names {
    use axum::http::HeaderName;

    /// `MCP-Protocol-Version`.
    pub(crate) const MCP_PROTOCOL_VERSION: HeaderName =
        HeaderName::from_static("mcp-protocol-version");
    /// `Mcp-Method`.
    pub(crate) const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
    /// `Mcp-Name`.
    pub(crate) const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
    /// `Last-Event-ID`.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
}

/// One header's value: absent, present (decoded and trimmed), or malformed.
pub(crate) fn header_text<'h>(
    headers: &'h HeaderMap,
    name: &HeaderName,
) -> Result<Option<&'h str>, RpcError> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| {
        RpcError::header_mismatch(format!(
            "The {name} header contains characters that are not visible ASCII"
        ))
    })?;
    // Optional whitespace around a field value is not part of it (RFC 9110 section 5.5).
    Ok(Some(text.trim_matches([' ', '\t'])))
}

/// Decode the `=?base64?...?=` form used for values that are not plain visible ASCII.
pub(crate) fn decode_sentinel<'t>(
    name: &str,
    text: &'t str,
) -> Result<std::borrow::Cow<'t, str>, RpcError> {
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(std::borrow::Cow::Owned)
            .ok_or_else(|| {
                RpcError::header_mismatch(format!(
                    "The {name} header is not valid =?base64?...?= encoding of UTF-8 text"
                ))
            }),
        None => Ok(std::borrow::Cow::Borrowed(text)),
    }
}

fn check_headers(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Map<String, Value>>,
    core: &Core,
) -> Result<(), RpcError> {
    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    match header_text(headers, &names::MCP_PROTOCOL_VERSION)? {
        None => {
            let mut error = RpcError::header_mismatch(format!(
                "The MCP-Protocol-Version header is missing; this server speaks protocol version(s) {}",
                core.supported_versions().join(", ")
            ));
            if method == "initialize" {
                error =
                    error.with_data(serde_json::json!({ "supported": core.supported_versions() }));
            }
            return Err(error);
        }
        Some(header) => {
            if let Some(body) = body_version {
                if header != body {
                    return Err(RpcError::header_mismatch(format!(
                        "MCP-Protocol-Version header {header:?} does not match _meta protocol version {body:?}"
                    )));
                }
            }
        }
    }
    match header_text(headers, &names::MCP_METHOD)? {
        None => {
            return Err(RpcError::header_mismatch(
                "The Mcp-Method header is missing",
            ))
        }
        Some(header) if header != method => {
            return Err(RpcError::header_mismatch(format!(
                "Mcp-Method header {header:?} does not match the method {method:?}"
            )))
        }
        Some(_) => {}
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(field) = name_field {
        if let Some(body_name) = params.and_then(|p| p.get(field)).and_then(Value::as_str) {
            match header_text(headers, &names::MCP_NAME)? {
                None => {
                    return Err(RpcError::header_mismatch(format!(
                        "The Mcp-Name header is missing; it must carry params.{field}"
                    )))
                }
                Some(header) => {
                    let decoded = decode_sentinel("Mcp-Name", header)?;
                    if decoded != body_name {
                        return Err(RpcError::header_mismatch(format!(
                            "Mcp-Name header {decoded:?} does not match params.{field} {body_name:?}"
                        )));
                    }
                }
            }
        }
    }
    if method == "tools/call" {
        let params = params.map(|p| (p.get("name").and_then(Value::as_str), p.get("arguments")));
        if let Some((Some(name), arguments)) = params {
            let snapshot = core.live.load();
            if let Some(tool) = snapshot.catalog.get(name) {
                super::param_headers::check(headers, &tool.mirrored, arguments)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_without_port_and_case() {
        assert_eq!(host_of("LocalHost:8080"), "localhost");
        assert_eq!(host_of("[::1]:3000"), "[::1]");
        assert_eq!(host_of("127.0.0.1"), "127.0.0.1");
        let allowed = HttpConfig::default().allowed_hosts;
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "evil.example.com".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_err());
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "localhost:1234".parse().unwrap());
        h.insert(header::ORIGIN, "http://evil.example.com".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_err());
        h.insert(header::ORIGIN, "http://localhost:5173".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_ok());
        h.insert(header::ORIGIN, "null".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_err());
    }

    #[test]
    fn sentinel_values_are_decoded_strictly() {
        assert_eq!(
            decode_sentinel("n", "=?base64?SGVsbG8=?=").unwrap(),
            "Hello"
        );
        assert!(decode_sentinel("n", "=?base64?SGVsbG8?=").is_err());
        assert!(decode_sentinel("n", "=?base64?SGVs!!!bG8=?=").is_err());
        assert_eq!(
            decode_sentinel("n", "=?base64?SGVsbG8=").unwrap(),
            "=?base64?SGVsbG8="
        );
    }
}
