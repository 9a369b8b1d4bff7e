//! [`TestClient`]: a built server called in process, as a 2026-07-28 client or as a
//! handshake-era one, with the same methods for both.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::{bounds, with_meta, Answers};
use crate::core::{Notifier, Subscription, Transport};
use crate::era::modern::{self, Answer, Inbound};
use crate::policy::auth::Principal;
use crate::protocol::answers::{answering_methods, RoundTrip};
use crate::protocol::jsonrpc::Message;
use crate::protocol::typed;
use crate::App;

/// Calls a built server in process, without a transport: as a 2026-07-28 client
/// ([`TestClient::new`]), or as a handshake-era client that opens a session with
/// `initialize` ([`TestClient::legacy`], feature `legacy`). Every method works the same in
/// both eras, so one test can run against both.
///
/// Given [`Answers`] ([`answers`](TestClient::answers), or one handler at a time with
/// [`on_elicit`](TestClient::on_elicit), [`on_sample`](TestClient::on_sample) and
/// [`on_roots`](TestClient::on_roots), as on every client of this crate), the client
/// answers what the server asks, as a host would: in 2026-07-28 it answers each
/// `input_required` round and sends the call again with `inputResponses` and the
/// `requestState`, until the result is final (32 rounds at most); in the handshake era it
/// answers the server's `elicitation/create`, `sampling/createMessage` and `roots/list`
/// requests. Each handler also declares its capability. A client without handlers hands
/// `input_required` results back as they are, and refuses the server's requests with
/// -32601; one with handlers hands back a result that asks what it has no handler for.
///
/// ```no_run
/// # async fn demo(app: mcp_runtime::App) {
/// use mcp_runtime::testing::TestClient;
/// use serde_json::json;
///
/// let client = TestClient::new(app)
///     .on_elicit(|_question| async { json!({"action": "accept", "content": {"confirm": true}}) });
/// let result = client.call_tool("delete_order", json!({"id": 2})).await;
/// assert_eq!(result["content"][0]["text"], "Order 2 deleted.");
/// # }
/// ```
///
/// A test client does not fail by itself: if the in-memory connection of a handshake-era
/// client breaks (the server's task ended), the response is a JSON-RPC error -32603 whose
/// message starts with `test client:`.
pub struct TestClient {
    app: App,
    next_id: AtomicU64,
    principal: Option<Principal>,
    capabilities: Option<Value>,
    answers: Answers,
    #[cfg(feature = "legacy")]
    handshake: Option<Box<super::legacy::Handshake>>,
}

impl TestClient {
    /// A 2026-07-28 client of `app`: every request carries its `_meta` (protocol version,
    /// client capabilities and info); there is no handshake.
    pub fn new(app: App) -> Self {
        TestClient {
            app,
            next_id: AtomicU64::new(1),
            principal: None,
            capabilities: None,
            answers: Answers::default(),
            #[cfg(feature = "legacy")]
            handshake: None,
        }
    }

    /// A handshake-era client of `app` (feature `legacy`), speaking `version` (e.g.
    /// `"2025-11-25"`). It opens its session over an in-memory stdio stream at its first
    /// request, declaring the capabilities and principal set by then.
    #[cfg(feature = "legacy")]
    pub fn legacy(app: App, version: &str) -> Self {
        TestClient {
            handshake: Some(Box::new(super::legacy::Handshake::new(version))),
            ..TestClient::new(app)
        }
    }

    /// The same client declaring these client capabilities (a `ClientCapabilities`
    /// object, e.g. `{"extensions": {"io.modelcontextprotocol/tasks": {}}}`): in `_meta`
    /// of every request, or in `initialize`.
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// The same client calling as `principal`, as an authentication layer (a token
    /// verifier, your own middleware, or the stdio host) would set it.
    pub fn as_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    answering_methods!(answers);

    /// The client capabilities this client declares.
    fn declared_capabilities(&self) -> Value {
        self.answers.declare(self.capabilities.as_ref())
    }

    /// What the server says about itself: the `server/discover` result in 2026-07-28, the
    /// `initialize` result in the handshake era (or the error response).
    pub async fn discover(&self) -> Value {
        #[cfg(feature = "legacy")]
        if let Some(handshake) = &self.handshake {
            return match handshake.session(&self.caller()).await {
                Ok(session) => session.lock().await.initialized.clone(),
                Err(error) => super::legacy::broken(&error),
            };
        }
        result_or_response(self.request("server/discover", json!({})).await)
    }

    /// Send `method` with `params` (an object; in 2026-07-28 `_meta` is added when absent)
    /// and return the whole JSON-RPC response, after answering the server's questions with
    /// the client's handlers.
    pub async fn request(&self, method: &str, params: Value) -> Value {
        self.request_with_notifications(method, params).await.1
    }

    /// [`request`](TestClient::request), also returning the notifications the server sent
    /// for it before its response (progress, log messages), over all rounds:
    /// `(notifications, response)`.
    pub async fn request_with_notifications(
        &self,
        method: &str,
        params: Value,
    ) -> (Vec<Value>, Value) {
        #[cfg(feature = "legacy")]
        if let Some(handshake) = &self.handshake {
            return handshake.request(&self.caller(), method, params).await;
        }
        let params = self.with_meta(params);
        let mut trip = InProcess {
            client: self,
            method,
            notifications: Vec::new(),
        };
        let bounds = bounds(&self.answers);
        let Ok(ended) = self.answers.rounds(&mut trip, params, bounds).await;
        (trip.notifications, ended.reply)
    }

