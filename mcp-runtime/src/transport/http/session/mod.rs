//! Handshake-era sessions over Streamable HTTP (2025-03-26 .. 2025-11-25).
//!
//! `initialize` opens a session and the response carries its `Mcp-Session-Id`; every later
//! message names it. A `POST` carries one message (or, in 2025-03-26, a batch). Requests
//! that can ask the client something or report progress (`tools/call`, `prompts/get`,
//! `resources/read`) run as tasks writing into a resumable event log: the response is
//! plain JSON when nothing but the result was written, else a Server-Sent Events stream
//! whose events carry ids. A client that loses the stream (or is let go, see
//! `RequestContext::release_connection`) reconnects with `GET` and `Last-Event-ID` and gets
//! the rest. A `GET` without it opens the session's own stream, where list changes and
//! resource updates go. `DELETE` ends the session; an unknown or ended session is 404.
//! Closing a connection does not cancel a request in this era; `notifications/cancelled`
//! does.
//!
//! Session ids are portable: each is the negotiated session (revision, client
//! capabilities and info, owner), sealed with the server's key. Behind a load balancer
//! that routes by the `Mcp-Session-Id` header (nginx `hash $http_mcp_session_id`),
//! `initialize` may land on any instance. The instance the hash picks for the session's
//! later messages opens the session from its id the first time it sees it. From then on
//! the session lives there: its streams, subscriptions and pending requests to the client.
//!
//! [`store`] keeps the sessions, [`event_log`] their resumable streams; this module
//! answers the requests.

mod event_log;
mod store;

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;

use crate::clock::now_ms;
use crate::core::{Core, Notifier, Transport};
use crate::era::legacy::Session;
use crate::era::{Era, Eras, Facts, Inbound};
use crate::policy::oauth::HttpAuth;
use crate::policy::principal::Principal;
use crate::protocol::jsonrpc::{error_response, result_response, Envelope, Frame, Message};
use crate::protocol::meta::Meta;
use crate::protocol::Params;
use crate::protocol::{RequestId, RpcError};
use crate::transport::in_flight::InFlight;

use super::headers::{accepts_event_stream, header_text, names};
use super::render::json;
use event_log::{follow, EventLog, First};
use store::{open_entry, HttpSession, MAX_PORTABLE_ID, SESSION_PURPOSE};

pub(crate) use store::Sessions;

/// Header naming the session.
pub(crate) const SESSION_HEADER: HeaderName = names::MCP_SESSION_ID;

/// Whether a `POST` belongs to the handshake era, as the era layer decides from what its
/// headers (`MCP-Protocol-Version`, `Mcp-Session-Id`) and body say.
pub(crate) fn claims(eras: &Eras, headers: &HeaderMap, body: &Frame) -> bool {
    let envelope = body.envelope();
    let mut facts = Facts::of(
        envelope.and_then(Envelope::method),
        envelope.and_then(Envelope::meta),
    );
    facts.header_version = header_text(headers, &names::MCP_PROTOCOL_VERSION)
        .ok()
        .flatten();
    facts.in_session = headers.contains_key(SESSION_HEADER);
    eras.select(&facts) == Era::Legacy
}

/// Whether a `GET` or `DELETE` names a handshake-era session (the only use of either).
pub(crate) fn names_session_stream(method: &Method, headers: &HeaderMap) -> bool {
    (method == Method::GET || method == Method::DELETE) && headers.contains_key(SESSION_HEADER)
}

/// A `GET` or `DELETE` of a session.
pub(crate) fn get_or_delete(incoming: Incoming<'_>, method: &Method) -> Response {
    if method == Method::GET {
        get(incoming)
    } else {
        delete(incoming)
    }
}

/// What a request needs from the HTTP transport.
pub(crate) struct Incoming<'a> {
    pub(crate) core: &'a Arc<Core>,
    pub(crate) sessions: &'a Arc<Sessions>,
    /// The bearer-token check, when there is one (the scope challenges name its metadata).
    pub(crate) auth: Option<&'a HttpAuth>,
    pub(crate) headers: &'a HeaderMap,
    pub(crate) principal: Option<Principal>,
}

fn error(status: StatusCode, id: Option<&RequestId>, error: RpcError) -> Response {
    json(status, &error_response(id, &error))
}

/// Why a message cannot be tied to a session.
enum Refusal {
    /// No `Mcp-Session-Id` (400).
    Missing,
    /// An unknown, ended or foreign session (404).
    Unknown,
    /// A session id that is not visible ASCII (400).
    Malformed,
}

