//! Request-scoped notifications: progress and log messages a handler sends while its
//! request is in flight, and the cancellation signal it can wait on.
//!
//! They travel on the request's own response channel (interleaved frames on stdio, the
//! request's SSE stream on HTTP), always before the final response. Once the response is
//! on its way, or the client cancelled the request, the channel is closed, so a late
//! report from a spawned task is dropped rather than sent after the result or the
//! cancellation.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::protocol::LogLevel;

use super::RequestContext;

/// Where a request's outbound messages go: a transport's channel, or a resumable event
/// log. Transports implement it; handlers never see it.
pub trait FrameSink: Send + Sync + 'static {
    /// Queue one serialized JSON-RPC message without waiting; `false` when it cannot be
    /// queued (the transport is too far behind, or gone).
    fn offer(&self, frame: Vec<u8>) -> bool;

    /// The handler suggested letting go of the client's connection while it keeps
    /// working (see [`RequestContext::release_connection`]). Most sinks ignore it.
    fn release(&self) {}
}

impl FrameSink for mpsc::Sender<Vec<u8>> {
    fn offer(&self, frame: Vec<u8>) -> bool {
        self.try_send(frame).is_ok()
    }
}

/// A sink shared with others (a session's standalone stream, an event log).
#[cfg(feature = "legacy")]
struct Shared(Arc<dyn FrameSink>);

#[cfg(feature = "legacy")]
impl FrameSink for Shared {
    fn offer(&self, frame: Vec<u8>) -> bool {
        self.0.offer(frame)
    }

    fn release(&self) {
        self.0.release();
    }
}

/// Where one request's notifications go. Cheap to clone.
#[derive(Clone)]
pub struct Notifier {
    inner: Arc<NotifierInner<dyn FrameSink>>,
}

/// The sink is held in place (unsized, last), so a request's notifier is one allocation.
struct NotifierInner<S: ?Sized> {
    /// Checked and used under the lock, so closing or cancelling waits for a send in
    /// progress and nothing follows.
    state: Mutex<State>,
    sink: S,
}

/// Where a request's channel is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    /// The client cancelled the request: nothing more is sent for it, except the
    /// withdrawal of a question the server had asked the client (handshake era).
    Cancelled,
    /// The response is on its way.
    Closed,
}

impl Notifier {
    /// Notifications go into `tx` as serialized JSON-RPC messages.
    pub fn new(tx: mpsc::Sender<Vec<u8>>) -> Self {
        Notifier::over(tx)
    }

    /// Notifications go into `sink`.
    #[cfg(feature = "legacy")]
    pub fn with_sink(sink: Arc<dyn FrameSink>) -> Self {
        Notifier::over(Shared(sink))
    }

    fn over(sink: impl FrameSink) -> Self {
        Notifier {
            inner: Arc::new(NotifierInner {
                state: Mutex::new(State::Open),
                sink,
            }),
        }
    }

    /// Send a notification unless the request has finished. Never blocks: when the
    /// transport is this far behind, the notification is dropped (they are advisory).
    pub(crate) fn send(&self, method: &str, params: Value) {
        let message = crate::protocol::jsonrpc::notification(method, params);
        if !self.send_message(&message) {
            tracing::debug!(
                method,
                "dropped a notification: the request finished, or the transport is behind or gone"
            );
        }
    }

    /// Send any message (a server-to-client request, too) unless the request has
    /// finished; `false` when it could not be queued.
    pub(crate) fn send_message(&self, message: &Value) -> bool {
        self.send_in(&[State::Open], message)
    }

    /// Send the cancellation of a request the server itself sent the client, which stays
    /// allowed after the client cancelled the request that needed it.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn send_withdrawal(&self, message: &Value) -> bool {
        self.send_in(&[State::Open, State::Cancelled], message)
    }

    fn send_in(&self, allowed: &[State], message: &Value) -> bool {
        let state = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        if !allowed.contains(&state) {
            return false;
        }
        match serde_json::to_vec(message) {
            Ok(bytes) => self.inner.sink.offer(bytes),
            Err(e) => {
                tracing::error!("could not serialize a message: {e}");
                false
            }
        }
    }

    /// Pass the handler's suggestion to let go of the connection on to the transport.
    pub(crate) fn release(&self) {
        self.inner.sink.release();
    }

    /// Stop sending: the request's response is about to go out.
    pub fn close(&self) {
        *self.inner.state.lock().unwrap_or_else(|p| p.into_inner()) = State::Closed;
    }

    /// Stop sending: the client cancelled the request. Work it spawned may still hold a
    /// `Progress` or `Log`; what they report from now on is dropped.
    pub(crate) fn cancel(&self) {
        let mut state = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        if *state == State::Open {
            *state = State::Cancelled;
        }
    }
}

/// Reports progress of the current request to the client (`notifications/progress`).
///
/// Take it as a parameter. Reports are sent only when the client asked for progress (a
/// `progressToken` in the request's `_meta`); otherwise they cost nothing. Each report
/// must advance: a value not above the previous one is skipped, as the protocol requires.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Imports the rows of a file.
/// #[tool]
/// async fn import(rows: u32, progress: Progress) -> String {
///     for row in 1..=rows {
///         // .. import one row ..
///         progress.report(row as f64, Some(rows as f64));
///     }
///     format!("{rows} rows imported")
/// }
/// ```
#[derive(Clone)]
pub struct Progress {
    ctx: RequestContext,
}

impl Progress {
    pub(crate) fn new(ctx: RequestContext) -> Self {
        Progress { ctx }
    }

    /// Whether the client asked for progress on this request.
    pub fn is_requested(&self) -> bool {
        self.ctx.progress_token().is_some() && self.ctx.notifier().is_some()
    }

