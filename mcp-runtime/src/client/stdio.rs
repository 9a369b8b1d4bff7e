//! The client's stdio transport: a spawned server process, one JSON-RPC message per line
//! on its stdin and stdout. A reader task routes what the server writes: responses to the
//! call waiting for them (by id), progress to that call's sink, log messages to the log
//! handler, and the server's own requests (handshake era: questions, `ping`) to the
//! client's handlers, whose answers go back on the same pipe.
//!
//! Nothing the server does grows the client without bound: a line longer than the
//! message limit ends the connection, the lines waiting to be written are few (when the
//! server stops reading, the reader stops reading too, until it does), and the server's
//! requests are answered a bounded number at a time, the excess refused at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot, Semaphore};
use tokio_util::sync::CancellationToken;

use super::error::ClientError;
use super::limits::Limits;
use super::weight;
use super::wire::{Call, Host, Listening, Sink, SUBSCRIPTION_BACKLOG};
use crate::protocol::codes;
use crate::protocol::exchange::Question;
use crate::protocol::meta::SUBSCRIPTION_ID;

/// How long [`Pipe::close`] waits for the server to exit on its own after its stdin
/// closed, before it kills it.
const EXIT_GRACE: Duration = Duration::from_secs(5);
/// How many lines may wait for the server to read them. A server that stops reading holds
/// the client's writes (and, through them, its reading) once this many are queued.
const OUTGOING: usize = 64;

/// One spawned server.
pub(crate) struct Pipe {
    state: Arc<State>,
    child: tokio::sync::Mutex<Option<Child>>,
}

/// What the reader task and the calls share.
struct State {
    lines: mpsc::Sender<Vec<u8>>,
    /// Closing stdin: the writer task stops and drops it, so the server sees EOF.
    closing: CancellationToken,
    pending: Mutex<HashMap<u64, oneshot::Sender<Value>>>,
    progress: Mutex<HashMap<String, Sink>>,
    /// Open `subscriptions/listen` streams, by the listen request's id.
    subscriptions: Mutex<HashMap<u64, Subscribed>>,
    /// Why the pipe ended, once it has.
    ended: Mutex<Option<ClientError>>,
    host: Arc<Host>,
    /// One permit per server request being answered.
    answering: Arc<Semaphore>,
    limits: Limits,
    /// Set once the connection speaks 2026-07-28, which has no requests from the server.
    modern: std::sync::atomic::AtomicBool,
    /// The questions asked since no request of the client was waiting last: at most
    /// `max_rounds` for each request waiting.
    asked: std::sync::atomic::AtomicUsize,
}

/// An open subscription: where its notifications go, and how to cancel it.
struct Subscribed {
    stream: mpsc::Sender<Value>,
    cancel: Option<Value>,
}

