//! stdio: newline-delimited JSON-RPC. One reader, one writer that owns the output (nothing
//! else writes there), handlers run concurrently. Progress and log notifications of a
//! request are interleaved on the output before its response; `notifications/cancelled`
//! stops a request (or a subscription) and nothing more is sent for it. EOF ends open
//! subscriptions with their closing result, lets in-flight calls finish, then the writer
//! flushes and the server returns.
//!
//! The first request that names an era decides the process's: `initialize` opens a
//! handshake-era session for the rest of the stream (with the `legacy` feature), a request
//! carrying 2026-07-28 `_meta` makes it modern. A request that is neither is answered by
//! the modern adapter's error and decides nothing. A request carrying 2026-07-28 `_meta`
//! is always served statelessly, even in a handshake-era process. Which era a request
//! belongs to is the era layer's answer (`Eras::select`); this module remembers the
//! process's choice. `framing` reads and writes the lines.

use std::sync::Arc;

#[cfg(feature = "legacy")]
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::core::{Core, Notifier, Transport};
#[cfg(feature = "legacy")]
use crate::era::legacy::Session;
use crate::era::modern::{self, Inbound};
use crate::era::{Era as Selected, Eras, Facts};
use crate::observe;
use crate::policy::limits::check_depth;
use crate::policy::principal::Principal;
use crate::protocol::jsonrpc::{error_response, Frame, Message};
use crate::protocol::meta::Meta;
use crate::protocol::Params;
use crate::protocol::{RequestId, RpcError};
use crate::transport::in_flight::InFlight;

mod framing;

#[cfg(unix)]
pub(crate) use framing::pipes;
use framing::{read_line, send, write_frames, Line, PartialLine};

/// A request as read from its line: id, method, params and `_meta` apart.
type Request = (RequestId, String, Option<Params>, Option<Meta>);

/// stdio limits.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// Longest accepted line in bytes.
    pub max_line_bytes: usize,
    /// The caller every request of this connection comes from.
    pub principal: Option<Principal>,
}

impl Default for StdioConfig {
    fn default() -> Self {
        StdioConfig {
            max_line_bytes: 4 * 1024 * 1024,
            principal: None,
        }
    }
}

/// The era this process speaks, fixed by its first request that names one.
enum Era {
    Undecided,
    Modern,
    #[cfg(feature = "legacy")]
    Legacy(Arc<Session>),
}

/// What one connection shares between its messages.
struct Connection {
    core: Arc<Core>,
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    eras: Eras,
    tx: mpsc::Sender<Vec<u8>>,
    in_flight: InFlight,
    /// Cancelled at EOF: open subscriptions end gracefully.
    closing: CancellationToken,
    /// Cancelled when the grace period after EOF (or a shutdown signal) runs out: calls
    /// still running stop and answer with a shutdown error.
    stop: CancellationToken,
    era: Era,
    /// Who every request of this connection comes from (the host vouches for it).
    principal: Option<Principal>,
    /// Responses of requests answered inline, joined by newlines, that go to the writer
    /// together once everything read so far is handled: one hand-over per burst rather
    /// than one per request.
    answered: Vec<u8>,
    /// The allocation of the last request future that finished inline, kept for the next
    /// request of the same type (see `spawn_request`). In a mutex only so that the
    /// connection is `Sync`; it is only ever reached through `&mut self`, without locking.
    recycled: Option<std::sync::Mutex<Box<dyn std::any::Any + Send>>>,
}

/// Where a request future runs: pinned in place, and empty once it finished.
struct Slot<Fut>(std::pin::Pin<Box<Option<Fut>>>);

/// Responses held in `Connection::answered` beyond this many bytes go out at once.
const ANSWERED_BATCH_BYTES: usize = 64 * 1024;