    /// Send one raw JSON-RPC message as it is (no `_meta` added, no rounds answered);
    /// `None` for a notification.
    pub async fn message(&self, message: Value) -> Option<Value> {
        #[cfg(feature = "legacy")]
        if let Some(handshake) = &self.handshake {
            return handshake.message(&self.caller(), message).await;
        }
        match Message::from_value(message) {
            Ok(Message::Request {
                id,
                method,
                params,
                meta,
            }) => Some(
                modern::handle_request(self.app.core(), id, method, params, meta, self.inbound())
                    .await
                    .into_message(),
            ),
            Ok(_) => None,
            Err(m) => Some(crate::protocol::jsonrpc::error_response(
                m.id.as_ref(),
                &m.error,
            )),
        }
    }

    /// Send a notification (e.g. `notifications/cancelled`).
    pub async fn notify(&self, method: &str, params: Value) {
        let params = self.with_meta(params);
        self.message(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Call a tool: the `result` object (or the whole error response when there is none).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Value {
        let response = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await;
        result_or_response(response)
    }

    /// Call a tool and read its structured content as a `T`. `Err` holds what came back
    /// instead: an `isError` result, a result without structured content, one that is not
    /// a `T`, or an error response.
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<T, Value> {
        let result = self.call_tool(name, arguments).await;
        typed::structured(&result).map_err(|_| result)
    }

    /// Read a resource: the `result` object (or the whole error response).
    pub async fn read_resource(&self, uri: &str) -> Value {
        result_or_response(self.request("resources/read", json!({"uri": uri})).await)
    }

    /// Get a prompt with its arguments (an object of strings): the `result` object (or the
    /// whole error response).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Value {
        let params = json!({"name": name, "arguments": arguments});
        result_or_response(self.request("prompts/get", params).await)
    }

    /// Open a `subscriptions/listen` subscription with these params (`_meta` is added), or
    /// get the error response. A 2026-07-28 method: a handshake-era client gets -32601, as
    /// its era has `resources/subscribe` instead.
    pub fn listen(&self, params: Value) -> Result<Subscription, Value> {
        #[cfg(feature = "legacy")]
        if self.handshake.is_some() {
            return Err(json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": crate::protocol::error::codes::METHOD_NOT_FOUND,
                "message": "subscriptions/listen is a 2026-07-28 method; handshake-era sessions use resources/subscribe",
            }}));
        }
        match Message::from_value(self.envelope("subscriptions/listen", params)) {
            Ok(Message::Request {
                id, params, meta, ..
            }) => modern::listen(self.app.core(), &id, params, meta, self.principal.as_ref())
                .map_err(Answer::into_message),
            _ => Err(Value::Null),
        }
    }

    /// What the handshake-era session needs of this client.
    #[cfg(feature = "legacy")]
    fn caller(&self) -> super::legacy::Caller<'_> {
        super::legacy::Caller {
            app: &self.app,
            principal: self.principal.as_ref(),
            capabilities: self.declared_capabilities(),
            answers: &self.answers,
            ids: &self.next_id,
        }
    }

    fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    fn inbound(&self) -> Inbound {
        let mut inbound = Inbound::new(Transport::InProcess);
        inbound.principal = self.principal.clone();
        inbound
    }

    /// `params` with the client's `_meta` added when absent (2026-07-28 only).
    fn with_meta(&self, params: Value) -> Value {
        #[cfg(feature = "legacy")]
        if self.handshake.is_some() {
            return params;
        }
        with_meta(params, || self.declared_capabilities())
    }

    fn envelope(&self, method: &str, params: Value) -> Value {
        let params = self.with_meta(params);
        json!({"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params})
    }

    /// One request of the 2026-07-28 era, with the notifications sent for it.
    async fn modern_round(&self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let message = json!({
            "jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params,
        });
        let (id, method, params, meta) = match Message::from_value(message) {
            Ok(Message::Request {
                id,
                method,
                params,
                meta,
            }) => (id, method, params, meta),
            Ok(_) => return (Vec::new(), Value::Null),
            Err(m) => {
                let response = crate::protocol::jsonrpc::error_response(m.id.as_ref(), &m.error);
                return (Vec::new(), response);
            }
        };
        let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
        let mut inbound = self.inbound();
        inbound.notifier = Some(Notifier::new(tx));
        let answer =
            modern::handle_request(self.app.core(), id, method, params, meta, inbound).await;
        let mut notifications = Vec::new();
        while let Ok(frame) = rx.try_recv() {
            notifications.push(serde_json::from_slice(&frame).unwrap_or(Value::Null));
        }
        (notifications, answer.into_message())
    }
}

/// How a round of a 2026-07-28 request reaches the server in process, keeping the
/// notifications sent for each.
struct InProcess<'a> {
    client: &'a TestClient,
    method: &'a str,
    notifications: Vec<Value>,
}

impl RoundTrip for InProcess<'_> {
    type Reply = Value;
    type Error = std::convert::Infallible;

    async fn send(&mut self, params: &Value) -> Result<Value, Self::Error> {
        let (mut sent, response) = self.client.modern_round(self.method, params.clone()).await;
        self.notifications.append(&mut sent);
        Ok(response)
    }

    fn result(response: &Value) -> Option<&Value> {
        response.get("result")
    }
}

/// A response's `result`, or the whole response when it has none (an error).
pub(crate) fn result_or_response(response: Value) -> Value {
    match response.get("result") {
        Some(result) => result.clone(),
        None => response,
    }
}