/// `message` as a line of the pipe.
fn line_of(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

impl State {
    /// Queue `message` for the server, waiting while the queue is full (the server is not
    /// reading).
    async fn write(&self, message: &Value) -> Result<(), ClientError> {
        self.lines
            .send(line_of(message))
            .await
            .map_err(|_| self.why_ended())
    }

    /// Queue `message` if there is room; a notification from a destructor, which cannot
    /// wait (a server whose queue is full is not reading it anyway).
    fn try_write(&self, message: &Value) {
        let _ = self.lines.try_send(line_of(message));
    }

    fn why_ended(&self) -> ClientError {
        lock(&self.ended)
            .clone()
            .unwrap_or_else(|| ClientError::transport("the server's input is closed"))
    }

    fn end(&self, why: ClientError) {
        lock(&self.ended).get_or_insert(why);
        // Dropping the senders wakes every waiting call and ends every subscription.
        lock(&self.pending).clear();
        lock(&self.subscriptions).clear();
        // The server sees its input close.
        self.closing.cancel();
    }
}

/// A std mutex's guard, also after a panic elsewhere poisoned it (the maps stay valid).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Pipe {
    /// Start `command` with its stdin and stdout piped to this client.
    pub(crate) fn spawn(
        mut command: Command,
        host: Arc<Host>,
        limits: Limits,
    ) -> Result<Pipe, ClientError> {
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let mut child = command
            .spawn()
            .map_err(|e| ClientError::transport(format!("could not start {program}: {e}")))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::transport(
                "the server's stdin or stdout is not piped",
            ));
        };
        let (lines, mut outgoing) = mpsc::channel::<Vec<u8>>(OUTGOING);
        let closing = CancellationToken::new();
        let state = Arc::new(State {
            lines,
            closing: closing.clone(),
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashMap::new()),
            ended: Mutex::new(None),
            host,
            answering: Arc::new(Semaphore::new(limits.server_requests)),
            limits,
            modern: std::sync::atomic::AtomicBool::new(false),
            asked: std::sync::atomic::AtomicUsize::new(0),
        });
        tokio::spawn(async move {
            loop {
                // What was queued before the pipe closed still goes out (a server that does
                // not read it is killed by `close`); then the server sees its input end.
                tokio::select! {
                    biased;
                    line = outgoing.recv() => {
                        let Some(line) = line else { break };
                        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                            break;
                        }
                    }
                    _ = closing.cancelled() => break,
                }
            }
        });
        let reader = Arc::downgrade(&state);
        let max = limits.message_bytes;
        tokio::spawn(async move {
            let mut stdout = BufReader::new(stdout);
            let mut line = Vec::new();
            let why = loop {
                line.clear();
                match read_line(&mut stdout, &mut line, max).await {
                    // A line within the limit that would take more than it once read: the
                    // message is lost, and with it the call it answers, so the connection
                    // ends.
                    Ok(true) if weight::of_text(&line) > max => {
                        break ClientError::limit(
                            "max_message_bytes",
                            max,
                            format!("the server wrote a message that would take more than {max} bytes once read; the connection is closed"),
                        )
                    }
                    Ok(true) => {
                        let Some(state) = reader.upgrade() else {
                            return;
                        };
                        route(&state, &line).await;
                    }
                    Ok(false) => break ClientError::transport("the server closed its output"),
                    Err(LineError::TooLong) => {
                        break ClientError::limit(
                            "max_message_bytes",
                            max,
                            format!("the server wrote a line longer than {max} bytes; the connection is closed"),
                        )
                    }
                    Err(LineError::Io(e)) => {
                        break ClientError::transport(format!(
                            "reading the server's output failed: {e}"
                        ))
                    }
                }
            };
            if let Some(state) = reader.upgrade() {
                state.end(why);
            }
        });
        Ok(Pipe {
            state,
            child: tokio::sync::Mutex::new(Some(child)),
        })
    }

    pub(crate) async fn send(&self, call: Call<'_>) -> Result<Value, ClientError> {
        let state = &self.state;
        let Some(id) = call.id else {
            state.write(&call.message()).await?;
            return Ok(Value::Null);
        };
        let (tx, rx) = oneshot::channel();
        lock(&state.pending).insert(id, tx);
        let mut outstanding = Outstanding {
            state,
            id,
            token: None,
            cancel: call.cancel.clone(),
        };
        // Checked after the call is registered: a pipe ending in between has either seen
        // the registration (and dropped it) or is seen here.
        if lock(&state.ended).is_some() {
            outstanding.cancel = None;
            return Err(state.why_ended());
        }
        if let Some((token, sink)) = call.progress {
            let key = token.to_string();
            lock(&state.progress).insert(key.clone(), sink.clone());
            outstanding.token = Some(key);
        }
        state.write(&call.message()).await?;
        match rx.await {
            Ok(response) => {
                outstanding.cancel = None;
                Ok(response)
            }
            Err(_) => {
                outstanding.cancel = None;
                Err(state.why_ended())
            }
        }
    }

    /// Send a `subscriptions/listen` request and wait for its acknowledgement; the stream
    /// then carries the subscription's notifications until the server answers the request
    /// (or the pipe ends). Dropping it cancels the request.
    pub(crate) async fn listen(&self, call: Call<'_>) -> Result<Listening, ClientError> {
        let state = &self.state;
        let Some(id) = call.id else {
            return Err(ClientError::malformed("a listen request needs an id"));
        };
        let (tx, mut notifications) = mpsc::channel(SUBSCRIPTION_BACKLOG);
        let (answered, mut answer) = oneshot::channel();
        lock(&state.subscriptions).insert(
            id,
            Subscribed {
                stream: tx,
                cancel: call.cancel.clone(),
            },
        );
        lock(&state.pending).insert(id, answered);
        let guard = Unsubscribe {
            state: state.clone(),
            id,
            cancel: call.cancel.clone(),
        };
        if lock(&state.ended).is_some() {
            return Err(state.why_ended());
        }
        state.write(&call.message()).await?;
        tokio::select! {
            first = notifications.recv() => match first {
                Some(ack) => Ok(Listening {
                    acknowledged: ack.pointer("/params/notifications").cloned().unwrap_or(Value::Null),
                    notifications,
                    _guard: Box::new(guard),
                }),
                None => Err(state.why_ended()),
            },
            response = &mut answer => match response {
                Ok(response) => Listening::answered(response),
                Err(_) => Err(state.why_ended()),
            },
        }
    }

    /// The connection speaks 2026-07-28 from now on: a request from the server is refused.
    pub(crate) fn speak_modern(&self) {
        self.state
            .modern
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Close the server's stdin, give it a moment to exit, then kill it.
    pub(crate) async fn close(&self) {
        self.state.closing.cancel();
        if let Some(mut child) = self.child.lock().await.take() {
            if tokio::time::timeout(EXIT_GRACE, child.wait())
                .await
                .is_err()
            {
                let _ = child.kill().await;
            }
        }
        self.state.end(ClientError::Closed);
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // The writer task ends and the child (kill_on_drop) goes with the last handle.
        self.state.closing.cancel();
    }
}

