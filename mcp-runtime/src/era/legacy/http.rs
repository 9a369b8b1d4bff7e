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

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::clock::now_ms;
use crate::core::{Core, FrameSink, Notifier, Transport};
use crate::era::Inbound;
use crate::policy::auth::Principal;
use crate::protocol::jsonrpc::{error_response, result_response, Envelope, Frame, Message};
use crate::protocol::{meta, version, RequestId, RpcError};
use crate::transport::http::{accepts_event_stream, header_text, json, names};
use crate::transport::in_flight::InFlight;

use super::{LegacyConfig, Session};

/// Header naming the session.
pub(crate) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");

/// Finished response streams kept per session for clients that come back for them.
const KEPT_STREAMS: usize = 16;

/// What a sealed session id is bound to.
const SESSION_PURPOSE: &str = "mcp-session-id";

/// How long after `initialize` a session id can open its session on another instance.
const PORTABLE_FOR: Duration = Duration::from_secs(24 * 3600);

/// Longest portable id; a larger session (huge capabilities) gets a random, local id.
const MAX_PORTABLE_ID: usize = 4096;

/// Ended session ids remembered so they do not open again here.
const MAX_ENDED: usize = 100_000;

/// Events kept on a session's own stream (list changes and resource updates, which a
/// client that missed some only needs to see once to list or read again).
const SESSION_STREAM_EVENTS: usize = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock only means a task panicked mid-update; the data stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether a `POST` belongs to the handshake era: an `initialize`, a named session, or a
/// handshake revision in `MCP-Protocol-Version`. A request that names the stateless
/// revision (header or `_meta`) is modern, whatever else it carries.
pub(crate) fn claims(config: &LegacyConfig, headers: &HeaderMap, body: &Frame) -> bool {
    let header_version = header_text(headers, &names::MCP_PROTOCOL_VERSION)
        .ok()
        .flatten();
    if header_version.is_some_and(|v| version::MODERN_VERSIONS.contains(&v)) {
        return false;
    }
    let envelope = body.envelope();
    let meta_version = envelope
        .and_then(Envelope::params)
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION));
    if meta_version.is_some() {
        return false;
    }
    envelope.and_then(Envelope::method) == Some("initialize")
        || headers.contains_key(SESSION_HEADER)
        || header_version.is_some_and(|v| config.speaks(v))
}

/// One session as HTTP sees it: the era state plus its streams and running requests.
struct HttpSession {
    session: Arc<Session>,
    /// The session's own stream (id 0): list changes, resource updates, and requests to
    /// clients that do not take event streams on `POST`.
    standalone: Arc<EventLog>,
    /// Response streams of `POST` requests, newest last.
    posts: Mutex<VecDeque<Arc<EventLog>>>,
    next_stream: AtomicU64,
    last_seen: Mutex<Instant>,
    /// Streams a client is connected to; a session with one is never idle.
    open_streams: AtomicUsize,
    in_flight: InFlight,
}

impl HttpSession {
    fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_seen).elapsed()
    }

    fn is_busy(&self) -> bool {
        self.open_streams.load(Ordering::Relaxed) > 0 || !self.in_flight.is_empty()
    }

    fn end(&self) {
        self.session.ended.cancel();
        self.in_flight.cancel_all();
        self.standalone.close();
    }

    fn new_stream(&self, capacity: usize) -> Arc<EventLog> {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let log = Arc::new(EventLog::new(id, capacity));
        let mut posts = lock(&self.posts);
        posts.push_back(log.clone());
        // Forget the oldest finished streams beyond the limit; running ones stay.
        while posts.len() > KEPT_STREAMS {
            match posts.iter().position(|l| l.is_done()) {
                Some(i) => {
                    posts.remove(i);
                }
                None => break,
            }
        }
        log
    }

    fn stream(&self, id: u64) -> Option<Arc<EventLog>> {
        if id == 0 {
            return Some(self.standalone.clone());
        }
        lock(&self.posts).iter().find(|l| l.stream == id).cloned()
    }
}

