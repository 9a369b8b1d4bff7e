//! The client's stdio transport: a spawned server process, one JSON-RPC message per line
//! on its stdin and stdout. A reader task routes what the server writes: responses to the
//! call waiting for them (by id), progress to that call's sink, log messages to the log
//! handler, and the server's own requests (handshake era: questions, `ping`) to the
//! client's handlers, whose answers go back on the same pipe.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::error::ClientError;
use super::wire::{Call, Host, Listening, Sink};
use crate::protocol::meta::SUBSCRIPTION_ID;

/// How long [`Pipe::close`] waits for the server to exit on its own after its stdin
/// closed, before it kills it.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// One spawned server.
pub(crate) struct Pipe {
    state: Arc<State>,
    child: tokio::sync::Mutex<Option<Child>>,
}

/// What the reader task and the calls share.
struct State {
    lines: mpsc::UnboundedSender<Vec<u8>>,
    /// Closing stdin: the writer task stops and drops it, so the server sees EOF.
    closing: CancellationToken,
    pending: Mutex<HashMap<u64, oneshot::Sender<Value>>>,
    progress: Mutex<HashMap<String, Sink>>,
    /// Open `subscriptions/listen` streams, by the listen request's id.
    subscriptions: Mutex<HashMap<u64, mpsc::UnboundedSender<Value>>>,
    /// Why the pipe ended, once it has.
    ended: Mutex<Option<String>>,
    host: Arc<Host>,
}

impl State {
    fn write(&self, message: &Value) -> Result<(), ClientError> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.lines
            .send(line)
            .map_err(|_| ClientError::transport(self.why_ended()))
    }

    fn why_ended(&self) -> String {
        lock(&self.ended)
            .clone()
            .unwrap_or_else(|| "the server's input is closed".to_owned())
    }

    fn end(&self, why: String) {
        lock(&self.ended).get_or_insert(why);
        // Dropping the senders wakes every waiting call and ends every subscription.
        lock(&self.pending).clear();
        lock(&self.subscriptions).clear();
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
    pub(crate) fn spawn(mut command: Command, host: Arc<Host>) -> Result<Pipe, ClientError> {
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
        let (lines, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
        let closing = CancellationToken::new();
        let state = Arc::new(State {
            lines,
            closing: closing.clone(),
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashMap::new()),
            ended: Mutex::new(None),
            host,
        });
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = closing.cancelled() => break,
                    line = outgoing.recv() => {
                        let Some(line) = line else { break };
                        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let reader = Arc::downgrade(&state);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            let why = loop {
                match lines.next_line().await {
                    Ok(Some(line)) => {
                        let Some(state) = reader.upgrade() else {
                            return;
                        };
                        route(&state, &line);
                    }
                    Ok(None) => break "the server closed its output".to_owned(),
                    Err(e) => break format!("reading the server's output failed: {e}"),
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
            state.write(&call.message())?;
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
            return Err(ClientError::transport(state.why_ended()));
        }
        if let Some((token, sink)) = call.progress {
            let key = token.to_string();
            lock(&state.progress).insert(key.clone(), sink.clone());
            outstanding.token = Some(key);
        }
        state.write(&call.message())?;
        match rx.await {
            Ok(response) => {
                outstanding.cancel = None;
                Ok(response)
            }
            Err(_) => {
                outstanding.cancel = None;
                Err(ClientError::transport(state.why_ended()))
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
        let (tx, mut notifications) = mpsc::unbounded_channel();
        let (answered, mut answer) = oneshot::channel();
        lock(&state.subscriptions).insert(id, tx);
        lock(&state.pending).insert(id, answered);
        let guard = Unsubscribe {
            state: state.clone(),
            id,
            cancel: call.cancel.clone(),
        };
        if lock(&state.ended).is_some() {
            return Err(ClientError::transport(state.why_ended()));
        }
        state.write(&call.message())?;
        tokio::select! {
            first = notifications.recv() => match first {
                Some(ack) => Ok(Listening {
                    acknowledged: ack.pointer("/params/notifications").cloned().unwrap_or(Value::Null),
                    notifications,
                    _guard: Box::new(guard),
                }),
                None => Err(ClientError::transport(state.why_ended())),
            },
            response = &mut answer => match response {
                Ok(response) => Listening::answered(response),
                Err(_) => Err(ClientError::transport(state.why_ended())),
            },
        }
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
        self.state.end("the client was closed".to_owned());
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
            let _ = self.state.write(&cancel);
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
            let _ = self.state.write(&cancel);
        }
    }
}

/// One line from the server, where it belongs.
fn route(state: &Arc<State>, line: &str) {
    let Ok(message) = serde_json::from_str::<Value>(line) else {
        tracing::warn!(target: "mcp_runtime::client", "the server wrote a line that is not JSON; ignored");
        return;
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id");
    match (method, id) {
        (Some(_), Some(_)) => {
            let state = state.clone();
            tokio::spawn(async move {
                let (reply, unanswered) = state.host.reply(&message).await;
                if let Err(error) = unanswered {
                    tracing::warn!(target: "mcp_runtime::client", %error, "refused the server's question");
                }
                let _ = state.write(&reply);
            });
        }
        (Some(_), None) if subscription_of(&message).is_some() => {
            let id = subscription_of(&message).unwrap_or_default();
            if let Some(stream) = lock(&state.subscriptions).get(&id) {
                let _ = stream.send(message);
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
            let waiting = id.as_u64().and_then(|id| lock(&state.pending).remove(&id));
            if let Some(waiting) = waiting {
                let _ = waiting.send(message);
            }
        }
        (None, None) => {
            tracing::warn!(target: "mcp_runtime::client", "the server wrote a message with neither id nor method; ignored");
        }
    }
}