impl Refusal {
    fn response(self) -> Response {
        match self {
            Refusal::Missing => error(
                StatusCode::BAD_REQUEST,
                None,
                RpcError::invalid_request(
                    "Bad Request: the Mcp-Session-Id header is missing; send initialize first and then name the session it returned",
                ),
            ),
            Refusal::Unknown => error(
                StatusCode::NOT_FOUND,
                None,
                RpcError::invalid_request(
                    "Session not found: it ended or expired. Send initialize to open a new one.",
                ),
            ),
            Refusal::Malformed => error(
                StatusCode::BAD_REQUEST,
                None,
                RpcError::invalid_request("The Mcp-Session-Id header is not visible ASCII"),
            ),
        }
    }
}

/// Look the session up from the headers.
fn find<'a>(incoming: &Incoming<'a>) -> Result<(&'a str, Arc<HttpSession>), Refusal> {
    // Borrowed from the headers: most requests only look their session up.
    let id = header_text(incoming.headers, &SESSION_HEADER)
        .map_err(|_| Refusal::Malformed)?
        .ok_or(Refusal::Missing)?;
    let principal = incoming.principal.as_ref();
    match incoming.sessions.get(id, principal) {
        Some(entry) => Ok((id, entry)),
        None => match incoming.sessions.revive(incoming.core, id, principal) {
            Some(entry) => Ok((id, entry)),
            None => Err(Refusal::Unknown),
        },
    }
}

/// A `POST` of the handshake era.
pub(crate) async fn post(incoming: Incoming<'_>, body: Frame) -> Response {
    if body.envelope().and_then(Envelope::method) == Some("initialize") {
        return initialize(&incoming, body);
    }
    let (_, entry) = match find(&incoming) {
        Ok(found) => found,
        Err(refusal) => return refusal.response(),
    };
    // 2025-06-18 and later send the negotiated revision on every request; it must agree.
    if let Ok(Some(header)) = header_text(incoming.headers, &names::MCP_PROTOCOL_VERSION) {
        if header != entry.session.version {
            return error(
                StatusCode::BAD_REQUEST,
                None,
                RpcError::invalid_request(format!(
                    "Bad Request: MCP-Protocol-Version {header:?} is not this session's negotiated version {:?}",
                    entry.session.version
                )),
            );
        }
    }
    if let Frame::Batch(items) = body {
        return batch(&incoming, &entry, items).await;
    }
    match body.into_message() {
        Err(malformed) => error(
            StatusCode::BAD_REQUEST,
            malformed.id.as_ref(),
            malformed.error,
        ),
        Ok(Message::Notification { method, params, .. }) => {
            notify(&entry, &method, params.as_ref());
            StatusCode::ACCEPTED.into_response()
        }
        Ok(Message::Response { id, outcome }) => {
            entry.session.handle_response(id, outcome);
            StatusCode::ACCEPTED.into_response()
        }
        Ok(Message::Request {
            id,
            method,
            params,
            meta,
        }) => request(&incoming, &entry, id, method, params, meta).await,
    }
}

fn initialize(incoming: &Incoming<'_>, body: Frame) -> Response {
    let (id, params) = match body.into_message() {
        Ok(Message::Request { id, params, .. }) => (id, params),
        Ok(_) => {
            return error(
                StatusCode::BAD_REQUEST,
                None,
                RpcError::invalid_request("initialize must be a request (with an id)"),
            )
        }
        Err(malformed) => {
            return error(
                StatusCode::BAD_REQUEST,
                malformed.id.as_ref(),
                malformed.error,
            )
        }
    };
    let config = &incoming.sessions.config;
    let started = std::time::Instant::now();
    let opened = Session::initialize(
        incoming.core,
        config,
        params.as_ref(),
        incoming.principal.as_ref(),
    );
    crate::observe::count_initialize(incoming.core, opened.as_ref().err(), started);
    let (session, result) = match opened {
        Ok(opened) => opened,
        Err(e) => return error(StatusCode::BAD_REQUEST, Some(&id), e),
    };
    let portable = serde_json::to_vec(&session.portable(now_ms()))
        .map_err(|e| e.to_string())
        .and_then(|plain| {
            incoming
                .core
                .rounds
                .sealer()
                .seal_with(SESSION_PURPOSE.as_bytes(), &plain)
        })
        .ok()
        .filter(|id| id.len() <= MAX_PORTABLE_ID);
    let session_id = match portable.map_or_else(|| crate::policy::seal::random_token(32), Ok) {
        Ok(token) => token,
        Err(e) => {
            tracing::error!("cannot mint a session id: {e}");
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Some(&id),
                RpcError::internal("Internal error: no session could be opened"),
            );
        }
    };
    let entry = open_entry(incoming.core, session);
    incoming.sessions.insert(session_id.clone(), entry);
    let mut response = json(StatusCode::OK, &result_response(&id, result));
    if let Ok(value) = HeaderValue::from_str(&session_id) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