/// Serve until `reader` reaches EOF or `shutdown` completes, then give in-flight calls the
/// server's grace period to answer, stop the rest (they answer with a shutdown error) and
/// flush.
pub(crate) async fn serve<R, W>(
    core: Arc<Core>,
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))] eras: Eras,
    config: &StdioConfig,
    (reader, writer): (R, W),
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Vec<u8>>(1024);
    let writer_task = tokio::spawn(write_frames(writer, rx));
    let mut reader = BufReader::new(reader);
    let mut tasks = JoinSet::new();
    let core_stop = core.lifecycle.stop_token().child_token();
    let grace = core.lifecycle.grace;
    let mut connection = Connection {
        core,
        eras,
        tx: tx.clone(),
        in_flight: InFlight::default(),
        closing: CancellationToken::new(),
        stop: core_stop,
        era: Era::Undecided,
        principal: config.principal.clone(),
        answered: Vec::new(),
        recycled: None,
    };
    let mut line = PartialLine::default();
    tokio::pin!(shutdown);
    loop {
        // Everything read so far is handled (a line may have only partly arrived): the next
        // read may wait for input, so what was answered goes out first, as a client may
        // wait for it before it sends more.
        if reader.buffer().is_empty() {
            connection.hand_over().await;
        }
        let next = tokio::select! {
            next = read_line(&mut reader, &mut line, config.max_line_bytes) => next?,
            // A signal: read nothing more, as at EOF (a line half read is dropped).
            _ = &mut shutdown => Line::Eof,
        };
        match next {
            Line::Partial => continue,
            Line::Eof => break,
            Line::TooLong => {
                line.clear();
                let error = RpcError::invalid_request(format!(
                    "Message exceeds the {} byte limit of this server",
                    config.max_line_bytes
                ));
                send(&tx, &error_response(None, &error)).await;
            }
            Line::Complete => {
                if !line.bytes.iter().all(u8::is_ascii_whitespace) {
                    connection.handle_line(&line.bytes, &mut tasks).await;
                }
                line.clear();
            }
        }
        // Reap finished tasks so the set does not grow with the connection's lifetime.
        while tasks.try_join_next().is_some() {}
    }
    connection.hand_over().await;
    connection.closing.cancel();
    #[cfg(feature = "legacy")]
    if let Era::Legacy(session) = &connection.era {
        // Its change forwarder and any request waiting on the client stop.
        session.ended.cancel();
    }
    let finished = tokio::time::timeout(grace, join_all(&mut tasks))
        .await
        .is_ok();
    if !finished {
        tracing::warn!(
            "calls still running {} s after the end of input; stopping them",
            grace.as_secs_f64()
        );
        connection.stop.cancel();
        // Stopped calls answer at once; anything else still open (a subscription, a
        // request waiting on the client) is ended.
        if tokio::time::timeout(std::time::Duration::from_secs(1), join_all(&mut tasks))
            .await
            .is_err()
        {
            tasks.abort_all();
        }
    }
    drop(tx);
    drop(connection);
    match writer_task.await {
        Ok(result) => result,
        Err(e) => Err(std::io::Error::other(e)),
    }
}

/// Wait for every task of the set.
async fn join_all(tasks: &mut JoinSet<()>) {
    while tasks.join_next().await.is_some() {}
}

impl Connection {
    /// Send the responses answered inline to the writer.
    async fn hand_over(&mut self) {
        if !self.answered.is_empty() {
            let batch = std::mem::take(&mut self.answered);
            let _ = self.tx.send(batch).await;
        }
    }

    /// Keep an inline response for the next hand-over.
    async fn answered_inline(&mut self, response: Vec<u8>) {
        if response.is_empty() {
            return;
        }
        if !self.answered.is_empty() {
            // The writer ends the batch with a newline, as it ends every frame.
            self.answered.push(b'\n');
        }
        self.answered.extend_from_slice(&response);
        if self.answered.len() >= ANSWERED_BATCH_BYTES {
            self.hand_over().await;
        }
    }

    /// Answer a line that is no JSON-RPC message, traced as a `jsonrpc` failure.
    async fn not_jsonrpc(&self, id: Option<&RequestId>, error: &RpcError) {
        observe::refused(
            &self.core,
            Transport::Stdio,
            "jsonrpc",
            None,
            &error.message,
        );
        send(&self.tx, &error_response(id, error)).await;
    }

    async fn handle_line(&mut self, line: &[u8], tasks: &mut JoinSet<()>) {
        if let Err(error) = check_depth(line, self.core.limiter.limits().max_json_depth) {
            self.not_jsonrpc(None, &error).await;
            return;
        }
        let frame = match Frame::parse(line) {
            Ok(frame) => frame,
            Err(e) => {
                self.not_jsonrpc(None, &RpcError::parse_error(e)).await;
                return;
            }
        };
        #[cfg(feature = "legacy")]
        if let (Frame::Batch(_), Era::Legacy(session)) = (&frame, &self.era) {
            let session = session.clone();
            let Frame::Batch(items) = frame else {
                return;
            };
            self.batch(session, items, tasks).await;
            return;
        }
        match frame.into_message() {
            Err(malformed) => {
                self.not_jsonrpc(malformed.id.as_ref(), &malformed.error)
                    .await
            }
            Ok(Message::Request { id, .. }) if self.in_flight.contains(&id) => {
                send(
                    &self.tx,
                    &error_response(Some(&id), &InFlight::duplicate(&id)),
                )
                .await
            }
            Ok(Message::Request {
                id,
                method,
                params,
                meta,
            }) => self.request((id, method, params, meta), tasks).await,
            Ok(Message::Notification { method, params, .. }) => {
                if method == "notifications/cancelled" {
                    self.in_flight.cancel(params.as_ref());
                }
                #[cfg(feature = "legacy")]
                if let Era::Legacy(session) = &self.era {
                    session.handle_notification(&method);
                }
            }
            Ok(Message::Response { id, outcome }) => {
                match &self.era {
                    #[cfg(feature = "legacy")]
                    Era::Legacy(session) => session.handle_response(id, outcome),
                    _ => {
                        let _ = (id, outcome);
                        tracing::debug!("ignoring a response from the client: no request of the server is pending");
                    }
                }
            }
        }
    }

