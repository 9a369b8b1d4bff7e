//! Resumable event logs: the events of one Server-Sent Events stream, numbered and kept
//! so a client that reconnects with `Last-Event-ID` gets what it missed, and the follower
//! that writes a log to one connection at a time.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::{header, HeaderValue};
use axum::response::Response;
use bytes::Bytes;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::core::FrameSink;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock only means a task panicked mid-update; the data stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

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
    events: VecDeque<(u64, Bytes)>,
    last_seq: u64,
    /// The response is in: nothing follows it.
    done: bool,
    /// The handler let go of the connection: the first follower ends.
    released: bool,
    /// Bumped when a new client connection takes the stream over.
    generation: u64,
}

pub(super) enum First {
    /// The request finished with nothing before its response.
    Only(Bytes),
    /// Something precedes the response (or the connection was let go): stream.
    Events,
    /// The log was closed without a response (the request was cancelled).
    Gone,
}

impl EventLog {
    /// The stream's number, the first part of its event ids.
    pub(super) fn stream(&self) -> u64 {
        self.stream
    }

    pub(super) fn new(stream: u64, capacity: usize) -> Self {
        EventLog {
            stream,
            capacity: capacity.max(1),
            inner: Mutex::default(),
            changed: Notify::new(),
        }
    }

    fn push(&self, frame: Bytes) -> bool {
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
    pub(super) fn finish(&self, message: Vec<u8>) {
        // `Bytes` takes the vector's buffer as it is: the response is not copied here, nor
        // when it goes out as the body of a plain JSON answer.
        self.push(Bytes::from(message));
        self.close();
    }

    pub(super) fn close(&self) {
        lock(&self.inner).done = true;
        self.changed.notify_waiters();
    }

    pub(super) fn is_done(&self) -> bool {
        lock(&self.inner).done
    }

    pub(super) fn last_seq(&self) -> u64 {
        lock(&self.inner).last_seq
    }

    /// A new connection follows this stream; earlier ones end.
    pub(super) fn take_over(&self) -> u64 {
        let mut inner = lock(&self.inner);
        inner.generation += 1;
        let generation = inner.generation;
        drop(inner);
        self.changed.notify_waiters();
        generation
    }

    pub(super) async fn first_event(&self) -> First {
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
        self.push(Bytes::from(frame))
    }

    fn release(&self) {
        lock(&self.inner).released = true;
        self.changed.notify_waiters();
    }
}

/// What one follower does next.
enum Step {
    Send(u64, Bytes),
    End,
    Released,
    Wait,
}

/// Stream `log` to the client from after `after`: first a priming event (an id and no
/// data, so the client can resume from the start), then the events as they come. A
/// response stream ends after the response; with `release` set it also ends, with a
/// `retry` hint, when the handler lets go of the connection. The stream also ends when
/// `ended` is cancelled (the session ended); `connected` is held while it lasts (the
/// session counts its open streams with it).
pub(super) fn follow(
    log: Arc<EventLog>,
    after: u64,
    prime: bool,
    release: Option<Duration>,
    ended: CancellationToken,
    connected: Box<dyn Send>,
) -> Response {
    let generation = lock(&log.inner).generation;
    // Written by hand: an event with an id and an empty `data` field (which SSE writers
    // usually leave out) is what tells a client it can resume from here.
    let priming = prime.then(|| Bytes::from(format!("id: {}-{after}\ndata: \n\n", log.stream)));
    let follower = Follower {
        log,
        cursor: after,
        generation,
        priming,
        release,
        ended,
        finished: false,
        _connected: connected,
    };
    let events = futures_util::stream::unfold(follower, Follower::next);
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

/// One connection following a log.
struct Follower {
    log: Arc<EventLog>,
    /// The last event sent.
    cursor: u64,
    /// The log's generation when this connection took it over.
    generation: u64,
    priming: Option<Bytes>,
    release: Option<Duration>,
    ended: CancellationToken,
    finished: bool,
    _connected: Box<dyn Send>,
}

impl Follower {
    /// What to do next, from the log as it is now.
    fn step(&self) -> Step {
        let inner = lock(&self.log.inner);
        if inner.generation != self.generation {
            Step::End
        } else if let Some((seq, frame)) = inner.events.iter().find(|(seq, _)| *seq > self.cursor) {
            Step::Send(*seq, frame.clone())
        } else if inner.done {
            Step::End
        } else if inner.released && self.release.is_some() {
            Step::Released
        } else {
            Step::Wait
        }
    }

    /// The next chunk of the stream, or its end.
    async fn next(mut self) -> Option<(Result<Bytes, Infallible>, Self)> {
        if self.finished {
            return None;
        }
        if let Some(priming) = self.priming.take() {
            return Some((Ok(priming), self));
        }
        loop {
            let log = self.log.clone();
            let notified = log.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match self.step() {
                Step::Send(seq, frame) => {
                    self.cursor = seq;
                    // Frames are compact JSON: one line, so one `data` field.
                    let mut event = format!("id: {}-{seq}\ndata: ", self.log.stream).into_bytes();
                    event.extend_from_slice(&frame);
                    event.extend_from_slice(b"\n\n");
                    return Some((Ok(Bytes::from(event)), self));
                }
                Step::End => return None,
                Step::Released => {
                    self.finished = true;
                    let retry = self.release.unwrap_or(Duration::from_secs(1));
                    let hint = format!("retry: {}\n\n", retry.as_millis());
                    return Some((Ok(Bytes::from(hint)), self));
                }
                Step::Wait => {
                    tokio::select! {
                        _ = notified => {}
                        _ = self.ended.cancelled() => return None,
                        // A comment now and then keeps proxies from closing a quiet stream.
                        _ = tokio::time::sleep(KEEP_ALIVE) => {
                            return Some((Ok(Bytes::from_static(b":\n\n")), self));
                        }
                    }
                }
            }
        }
    }
}

/// How long a stream stays quiet before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_log_answers_json_when_only_the_response_was_written() {
        let log = EventLog::new(1, 8);
        log.finish(serde_json::to_vec(&json!({"id": 1})).unwrap());
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