fn notify(entry: &HttpSession, method: &str, params: Option<&Params>) {
    if method == "notifications/cancelled" {
        entry.in_flight.cancel(params);
    }
    entry.session.handle_notification(method);
}

/// Methods whose handlers can ask the client something or report progress.
fn streams(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

async fn request(
    incoming: &Incoming<'_>,
    entry: &Arc<HttpSession>,
    id: RequestId,
    method: String,
    params: Option<Params>,
    meta: Option<Meta>,
) -> Response {
    let core = incoming.core.clone();
    let mut inbound = Inbound::new(Transport::Http);
    inbound.principal = incoming.principal.clone();
    if !streams(&method) {
        inbound.notifier = Some(Notifier::with_sink(entry.standalone.clone()));
        let message = entry
            .session
            .handle_request(&core, id, method, params, meta, inbound)
            .await;
        let response = super::render::json_bytes(StatusCode::OK, message.to_bytes());
        return super::auth::scope_rule(incoming.auth, message.challenge_scopes(), response);
    }
    if entry.in_flight.contains(&id) {
        return error(StatusCode::BAD_REQUEST, Some(&id), InFlight::duplicate(&id));
    }
    let sse = accepts_event_stream(incoming.headers);
    // Without an event stream on this response, what the handler sends the client goes on
    // the session's own stream.
    let log = entry.new_stream(incoming.sessions.config.replay_events);
    let sink: Arc<EventLog> = if sse {
        log.clone()
    } else {
        entry.standalone.clone()
    };
    inbound.notifier = Some(Notifier::with_sink(sink));
    let cancel = inbound.cancel.clone();
    let notifier = inbound.notifier.clone();
    let session = entry.session.clone();
    let task_entry = entry.clone();
    let task_log = log.clone();
    let key = id.clone();
    // The scopes of a response that refuses for want of them, kept for the scope rule
    // should the response go out as plain JSON (a refusal comes before the handler runs,
    // so first).
    let refusal = Arc::new(std::sync::OnceLock::<Vec<String>>::new());
    let task_refusal = refusal.clone();
    let mut run = Box::pin(async move {
        // A cancelled (aborted) request still ends its stream, with no response.
        let ending = Ending(task_log);
        let message = session
            .handle_request(&core, id.clone(), method, params, meta, inbound)
            .await;
        task_entry.in_flight.finish(&id);
        if !message.challenge_scopes().is_empty() {
            let _ = task_refusal.set(message.challenge_scopes().to_vec());
        }
        ending.0.finish(message.to_bytes());
    });
    // Most requests finish without waiting on anything: those are answered right here.
    // Only one that waits becomes a task of its own, which goes on if the client goes
    // away and which a cancellation can stop. Until then it was never registered, so a
    // cancellation arriving meanwhile finds it finished, as the specification allows.
    if futures_util::FutureExt::now_or_never(&mut run).is_none() {
        entry
            .in_flight
            .spawn(key, cancel, notifier, || tokio::spawn(run).abort_handle());
    }
    let retry = incoming.sessions.config.sse_retry;
    let prime = entry.session.version >= "2025-11-25";
    match log.first_event().await {
        First::Only(message) => {
            let scopes = refusal.get().map_or(&[][..], Vec::as_slice);
            super::auth::scope_rule(incoming.auth, scopes, json_bytes(message))
        }
        First::Events => stream_to(entry, log, 0, prime, Some(retry)),
        // Cancelled before anything was written: nothing is answered, as the client asked.
        First::Gone => StatusCode::NO_CONTENT.into_response(),
    }
}

/// Ends a response stream when its request's task ends, however it ends.
struct Ending(Arc<EventLog>);

impl Drop for Ending {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// A response that is the request's only event, as plain JSON.
fn json_bytes(bytes: Bytes) -> Response {
    super::render::json_bytes(StatusCode::OK, bytes)
}

/// A 2025-03-26 batch: every message handled, the requests' responses in one array. What
/// the handlers send the client goes on the session's own stream.
async fn batch(incoming: &Incoming<'_>, entry: &Arc<HttpSession>, items: Vec<Value>) -> Response {
    let inbound = || {
        let mut inbound = Inbound::new(Transport::Http);
        inbound.principal = incoming.principal.clone();
        inbound.notifier = Some(Notifier::with_sink(entry.standalone.clone()));
        inbound
    };
    let cancel = |params: Option<&Params>| entry.in_flight.cancel(params);
    match entry.session.batch(incoming.core, items, inbound, cancel) {
        Ok(answers) => {
            let answers = answers.await;
            if answers.is_empty() {
                StatusCode::ACCEPTED.into_response()
            } else {
                json(StatusCode::OK, &Value::Array(answers))
            }
        }
        Err(refused) => error(StatusCode::BAD_REQUEST, None, refused),
    }
}

/// A `GET`: resume a stream after `Last-Event-ID`, or open the session's own stream.
pub(crate) fn get(incoming: Incoming<'_>) -> Response {
    let (_, entry) = match find(&incoming) {
        Ok(found) => found,
        Err(refusal) => return refusal.response(),
    };
    if !accepts_event_stream(incoming.headers) {
        return error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            RpcError::invalid_request("GET opens an event stream: accept text/event-stream"),
        );
    }
    let resume = header_text(incoming.headers, &names::LAST_EVENT_ID)
        .ok()
        .flatten()
        .and_then(parse_event_id);
    match resume.and_then(|(stream, seq)| entry.stream(stream).map(|log| (log, seq))) {
        Some((log, seq)) => {
            // Each message goes on one connection: an older one following this stream ends.
            log.take_over();
            stream_to(&entry, log, seq, false, None)
        }
        None => {
            if resume.is_some() {
                tracing::debug!(
                    "Last-Event-ID names a stream no longer kept; opening the session stream"
                );
            }
            let log = entry.standalone.clone();
            log.take_over();
            let after = log.last_seq();
            stream_to(&entry, log, after, false, None)
        }
    }
}

/// A `DELETE`: end the session.
pub(crate) fn delete(incoming: Incoming<'_>) -> Response {
    let (id, _) = match find(&incoming) {
        Ok(found) => found,
        Err(refusal) => return refusal.response(),
    };
    if let Some(entry) = incoming.sessions.remove(id) {
        entry.end();
        tracing::info!("handshake-era session ended by the client");
    }
    StatusCode::OK.into_response()
}

/// Follow `log` on this connection, as one of the session's open streams.
fn stream_to(
    entry: &Arc<HttpSession>,
    log: Arc<EventLog>,
    after: u64,
    prime: bool,
    release: Option<std::time::Duration>,
) -> Response {
    let ended = entry.session.ended.clone();
    follow(log, after, prime, release, ended, Box::new(entry.connect()))
}

fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::era::legacy::LegacyConfig;
    use crate::protocol::meta;
    use serde_json::json;

    #[test]
    fn event_ids_name_stream_and_sequence() {
        assert_eq!(parse_event_id("3-17"), Some((3, 17)));
        assert_eq!(parse_event_id("0-0"), Some((0, 0)));
        assert_eq!(parse_event_id("x-1"), None);
        assert_eq!(parse_event_id("17"), None);
    }

    #[test]
    fn the_era_is_told_from_headers_and_body() {
        let frame = |body: Value| Frame::parse(body.to_string().as_bytes()).unwrap();
        let config = Eras::new(LegacyConfig::default());
        let mut headers = HeaderMap::new();
        assert!(claims(
            &config,
            &headers,
            &frame(json!({"method": "initialize"}))
        ));
        assert!(!claims(
            &config,
            &headers,
            &frame(json!({"method": "tools/list"}))
        ));
        headers.insert(SESSION_HEADER, HeaderValue::from_static("abc"));
        assert!(claims(
            &config,
            &headers,
            &frame(json!({"method": "tools/list"}))
        ));
        // A modern request is modern even when it carries a session id.
        let modern = json!({"method": "tools/list", "params": {"_meta": {meta::PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(!claims(&config, &headers, &frame(modern)));
        let modern_initialize = json!({"method": "initialize", "params": {"_meta": {meta::PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(!claims(
            &config,
            &HeaderMap::new(),
            &frame(modern_initialize)
        ));
        // A batch without a session is the modern adapter's to refuse.
        let batch = json!([{"method": "ping"}]);
        assert!(!claims(&config, &HeaderMap::new(), &frame(batch)));
        let mut headers = HeaderMap::new();
        headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2025-06-18"),
        );
        assert!(claims(
            &config,
            &headers,
            &frame(json!({"method": "tools/list"}))
        ));
        headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        assert!(!claims(
            &config,
            &headers,
            &frame(json!({"method": "tools/list"}))
        ));
    }
}