    async fn request(&mut self, request: Request, tasks: &mut JoinSet<()>) {
        let (id, method, params, meta) = request;
        let facts = Facts {
            in_session: self.in_session(),
            ..Facts::of(Some(&method), meta.as_ref())
        };
        match (self.eras.select(&facts), &self.era) {
            (Selected::Modern, _) => {
                // A request naming the stateless revision decides an undecided process.
                if facts.names_version && matches!(self.era, Era::Undecided) {
                    self.era = Era::Modern;
                }
                if method == "initialize" && matches!(self.era, Era::Modern) && !facts.names_version
                {
                    self.refuse_handshake(&id).await;
                    return;
                }
                self.modern_request((id, method, params, meta), tasks).await;
            }
            #[cfg(feature = "legacy")]
            (Selected::Legacy, Era::Legacy(session)) => {
                let session = session.clone();
                self.legacy_request(session, (id, method, params, meta), tasks)
                    .await;
            }
            // Not in a session: this is an `initialize`.
            #[cfg(feature = "legacy")]
            (Selected::Legacy, Era::Undecided) => {
                self.initialize(id, params.as_ref(), tasks).await;
            }
            #[cfg(feature = "legacy")]
            (Selected::Legacy, Era::Modern) => self.refuse_handshake(&id).await,
        }
    }

    /// Whether the process speaks the handshake era (its `initialize` opened a session).
    fn in_session(&self) -> bool {
        #[cfg(feature = "legacy")]
        if let Era::Legacy(_) = self.era {
            return true;
        }
        false
    }

    /// An `initialize` after the process chose the stateless revision.
    async fn refuse_handshake(&self, id: &RequestId) {
        let error = RpcError::invalid_request(
            "This connection already speaks protocol version 2026-07-28 (its first request chose it); the initialize handshake needs a new connection",
        );
        send(&self.tx, &error_response(Some(id), &error)).await;
    }

    #[cfg(feature = "legacy")]
    async fn initialize(
        &mut self,
        id: RequestId,
        params: Option<&Params>,
        tasks: &mut JoinSet<()>,
    ) {
        use crate::protocol::jsonrpc::result_response;
        let started = std::time::Instant::now();
        let opened = Session::initialize(
            &self.core,
            &self.eras.legacy,
            params,
            self.principal.as_ref(),
        );
        crate::observe::count_initialize(&self.core, opened.as_ref().err(), started);
        match opened {
            Ok((session, result)) => {
                send(&self.tx, &result_response(&id, result)).await;
                let sink: Arc<dyn crate::core::FrameSink> = Arc::new(self.tx.clone());
                tasks.spawn(session.clone().forward_changes(&self.core, sink));
                self.era = Era::Legacy(session);
            }
            Err(error) => send(&self.tx, &error_response(Some(&id), &error)).await,
        }
    }

    /// Run a handshake-era request as a task; its notifications and the server's requests
    /// to the client go out on stdout before its response.
    #[cfg(feature = "legacy")]
    async fn legacy_request(
        &mut self,
        session: Arc<Session>,
        (id, method, params, meta): Request,
        tasks: &mut JoinSet<()>,
    ) {
        let core = self.core.clone();
        let notifier = Some(Notifier::new(self.tx.clone()));
        self.spawn_request(id.clone(), notifier, tasks, move |inbound| async move {
            session
                .handle_request(&core, id, method, params, meta, inbound)
                .await
                .to_bytes()
        })
        .await;
    }