    /// Report `progress` (of `total`, when known).
    pub fn report(&self, progress: f64, total: Option<f64>) {
        self.send(progress, total, None);
    }

    /// Report progress with a human-readable message.
    pub fn report_with(&self, progress: f64, total: Option<f64>, message: &str) {
        self.send(progress, total, Some(message));
    }

    fn send(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        // A task has no stream for notifications: its progress is its status message.
        if self.ctx.is_task() {
            if progress.is_finite() {
                let amount = match total.filter(|t| t.is_finite() && *t > 0.0) {
                    Some(total) => format!("{progress}/{total}"),
                    None => format!("{progress}"),
                };
                self.ctx.set_status(match message {
                    Some(message) => format!("{message} ({amount})"),
                    None => format!("Progress: {amount}"),
                });
            }
            return;
        }
        let (Some(token), Some(notifier)) = (self.ctx.progress_token(), self.ctx.notifier()) else {
            return;
        };
        if !progress.is_finite() {
            return;
        }
        {
            let mut last = self.ctx.last_progress();
            if last.is_some_and(|last| progress <= last) {
                tracing::debug!(progress, "skipped a progress report that does not advance");
                return;
            }
            *last = Some(progress);
        }
        let mut params = serde_json::Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), json!(progress));
        if let Some(total) = total.filter(|t| t.is_finite()) {
            params.insert("total".into(), json!(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), json!(message));
        }
        notifier.send("notifications/progress", Value::Object(params));
    }
}

/// Sends log messages for the current request to the client (`notifications/message`).
///
/// The client opts in per request with `_meta["io.modelcontextprotocol/logLevel"]`; only
/// messages at or above that level are sent, and nothing at all without it. A server
/// with a handler taking `Log` declares the `logging` capability. This is the protocol's
/// deprecated logging feature, kept for clients that show server logs; for operations
/// use `tracing` (stderr, OpenTelemetry). Never log secrets or personal data.
///
/// A call that is, or is becoming, a task (see
/// [`RequestContext::start_task`](crate::RequestContext::start_task)) sends no log
/// message: the Tasks extension allows none for a task, on its call's stream or on a
/// `subscriptions/listen` stream. Say what the task is doing with
/// [`RequestContext::set_status`](crate::RequestContext::set_status) instead.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Re-indexes the catalog.
/// #[tool]
/// async fn reindex(log: Log) -> &'static str {
///     log.info("re-indexing started");
///     log.logger("indexer").debug(serde_json::json!({"shards": 4}));
///     "done"
/// }
/// ```
#[derive(Clone)]
pub struct Log {
    ctx: RequestContext,
    logger: Option<String>,
}

impl Log {
    pub(crate) fn new(ctx: RequestContext) -> Self {
        Log { ctx, logger: None }
    }

    /// The same sink, naming `logger` on every message.
    pub fn logger(&self, logger: impl Into<String>) -> Log {
        Log {
            ctx: self.ctx.clone(),
            logger: Some(logger.into()),
        }
    }

    /// Whether a message at `level` would be sent (never for a task).
    pub fn enabled(&self, level: LogLevel) -> bool {
        self.ctx.log_level().is_some_and(|min| level >= min)
            && self.ctx.notifier().is_some()
            // A task has no stream for notifications (S-372); unlike progress, a log
            // message has no place in the task's status either.
            && !self.ctx.is_task()
    }

    /// Send `data` (a string or any JSON) at `level`.
    pub fn log(&self, level: LogLevel, data: impl Into<Value>) {
        if !self.enabled(level) {
            return;
        }
        let Some(notifier) = self.ctx.notifier() else {
            return;
        };
        let mut params = serde_json::Map::new();
        params.insert("level".into(), json!(level.as_str()));
        params.insert("data".into(), data.into());
        if let Some(logger) = &self.logger {
            params.insert("logger".into(), json!(logger));
        }
        notifier.send("notifications/message", Value::Object(params));
    }

    /// Log at `debug`.
    pub fn debug(&self, data: impl Into<Value>) {
        self.log(LogLevel::Debug, data);
    }

    /// Log at `info`.
    pub fn info(&self, data: impl Into<Value>) {
        self.log(LogLevel::Info, data);
    }

    /// Log at `notice`.
    pub fn notice(&self, data: impl Into<Value>) {
        self.log(LogLevel::Notice, data);
    }

    /// Log at `warning`.
    pub fn warning(&self, data: impl Into<Value>) {
        self.log(LogLevel::Warning, data);
    }

    /// Log at `error`.
    pub fn error(&self, data: impl Into<Value>) {
        self.log(LogLevel::Error, data);
    }
}

/// The cancellation signal of the current request.
///
/// A request is cancelled when the client sends `notifications/cancelled` (stdio) or closes
/// the response stream (HTTP). The handler's future is then dropped at its next `.await`,
/// and no result is sent; work it spawned should watch this token and stop too.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Builds a report in the background.
/// #[tool]
/// async fn report(cancel: Cancellation) -> String {
///     let worker = tokio::spawn({
///         let cancel = cancel.clone();
///         async move {
///             tokio::select! {
///                 _ = cancel.cancelled() => None,
///                 _ = tokio::time::sleep(std::time::Duration::from_millis(10)) => Some("report"),
///             }
///         }
///     });
///     worker.await.ok().flatten().unwrap_or("cancelled").to_owned()
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Cancellation(pub(crate) CancellationToken);

impl Cancellation {
    /// Completes when the request is cancelled.
    pub async fn cancelled(&self) {
        self.0.cancelled().await;
    }

    /// Whether the request has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// The underlying token, to hand to code that takes a `tokio_util` token.
    pub fn token(&self) -> CancellationToken {
        self.0.clone()
    }
}