/// A call waiting for its response. Dropped before the response came (the caller's
/// future dropped, or its timeout), it cancels the request on the server.
struct Outstanding<'a> {
    state: &'a State,
    id: u64,
    token: Option<String>,
    cancel: Option<Value>,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        lock(&self.state.pending).remove(&self.id);
        if let Some(token) = &self.token {
            lock(&self.state.progress).remove(token);
        }
        if let Some(cancel) = self.cancel.take() {
            self.state.try_write(&cancel);
        }
    }
}

/// The subscription a notification belongs to (`_meta` names the listen request's id).
fn subscription_of(message: &Value) -> Option<u64> {
    message
        .get("params")?
        .get("_meta")?
        .get(SUBSCRIPTION_ID)?
        .as_u64()
}

/// An open subscription; dropped, it cancels the listen request.
struct Unsubscribe {
    state: Arc<State>,
    id: u64,
    cancel: Option<Value>,
}

impl Drop for Unsubscribe {
    fn drop(&mut self) {
        let open = lock(&self.state.subscriptions).remove(&self.id).is_some();
        lock(&self.state.pending).remove(&self.id);
        if let (true, Some(cancel)) = (open, self.cancel.take()) {
            self.state.try_write(&cancel);
        }
    }
}

/// Why a line could not be read.
enum LineError {
    /// It grew past the message limit before it ended.
    TooLong,
    Io(std::io::Error),
}

/// Read one line of the server's output into `line` (without its newline): `Ok(false)` at
/// the end of the output. Each byte is looked at once, and a line longer than `max` is
/// refused as soon as it is, without reading the rest.
async fn read_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
    max: usize,
) -> Result<bool, LineError> {
    loop {
        let available = reader.fill_buf().await.map_err(LineError::Io)?;
        if available.is_empty() {
            // A last line without its newline is still a line.
            return Ok(!line.is_empty());
        }
        let (taken, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (available.split_at(at).0, true),
            None => (available, false),
        };
        if line.len() + taken.len() > max {
            return Err(LineError::TooLong);
        }
        line.extend_from_slice(taken);
        let used = taken.len() + usize::from(ended);
        reader.consume(used);
        if ended {
            return Ok(true);
        }
    }
}

