//! Server-Sent Events responses of the 2026-07-28 endpoint: a request whose client asked
//! for progress or log messages streams them before its response (and is answered with
//! plain JSON when it finishes first), and `subscriptions/listen` is always a stream.
//! Dropping a stream (the client left) cancels its request.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::core::{Core, Notifier, Resolved, Subscription};
use crate::era::modern::{self, Answer, Inbound};
use crate::protocol::{Params, RpcError};

use super::render::internal_failure;

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
pub(super) async fn streamed(
    core: Arc<Core>,
    config: Arc<super::HttpConfig>,
    id: crate::protocol::RequestId,
    request: (String, Option<Params>, Option<crate::protocol::meta::Meta>),
    target: Resolved,
    mut inbound: Inbound,
) -> Response {
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
    inbound.notifier = Some(Notifier::new(tx));
    let cancel = inbound.cancel.clone();
    let mut task =
        tokio::spawn(
            async move { modern::handle_resolved(&core, id, request, target, inbound).await },
        );
    let abandon = Abandon {
        cancel: Some(cancel.drop_guard()),
        task: task.abort_handle(),
    };
    let first = tokio::select! {
        biased;
        // A closed channel is no notification: the request finished, and its answer
        // (with its own status, 403 for a scope refusal say) goes out as plain JSON.
        Some(frame) = rx.recv() => frame,
        done = &mut task => {
            abandon.disarm();
            return match done {
                Ok(reply) => super::auth::answer(config.auth.as_ref(), reply),
                Err(e) => internal_failure(e),
            };
        }
    };
    let mut queue = VecDeque::new();
    queue.push_back(first);
    let start = (queue, Some(Phase::Running { rx, task, abandon }));
    let events = futures_util::stream::unfold(start, next_event);
    sse_response(events, None)
}

/// What a streamed response holds between events.
type Streaming = (VecDeque<Vec<u8>>, Option<Phase>);

/// The next event of a streamed response: what is queued, else the next notification,
/// else (the request finished) what was still queued and then the response.
async fn next_event(
    (mut queue, phase): Streaming,
) -> Option<(Result<Event, Infallible>, Streaming)> {
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
}

fn event(frame: Vec<u8>) -> Result<Event, Infallible> {
    Ok(Event::default().data(String::from_utf8_lossy(&frame)))
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
pub(super) fn listen_stream(subscription: Subscription, closing: CancellationToken) -> Response {
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