/// The session store: bounded, with idle expiry checked on use.
pub(crate) struct Sessions {
    config: Arc<LegacyConfig>,
    map: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// Sessions ended here (DELETE, idle expiry, eviction), with when: their ids stay
    /// ended for as long as they could otherwise open again.
    ended: Mutex<HashMap<String, Instant>>,
    /// When expired sessions were last swept out.
    swept: Mutex<Instant>,
}

impl Sessions {
    pub(crate) fn new(config: Arc<LegacyConfig>) -> Self {
        Sessions {
            config,
            map: Mutex::default(),
            ended: Mutex::default(),
            swept: Mutex::new(Instant::now()),
        }
    }

    fn expired(&self, entry: &HttpSession) -> bool {
        entry.idle_for() >= self.config.session_idle_timeout && !entry.is_busy()
    }

    /// End expired sessions: on every insert, and otherwise at most every quarter of the
    /// idle timeout, so sessions nobody comes back to do not linger with their tasks.
    fn sweep(&self, map: &mut HashMap<String, Arc<HttpSession>>, force: bool) {
        {
            let mut swept = lock(&self.swept);
            if !force && swept.elapsed() < self.config.session_idle_timeout / 4 {
                return;
            }
            *swept = Instant::now();
        }
        let expired: Vec<String> = map
            .iter()
            .filter(|(_, e)| self.expired(e))
            .map(|(k, _)| k.clone())
            .collect();
        for key in expired {
            if let Some(gone) = map.remove(&key) {
                tracing::debug!("a session expired after being idle");
                gone.end();
                self.remember_ended(key);
            }
        }
    }

    /// Keep `id` from opening again here.
    fn remember_ended(&self, id: String) {
        let mut ended = lock(&self.ended);
        if ended.len() >= MAX_ENDED {
            ended.retain(|_, at| at.elapsed() < PORTABLE_FOR);
            if ended.len() >= MAX_ENDED {
                // Still full: forget the oldest half rather than grow without bound.
                let mut ages: Vec<Instant> = ended.values().copied().collect();
                ages.sort_unstable();
                if let Some(cut) = ages.get(ages.len() / 2).copied() {
                    ended.retain(|_, at| *at > cut);
                }
            }
        }
        ended.insert(id, Instant::now());
    }

    fn was_ended(&self, id: &str) -> bool {
        lock(&self.ended).contains_key(id)
    }

    fn insert(&self, id: String, entry: Arc<HttpSession>) {
        let mut map = lock(&self.map);
        self.sweep(&mut map, true);
        while map.len() >= self.config.max_sessions.max(1) {
            let oldest = map
                .iter()
                .max_by_key(|(_, e)| e.idle_for())
                .map(|(k, _)| k.clone());
            match oldest.and_then(|key| map.remove(&key).map(|gone| (key, gone))) {
                Some((key, gone)) => {
                    tracing::info!("session store full: ended the least recently used session");
                    gone.end();
                    self.remember_ended(key);
                }
                None => break,
            }
        }
        map.insert(id, entry);
    }

    /// Open the session a portable id names, unless it is open here already (then that
    /// one), ended here, expired, not this server's, or another principal's.
    fn revive(
        &self,
        core: &Arc<Core>,
        id: &str,
        principal: Option<&Principal>,
    ) -> Option<Arc<HttpSession>> {
        if self.was_ended(id) {
            return None;
        }
        let plain = core
            .rounds
            .sealer()
            .open_with(SESSION_PURPOSE.as_bytes(), id, MAX_PORTABLE_ID)
            .ok()?;
        let portable: super::session::Portable = serde_json::from_slice(&plain).ok()?;
        let (session, opened_ms) = Session::restore(&self.config, portable)?;
        let age = now_ms().saturating_sub(opened_ms);
        if u128::from(age) > PORTABLE_FOR.as_millis() || !session.admits(principal) {
            return None;
        }
        let mut map = lock(&self.map);
        if let Some(existing) = map.get(id) {
            // Opened by a request that came in at the same moment.
            return Some(existing.clone());
        }
        let entry = open_entry(core, session);
        map.insert(id.to_owned(), entry.clone());
        drop(map);
        tracing::info!("handshake-era session opened here from its portable id");
        Some(entry)
    }

