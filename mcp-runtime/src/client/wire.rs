//! What both transports of the client share: one request as a transport sends it
//! ([`Call`]), and what the client does when the server talks first ([`Host`]: answering
//! its questions and pings, taking its log messages and progress). The transports build
//! on this file; [`Wire`](super::connection::Wire), above them, picks one.

use std::sync::Arc;

use serde_json::{json, Value};

use super::error::ClientError;
use crate::protocol::answers::Answers;

/// How many notifications of one subscription may wait for the program to take them.
pub(crate) const SUBSCRIPTION_BACKLOG: usize = 1024;

/// A sink for notifications' `params` (log messages, progress).
pub(crate) type Sink = Arc<dyn Fn(Value) + Send + Sync>;

/// One JSON-RPC request (or, with `id: None`, notification) as a transport sends it.
pub(crate) struct Call<'a> {
    pub(crate) id: Option<u64>,
    pub(crate) method: &'a str,
    pub(crate) params: &'a Value,
    /// The protocol version the request speaks (the HTTP `MCP-Protocol-Version`).
    pub(crate) version: &'a str,
    /// 2026-07-28: mirror the body into the `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
    /// headers on HTTP.
    pub(crate) modern: bool,
    /// Progress notifications with this token go to this sink.
    pub(crate) progress: Option<(&'a Value, &'a Sink)>,
    /// Headers of the caller's, set after the client's own (HTTP only).
    pub(crate) headers: &'a [(String, String)],
    /// The notification that cancels the request if its future is dropped before the
    /// answer (stdio, and handshake-era HTTP); `None` for a probe that must not be
    /// followed by anything but the handshake.
    pub(crate) cancel: Option<Value>,
}

impl<'a> Call<'a> {
    /// A request (or, with `id: None`, a notification) of the client's own making: no
    /// progress, no headers of a caller, nothing sent if it is dropped (the opening
    /// exchanges, whose only follow-up may be the handshake).
    pub(crate) fn bare(
        id: Option<u64>,
        method: &'a str,
        params: &'a Value,
        version: &'a str,
        modern: bool,
    ) -> Call<'a> {
        Call {
            id,
            method,
            params,
            version,
            modern,
            progress: None,
            headers: &[],
            cancel: None,
        }
    }

    /// The message on the wire.
    pub(crate) fn message(&self) -> Value {
        let mut message = json!({"jsonrpc": "2.0", "method": self.method, "params": self.params});
        if let (Some(id), Value::Object(map)) = (self.id, &mut message) {
            map.insert("id".into(), id.into());
        }
        message
    }
}

/// What the client does when the server talks first.
#[derive(Default)]
pub(crate) struct Host {
    /// The answers to the server's questions.
    pub(crate) answers: Answers,
    pub(crate) log: Option<Sink>,
    /// Notifications that something changed on the server (`list_changed`, resource
    /// `updated`), whole, for the client's cache.
    pub(crate) changed: Option<Sink>,
}

impl Host {
    /// The response to a request the server sent (handshake era), as
    /// [`Answers::reply`] gives it; a question without a handler is refused, and the
    /// `Err` names it, for the transport that knows which call it belongs to.
    pub(crate) async fn reply(&self, request: &Value) -> (Value, Result<(), ClientError>) {
        let (reply, unanswered) = self.answers.reply(request).await;
        (reply, unanswered.map_or(Ok(()), |u| Err(u.into())))
    }

    /// A notification from the server: log messages to the log handler, progress to the
    /// call's sink when its token matches.
    pub(crate) fn notified(&self, notification: &Value, progress: Option<(&Value, &Sink)>) {
        let params = notification.get("params").cloned().unwrap_or(Value::Null);
        match notification.get("method").and_then(Value::as_str) {
            Some("notifications/message") => {
                if let Some(log) = &self.log {
                    log(params);
                }
            }
            Some("notifications/progress") => {
                if let Some((token, sink)) = progress {
                    if params.get("progressToken") == Some(token) {
                        sink(params);
                    }
                }
            }
            Some(method)
                if method.ends_with("/list_changed")
                    || method == "notifications/resources/updated" =>
            {
                if let Some(changed) = &self.changed {
                    changed(notification.clone());
                }
            }
            _ => {}
        }
    }
}

/// An open `subscriptions/listen` request, as a transport hands it over.
pub(crate) struct Listening {
    /// The notifications the server honours (the acknowledgement's `notifications`).
    pub(crate) acknowledged: Value,
    /// The subscription's notifications; closed when the server ends the subscription.
    pub(crate) notifications: tokio::sync::mpsc::Receiver<Value>,
    /// Dropped, it cancels the listen request.
    pub(crate) _guard: Box<dyn Send + Sync>,
}

impl Listening {
    /// A listen request the server answered at once, without a stream: its error, or an
    /// ended subscription.
    pub(crate) fn answered(response: Value) -> Result<Listening, ClientError> {
        if let Some(error) = response.get("error") {
            return Err(ClientError::from_rpc(error));
        }
        let (_, notifications) = tokio::sync::mpsc::channel(1);
        Ok(Listening {
            acknowledged: Value::Null,
            notifications,
            _guard: Box::new(()),
        })
    }
}