    /// A 2025-03-26 batch: its requests run together and are answered in one array.
    #[cfg(feature = "legacy")]
    async fn batch(&mut self, session: Arc<Session>, items: Vec<Value>, tasks: &mut JoinSet<()>) {
        let tx = self.tx.clone();
        let principal = self.principal.clone();
        let stop = self.stop.clone();
        let inbound = || Inbound {
            transport: Transport::Stdio,
            notifier: Some(Notifier::new(tx.clone())),
            cancel: CancellationToken::new(),
            stop: stop.clone(),
            principal: principal.clone(),
        };
        let in_flight = self.in_flight.clone();
        match session.batch(&self.core, items, inbound, |params| {
            in_flight.cancel(params)
        }) {
            Ok(answers) => {
                tasks.spawn(async move {
                    let answers = answers.await;
                    if !answers.is_empty() {
                        send(&tx, &Value::Array(answers)).await;
                    }
                });
            }
            Err(error) => send(&self.tx, &error_response(None, &error)).await,
        }
    }

    async fn modern_request(&mut self, request: Request, tasks: &mut JoinSet<()>) {
        let (id, method, params, meta) = request;

        if method == "subscriptions/listen" {
            let mut subscription =
                match modern::listen(&self.core, &id, params, meta, self.principal.as_ref()) {
                    Ok(subscription) => subscription,
                    Err(answer) => {
                        let _ = self.tx.send(answer.to_bytes()).await;
                        return;
                    }
                };
            let tx = self.tx.clone();
            let closing = self.closing.clone();
            self.in_flight
                .spawn(id, CancellationToken::new(), None, || {
                    tasks.spawn(async move {
                        send(&tx, &subscription.acknowledgement()).await;
                        loop {
                            tokio::select! {
                                _ = closing.cancelled() => break,
                                next = subscription.next() => match next {
                                    Some(message) => send(&tx, &message).await,
                                    None => break,
                                },
                            }
                        }
                        // The server ends the subscription: its result, then (stdio only) the
                        // cancellation naming it, as the specification asks of a teardown.
                        send(&tx, &subscription.closing_result()).await;
                        let cancelled = subscription.cancellation("server shutting down");
                        send(&tx, &cancelled).await;
                    })
                });
            return;
        }
        let core = self.core.clone();
        // A channel only for requests that asked for progress or log messages.
        let notifier = modern::wants_stream(meta.as_ref()).then(|| Notifier::new(self.tx.clone()));
        self.spawn_request(id.clone(), notifier, tasks, move |inbound| async move {
            modern::handle_request(&core, id, method, params, meta, inbound)
                .await
                .to_bytes()
        })
        .await;
    }

    /// Run a request as a task registered for cancellation; its response goes out unless
    /// the client cancelled the request first.
    async fn spawn_request<F, Fut>(
        &mut self,
        id: RequestId,
        notifier: Option<Notifier>,
        tasks: &mut JoinSet<()>,
        serve: F,
    ) where
        F: FnOnce(Inbound) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Vec<u8>> + Send + 'static,
    {
        let tx = self.tx.clone();
        let registry = self.in_flight.clone();
        let cancel = CancellationToken::new();
        let inbound = Inbound {
            transport: Transport::Stdio,
            notifier: notifier.clone(),
            cancel: cancel.clone(),
            stop: self.stop.clone(),
            principal: self.principal.clone(),
        };
        let key = id.clone();
        // A request's future is a few KiB: more than the allocator keeps in its per-thread
        // caches, so allocating and freeing one for every request takes its slow path.
        // Requests that finish inline leave their allocation for the next one.
        let recycled = self.recycled.take().and_then(|kept| kept.into_inner().ok());
        let mut slot = match recycled.map(|any| any.downcast::<Slot<Fut>>()) {
            Some(Ok(slot)) => slot,
            _ => Box::new(Slot(Box::pin(None))),
        };
        slot.0.set(Some(serve(inbound)));
        // Most requests finish without waiting on anything: answer those right here,
        // without a task (nothing can cancel them in the meantime: this loop reads the
        // next message only afterwards).
        let done = slot
            .0
            .as_mut()
            .as_pin_mut()
            .and_then(futures_util::FutureExt::now_or_never);
        if let Some(response) = done {
            slot.0.set(None);
            self.recycled = Some(std::sync::Mutex::new(slot));
            self.answered_inline(response).await;
            return;
        }
        let Slot(mut future) = *slot;
        self.in_flight.spawn(id, cancel, notifier, || {
            tasks.spawn(async move {
                // Always there: it was set above and has not finished.
                let Some(future) = future.as_mut().as_pin_mut() else {
                    return;
                };
                let response = future.await;
                // Unregister before sending: a cancellation arriving now finds nothing to
                // abort, and a cancelled request's response is not sent.
                if registry.finish(&key) {
                    let _ = tx.send(response).await;
                }
            })
        });
    }
}