    /// The live session `id`, if it exists, has not idled out and belongs to `principal`.
    fn get(&self, id: &str, principal: Option<&Principal>) -> Option<Arc<HttpSession>> {
        let mut map = lock(&self.map);
        self.sweep(&mut map, false);
        let entry = map.get(id)?.clone();
        if self.expired(&entry) {
            map.remove(id);
            drop(map);
            entry.end();
            self.remember_ended(id.to_owned());
            tracing::debug!("a session expired after being idle");
            return None;
        }
        if !entry.session.admits(principal) {
            tracing::warn!("refused a session id presented by another principal");
            return None;
        }
        entry.touch();
        Some(entry)
    }

    fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        let gone = lock(&self.map).remove(id);
        self.remember_ended(id.to_owned());
        gone
    }

    /// End every session (the server is shutting down).
    pub(crate) fn end_all(&self) {
        for (_, entry) in lock(&self.map).drain() {
            entry.end();
        }
    }
}

/// What a request needs from the HTTP transport.
pub(crate) struct Incoming<'a> {
    pub(crate) core: &'a Arc<Core>,
    pub(crate) sessions: &'a Arc<Sessions>,
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
fn find(incoming: &Incoming<'_>) -> Result<(String, Arc<HttpSession>), Refusal> {
    let id = header_text(incoming.headers, &SESSION_HEADER)
        .map_err(|_| Refusal::Malformed)?
        .ok_or(Refusal::Missing)?
        .to_owned();
    let principal = incoming.principal.as_ref();
    match incoming.sessions.get(&id, principal) {
        Some(entry) => Ok((id, entry)),
        None => match incoming.sessions.revive(incoming.core, &id, principal) {
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
        Ok(Message::Notification { method, params }) => {
            notify(&entry, &method, params.as_ref());
            StatusCode::ACCEPTED.into_response()
        }
        Ok(Message::Response { id, outcome }) => {
            entry.session.handle_response(id, outcome);
            StatusCode::ACCEPTED.into_response()
        }
        Ok(Message::Request { id, method, params }) => {
            request(&incoming, &entry, id, method, params).await
        }
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

/// A session's HTTP side, with its forwarder of list changes started.
fn open_entry(core: &Arc<Core>, session: Arc<Session>) -> Arc<HttpSession> {
    let entry = Arc::new(HttpSession {
        session: session.clone(),
        standalone: Arc::new(EventLog::new(0, SESSION_STREAM_EVENTS)),
        posts: Mutex::default(),
        next_stream: AtomicU64::new(1),
        last_seen: Mutex::new(Instant::now()),
        open_streams: AtomicUsize::new(0),
        in_flight: InFlight::default(),
    });
    tokio::spawn(session.forward_changes(core, entry.standalone.clone() as Arc<dyn FrameSink>));
    entry
}

fn notify(entry: &HttpSession, method: &str, params: Option<&Map<String, Value>>) {
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
    params: Option<Map<String, Value>>,
) -> Response {
    let core = incoming.core.clone();
    let mut inbound = Inbound::new(Transport::Http);
    inbound.principal = incoming.principal.clone();
    if !streams(&method) {
        inbound.notifier = Some(Notifier::with_sink(entry.standalone.clone()));
        let message = entry
            .session
            .handle_request(&core, id, method, params, inbound)
            .await;
        return json(StatusCode::OK, &message);
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
    let mut run = Box::pin(async move {
        // A cancelled (aborted) request still ends its stream, with no response.
        let ending = Ending(task_log);
        let message = session
            .handle_request(&core, id.clone(), method, params, inbound)
            .await;
        task_entry.in_flight.finish(&id);
        ending.0.finish(&message);
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
        First::Only(message) => json_bytes(message),
        First::Events => follow(entry.clone(), log, 0, prime, Some(retry)),
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

fn json_bytes(bytes: Arc<[u8]>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        bytes.to_vec(),
    )
        .into_response()
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
    let cancel = |params: Option<&Map<String, Value>>| entry.in_flight.cancel(params);
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
            follow(entry.clone(), log, seq, false, None)
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
            follow(entry.clone(), log, after, false, None)
        }
    }
}

/// A `DELETE`: end the session.
pub(crate) fn delete(incoming: Incoming<'_>) -> Response {
    let (id, _) = match find(&incoming) {
        Ok(found) => found,
        Err(refusal) => return refusal.response(),
    };
    if let Some(entry) = incoming.sessions.remove(&id) {
        entry.end();
        tracing::info!("handshake-era session ended by the client");
    }
    StatusCode::OK.into_response()
}

fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

// ---- resumable event logs ------------------------------------------------------------

/// The events of one stream, kept for replay: a `POST` response stream (ends with the
/// response) or a session's own stream (a ring of the latest events).
pub(crate) struct EventLog {
    stream: u64,
    capacity: usize,
    inner: Mutex<LogInner>,
    changed: Notify,
}

#[derive(Default)]
struct LogInner {
    events: VecDeque<(u64, Arc<[u8]>)>,
    last_seq: u64,
    /// The response is in: nothing follows it.
    done: bool,
    /// The handler let go of the connection: the first follower ends.
    released: bool,
    /// Bumped when a new client connection takes the stream over.
    generation: u64,
}

enum First {
    /// The request finished with nothing before its response.
    Only(Arc<[u8]>),
    /// Something precedes the response (or the connection was let go): stream.
    Events,
    /// The log was closed without a response (the request was cancelled).
    Gone,
}

impl EventLog {
    fn new(stream: u64, capacity: usize) -> Self {
        EventLog {
            stream,
            capacity: capacity.max(1),
            inner: Mutex::default(),
            changed: Notify::new(),
        }
    }

    fn push(&self, frame: Arc<[u8]>) -> bool {
        let mut inner = lock(&self.inner);
        if inner.done {
            return false;
        }
        inner.last_seq += 1;
        let seq = inner.last_seq;
        inner.events.push_back((seq, frame));
        while inner.events.len() > self.capacity {
            inner.events.pop_front();
        }
        drop(inner);
        self.changed.notify_waiters();
        true
    }

    /// Append the response and end the stream.
    fn finish(&self, message: &Value) {
        let frame: Arc<[u8]> = serde_json::to_vec(message).unwrap_or_default().into();
        self.push(frame);
        self.close();
    }

    fn close(&self) {
        lock(&self.inner).done = true;
        self.changed.notify_waiters();
    }

    fn is_done(&self) -> bool {
        lock(&self.inner).done
    }

    fn last_seq(&self) -> u64 {
        lock(&self.inner).last_seq
    }

    /// A new connection follows this stream; earlier ones end.
    fn take_over(&self) -> u64 {
        let mut inner = lock(&self.inner);
        inner.generation += 1;
        let generation = inner.generation;
        drop(inner);
        self.changed.notify_waiters();
        generation
    }

    async fn first_event(&self) -> First {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let inner = lock(&self.inner);
                if inner.done {
                    return match (inner.events.len(), inner.events.back()) {
                        (1, Some((_, only))) if !inner.released => First::Only(only.clone()),
                        (0, _) => First::Gone,
                        _ => First::Events,
                    };
                }
                if !inner.events.is_empty() || inner.released {
                    return First::Events;
                }
            }
            notified.await;
        }
    }
}

impl FrameSink for EventLog {
    fn offer(&self, frame: Vec<u8>) -> bool {
        self.push(frame.into())
    }

    fn release(&self) {
        lock(&self.inner).released = true;
        self.changed.notify_waiters();
    }
}

/// What one follower does next.
enum Step {
    Send(u64, Arc<[u8]>),
    End,
    Released,
    Wait,
}

/// Counts a connected stream for the session's idle check.
struct Connected(Arc<HttpSession>);

impl Drop for Connected {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// Stream `log` to the client from after `after`: first a priming event (an id and no
/// data, so the client can resume from the start), then the events as they come. A
/// response stream ends after the response; with `release` set it also ends, with a
/// `retry` hint, when the handler lets go of the connection.
fn follow(
    entry: Arc<HttpSession>,
    log: Arc<EventLog>,
    after: u64,
    prime: bool,
    release: Option<Duration>,
) -> Response {
    entry.open_streams.fetch_add(1, Ordering::Relaxed);
    let generation = lock(&log.inner).generation;
    let ended = entry.session.ended.clone();
    let connected = Connected(entry);
    // Written by hand: an event with an id and an empty `data` field (which SSE writers
    // usually leave out) is what tells a client it can resume from here.
    let priming = prime.then(|| Bytes::from(format!("id: {}-{after}\ndata: \n\n", log.stream)));
    struct State {
        log: Arc<EventLog>,
        cursor: u64,
        generation: u64,
        priming: Option<Bytes>,
        release: Option<Duration>,
        ended: CancellationToken,
        finished: bool,
        _connected: Connected,
    }
    let state = State {
        log,
        cursor: after,
        generation,
        priming,
        release,
        ended,
        finished: false,
        _connected: connected,
    };
    let events = futures_util::stream::unfold(state, |mut state| async move {
        if state.finished {
            return None;
        }
        if let Some(priming) = state.priming.take() {
            return Some((Ok::<Bytes, Infallible>(priming), state));
        }
        loop {
            let log = state.log.clone();
            let notified = log.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let step = {
                let inner = lock(&state.log.inner);
                if inner.generation != state.generation {
                    Step::End
                } else if let Some((seq, frame)) =
                    inner.events.iter().find(|(seq, _)| *seq > state.cursor)
                {
                    Step::Send(*seq, frame.clone())
                } else if inner.done {
                    Step::End
                } else if inner.released && state.release.is_some() {
                    Step::Released
                } else {
                    Step::Wait
                }
            };
            match step {
                Step::Send(seq, frame) => {
                    state.cursor = seq;
                    // Frames are compact JSON: one line, so one `data` field.
                    let mut event = format!("id: {}-{seq}\ndata: ", state.log.stream).into_bytes();
                    event.extend_from_slice(&frame);
                    event.extend_from_slice(b"\n\n");
                    return Some((Ok(Bytes::from(event)), state));
                }
                Step::End => return None,
                Step::Released => {
                    state.finished = true;
                    let retry = state.release.unwrap_or(Duration::from_secs(1));
                    let hint = format!("retry: {}\n\n", retry.as_millis());
                    return Some((Ok(Bytes::from(hint)), state));
                }
                Step::Wait => {
                    tokio::select! {
                        _ = notified => {}
                        _ = state.ended.cancelled() => return None,
                        // A comment now and then keeps proxies from closing a quiet stream.
                        _ = tokio::time::sleep(KEEP_ALIVE) => {
                            return Some((Ok(Bytes::from_static(b":\n\n")), state));
                        }
                    }
                }
            }
        }
    });
    let mut response = Response::new(axum::body::Body::from_stream(events));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies such as nginx must not buffer the stream.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// How long a stream stays quiet before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

#[cfg(test)]
mod tests {
    use super::*;
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
        let config = LegacyConfig::default();
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

    #[tokio::test]
    async fn a_log_answers_json_when_only_the_response_was_written() {
        let log = EventLog::new(1, 8);
        log.finish(&json!({"id": 1}));
        assert!(matches!(log.first_event().await, First::Only(_)));
        let log = EventLog::new(2, 8);
        log.offer(b"{}".to_vec());
        assert!(matches!(log.first_event().await, First::Events));
        let log = EventLog::new(3, 8);
        log.release();
        assert!(matches!(log.first_event().await, First::Events));
    }

    #[test]
    fn a_log_keeps_only_its_capacity() {
        let log = EventLog::new(0, 2);
        for i in 0..5u8 {
            log.offer(vec![i]);
        }
        let inner = lock(&log.inner);
        let seqs: Vec<u64> = inner.events.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, vec![4, 5]);
    }
}
