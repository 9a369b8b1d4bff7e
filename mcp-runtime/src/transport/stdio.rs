//! stdio: newline-delimited JSON-RPC. One reader, one writer that owns the output (nothing
//! else writes there), handlers run concurrently. Progress and log notifications of a
//! request are interleaved on the output before its response; `notifications/cancelled`
//! stops a request (or a subscription) and nothing more is sent for it. EOF ends open
//! subscriptions with their closing result, lets in-flight calls finish, then the writer
//! flushes and the server returns.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::core::{Core, Notifier, Transport};
use crate::era::modern::{self, Inbound};
use crate::protocol::jsonrpc::{error_response, Message};
use crate::protocol::{RequestId, RpcError};

/// stdio limits.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// Longest accepted line in bytes.
    pub max_line_bytes: usize,
}

impl Default for StdioConfig {
    fn default() -> Self {
        StdioConfig {
            max_line_bytes: 4 * 1024 * 1024,
        }
    }
}

/// Requests and subscriptions in progress: how to stop each.
type InFlight = Arc<Mutex<HashMap<RequestId, (AbortHandle, CancellationToken)>>>;

/// Serve until `reader` reaches EOF and every in-flight call has answered.
pub(crate) async fn serve<R, W>(
    core: Arc<Core>,
    config: &StdioConfig,
    reader: R,
    writer: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Vec<u8>>(1024);
    let writer_task = tokio::spawn(write_frames(writer, rx));
    let mut reader = BufReader::new(reader);
    let mut tasks = JoinSet::new();
    let in_flight: InFlight = Arc::default();
    // Cancelled at EOF: open subscriptions end gracefully.
    let closing = CancellationToken::new();
    let mut line = Vec::new();
    loop {
        match read_line(&mut reader, &mut line, config.max_line_bytes).await? {
            Line::Eof => break,
            Line::TooLong => {
                let error = RpcError::invalid_request(format!(
                    "Message exceeds the {} byte limit of this server",
                    config.max_line_bytes
                ));
                send(&tx, &error_response(None, &error)).await;
            }
            Line::Complete => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                handle_line(&core, &line, &tx, &mut tasks, &in_flight, &closing).await;
            }
        }
        // Reap finished tasks so the set does not grow with the connection's lifetime.
        while tasks.try_join_next().is_some() {}
    }
    closing.cancel();
    while tasks.join_next().await.is_some() {}
    drop(tx);
    match writer_task.await {
        Ok(result) => result,
        Err(e) => Err(std::io::Error::other(e)),
    }
}

async fn handle_line(
    core: &Arc<Core>,
    line: &[u8],
    tx: &mpsc::Sender<Vec<u8>>,
    tasks: &mut JoinSet<()>,
    in_flight: &InFlight,
    closing: &CancellationToken,
) {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            send(tx, &error_response(None, &RpcError::parse_error(e))).await;
            return;
        }
    };
    match Message::from_value(value) {
        Err(malformed) => send(tx, &error_response(malformed.id.as_ref(), &malformed.error)).await,
        Ok(Message::Request { id, method, params }) if method == "subscriptions/listen" => {
            let mut subscription = match modern::listen(core, &id, params) {
                Ok(subscription) => subscription,
                Err(answer) => {
                    send(tx, &answer.message).await;
                    return;
                }
            };
            let tx = tx.clone();
            let closing = closing.clone();
            let cancel = CancellationToken::new();
            let mut registered = lock(in_flight);
            let handle = tasks.spawn(async move {
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
            });
            registered.insert(id, (handle, cancel));
        }
        Ok(Message::Request { id, method, params }) => {
            let core = core.clone();
            let tx = tx.clone();
            let registry = in_flight.clone();
            let key = id.clone();
            let cancel = CancellationToken::new();
            let inbound = Inbound {
                transport: Transport::Stdio,
                // A channel only for requests that asked for progress or log messages.
                notifier: modern::wants_stream(params.as_ref()).then(|| Notifier::new(tx.clone())),
                cancel: cancel.clone(),
                principal: None,
            };
            // Hold the registry while spawning, so the task cannot finish (and look itself up)
            // before it is registered.
            let mut registered = lock(in_flight);
            let handle = tasks.spawn(async move {
                let answer =
                    modern::handle_request(&core, id.clone(), method, params, inbound).await;
                // Remove before sending: a cancellation arriving now finds nothing to abort.
                let still_wanted = lock(&registry).remove(&id).is_some();
                if still_wanted {
                    send(&tx, &answer.message).await;
                }
            });
            registered.insert(key, (handle, cancel));
        }
        Ok(Message::Notification { method, params }) => {
            if method == "notifications/cancelled" {
                let id = params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
                let reason = params
                    .as_ref()
                    .and_then(|p| p.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("none given");
                // Unknown or finished requests are ignored, as the specification allows.
                if let Some(id) = id {
                    if let Some((handle, cancel)) = lock(in_flight).remove(&id) {
                        cancel.cancel();
                        handle.abort();
                        tracing::debug!(request_id = %id, reason, "request cancelled by the client");
                    }
                }
            }
        }
        Ok(Message::Response { .. }) => {
            tracing::debug!("ignoring a response from the client: this revision has no server-to-client requests");
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned map only means another task panicked while holding it; the map is still valid.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

async fn send(tx: &mpsc::Sender<Vec<u8>>, message: &Value) {
    match serde_json::to_vec(message) {
        Ok(bytes) => {
            let _ = tx.send(bytes).await;
        }
        Err(e) => tracing::error!("could not serialize a response: {e}"),
    }
}

async fn write_frames<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    while let Some(mut frame) = rx.recv().await {
        frame.push(b'\n');
        writer.write_all(&frame).await?;
        // Flush only when nothing else is queued, so bursts go out in one write.
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await?;
    Ok(())
}

enum Line {
    Complete,
    TooLong,
    Eof,
}

/// Read one line into `line` (without the newline), never holding more than `max` bytes.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if read_any && !line.is_empty() {
                Line::Complete
            } else {
                Line::Eof
            });
        }
        read_any = true;
        let (chunk, found, used) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true, i + 1),
            None => (buf, false, buf.len()),
        };
        if !too_long {
            if line.len() + chunk.len() > max {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(used);
        if found {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}