/// One line from the server, where it belongs.
async fn route(state: &Arc<State>, line: &[u8]) {
    let Ok(message) = serde_json::from_slice::<Value>(line) else {
        tracing::warn!(target: "mcp_runtime::client", "the server wrote a line that is not JSON; ignored");
        return;
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id");
    match (method, id) {
        (Some(method), Some(id)) => {
            if let Some(refusal) = refusal(state, method, id) {
                let _ = state.write(&refusal).await;
                return;
            }
            if method == "ping" {
                let (reply, _) = state.host.reply(&message).await;
                let _ = state.write(&reply).await;
                return;
            }
            // A bounded number at a time: a server cannot make the client hold a task (or
            // a question for its user) per request it sends.
            let Ok(permit) = state.answering.clone().try_acquire_owned() else {
                let busy = json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": codes::RATE_LIMITED,
                    "message": format!(
                        "this client answers at most {} requests of the server at once",
                        state.limits.server_requests
                    ),
                }});
                let _ = state.write(&busy).await;
                return;
            };
            let state = state.clone();
            tokio::spawn(async move {
                let (reply, unanswered) = state.host.reply(&message).await;
                if let Err(error) = unanswered {
                    tracing::warn!(target: "mcp_runtime::client", %error, "refused the server's question");
                }
                let _ = state.write(&reply).await;
                drop(permit);
            });
        }
        (Some(_), None) if subscription_of(&message).is_some() => {
            let id = subscription_of(&message).unwrap_or_default();
            let mut subscriptions = lock(&state.subscriptions);
            let Some(open) = subscriptions.get(&id) else {
                return;
            };
            if let Err(mpsc::error::TrySendError::Full(_)) = open.stream.try_send(message) {
                // The program fell too far behind this subscription: it ends (its stream
                // closes) and is cancelled on the server, rather than hold up the pipe
                // every other request shares.
                tracing::warn!(target: "mcp_runtime::client", subscription = id,
                    "a subscription's notifications were not taken; it is ended");
                if let Some(cancel) = subscriptions.remove(&id).and_then(|open| open.cancel) {
                    state.try_write(&cancel);
                }
            }
        }
        (Some(_), None) => {
            let sink = message
                .pointer("/params/progressToken")
                .and_then(|token| lock(&state.progress).get(&token.to_string()).cloned());
            match (sink, message.pointer("/params/progressToken")) {
                (Some(sink), Some(token)) => state.host.notified(&message, Some((token, &sink))),
                _ => state.host.notified(&message, None),
            }
        }
        (None, Some(id)) => {
            if let Some(id) = id.as_u64() {
                // The response to a listen request closes its stream.
                lock(&state.subscriptions).remove(&id);
            }
            let waiting = id.as_u64().and_then(|id| {
                let mut pending = lock(&state.pending);
                let waiting = pending.remove(&id);
                if pending.is_empty() {
                    state.asked.store(0, std::sync::atomic::Ordering::Relaxed);
                }
                waiting
            });
            if let Some(waiting) = waiting {
                let _ = waiting.send(message);
            }
        }
        (None, None) => {
            tracing::warn!(target: "mcp_runtime::client", "the server wrote a message with neither id nor method; ignored");
        }
    }
}

/// The refusal of a request of the server: any, in 2026-07-28 (which has none); in the
/// handshake era, a question (elicitation, sampling) asked while no request of this client
/// is waiting on it (such questions belong to a request, and a server asking them at any
/// other time would reach the user unprompted), or one past `max_rounds` for each request
/// waiting.
fn refusal(state: &State, method: &str, id: &Value) -> Option<Value> {
    if state.modern.load(std::sync::atomic::Ordering::Relaxed) {
        return Some(json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": codes::METHOD_NOT_FOUND,
            "message": format!("{method}: in 2026-07-28 a server sends no requests; it asks in input_required results"),
        }}));
    }
    let belongs_to_a_call = matches!(
        Question::of_method(method),
        Some(Question::Elicit | Question::Sample)
    );
    if !belongs_to_a_call {
        return None;
    }
    let waiting = lock(&state.pending).len();
    if waiting == 0 {
        return Some(json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": codes::INVALID_REQUEST,
            "message": format!("{method} outside a request: no request of this client is waiting on the server"),
        }}));
    }
    // A question names no request here, so each waiting request allows `max_rounds`.
    let most = state.limits.rounds.saturating_mul(waiting);
    if state
        .asked
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        >= most
    {
        return Some(json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": codes::RATE_LIMITED,
            "message": format!(
                "{method}: this client answers at most {} questions for each request of its that waits",
                state.limits.rounds
            ),
        }}));
    }
    None
}
