//! One request and all its rounds: the `_meta` a 2026-07-28 request carries, the
//! `input_required` rounds answered by the client's [`Answers`](super::Answers) within the
//! client's limits (driven by `protocol::answers`, as in the test clients; here is how one
//! round travels), one deadline for all of it, and what is learned from the final result.

use std::future::IntoFuture;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::FutureExt as _;
use serde_json::{json, Value};
use tracing::field::Empty;
use tracing::Instrument as _;

use super::cache;
use super::connection::Wire;
use super::limits::Deadline;
use super::wire::{Call, Sink};
use super::{collect, result_of, Client, ClientError, Era, Trace};
use crate::protocol::answers::{Bounds, RoundTrip};
use crate::protocol::exchange::{self, Round};
use crate::protocol::{codes, meta};

impl Client {
    pub(super) fn next_id(&self) -> u64 {
        self.inner.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// One request, all its rounds, in its client span: named and attributed as
    /// OpenTelemetry's conventions for MCP say (the "MCP client" span), and with the
    /// `otel` feature, its trace context sent in the request's `_meta` so the server's
    /// span continues the trace.
    pub(super) async fn run(
        &self,
        method: &str,
        params: Value,
        deadline: &mut Deadline,
        progress: Option<Sink>,
        headers: &[(String, String)],
        fresh: bool,
    ) -> Result<Value, ClientError> {
        let target = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str);
        let span = client_span(
            method,
            target,
            &self.inner.version,
            self.inner.wire.transport(),
        );
        let ran = self
            .run_rounds(method, params, deadline, progress, headers, fresh)
            .instrument(span.clone())
            .await;
        if !span.is_disabled() {
            ended(&span, &ran);
        }
        ran
    }

    /// [`Client::run`], within its span.
    async fn run_rounds(
        &self,
        method: &str,
        params: Value,
        deadline: &mut Deadline,
        progress: Option<Sink>,
        headers: &[(String, String)],
        fresh: bool,
    ) -> Result<Value, ClientError> {
        let inner = &*self.inner;
        if inner.closed.load(Ordering::Relaxed) {
            return Err(ClientError::Closed);
        }
        // The params as asked, the cache's key, for the methods it keeps only.
        let asked = cache::cacheable(method, &params).then(|| params.clone());
        if let (Some(asked), false) = (&asked, fresh) {
            if let Some(mut result) = inner.cache.lookup(&inner.version, method, asked, headers) {
                tracing::debug!(target: "mcp_runtime::client", method, "served from the cache");
                self.learn(method, &mut result);
                return Ok(result);
            }
        }
        let modern = inner.era == Era::Modern;
        let mut params = if modern {
            exchange::with_meta(params, inner.meta.clone())
        } else {
            params
        };
        if let Some(context) = crate::observe::trace_context(&tracing::Span::current()) {
            params = exchange::with_meta(params, Value::Object(context));
        }
        let token = progress.as_ref().map(|_| Value::from(self.next_id()));
        if let Some(token) = &token {
            params = exchange::with_meta(params, json!({meta::PROGRESS_TOKEN: token}));
        }
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let trace = Trace {
            version: &inner.version,
            transport: inner.wire.transport(),
            method,
            name: name.as_deref().unwrap_or_default(),
        };
        let mut trip = Network {
            client: self,
            method,
            modern,
            progress: token.as_ref().zip(progress.as_ref()),
            headers,
            deadline,
            trace: &trace,
            relisted: false,
            last_id: 0,
            results: 0,
        };
        let bounds = Bounds {
            rounds: inner.limits.rounds,
            questions: inner.limits.questions,
        };
        let ended = inner.host.answers.rounds(&mut trip, params, bounds).await?;
        if let Some(stop) = ended.stop {
            let error = ClientError::stopped(stop, method, &inner.limits);
            trace.event(trip.last_id, "failed", Some(error.layer()));
            return Err(error);
        }
        let mut result = ended.reply;
        self.learn(method, &mut result);
        // The result of a retry answered questions: not for anyone else.
        if let (1, Some(asked)) = (trip.results, &asked) {
            inner
                .cache
                .store(&inner.version, method, asked, headers, &result);
        }
        Ok(result)
    }

    /// What the transport learns from a final result (the HTTP headers each tool mirrors),
    /// whether it came from the server or the cache.
    fn learn(&self, method: &str, result: &mut Value) {
        if method == "tools/list" {
            if let Wire::Http(endpoint) = &self.inner.wire {
                endpoint.learn_tools(result);
            }
        }
    }

    /// Whether a failed call is a `tools/call` over 2026-07-28 HTTP refused for its headers
    /// (-32020), not yet answered by listing the tools again (once per call).
    fn relist_for(&self, method: &str, error: &ClientError, relisted: &mut bool) -> bool {
        let retry = !*relisted
            && method == "tools/call"
            && self.inner.era == Era::Modern
            && matches!(self.inner.wire, Wire::Http(_))
            && error.code() == Some(codes::HEADER_MISMATCH);
        *relisted |= retry;
        retry
    }

    /// The notification that cancels request `id`.
    pub(super) fn cancellation(&self, id: u64) -> Value {
        let mut params = json!({"requestId": id, "reason": "the client no longer waits for it"});
        if self.inner.era == Era::Modern {
            params = exchange::with_meta(params, self.inner.meta.clone());
        }
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
    }
}

/// How a round of a request travels over the client's connection: within the request's
/// deadline, traced, and sent again once after listing the tools when an HTTP server wants
/// `Mcp-Param-*` headers the client did not know the tool has.
struct Network<'a> {
    client: &'a Client,
    method: &'a str,
    modern: bool,
    progress: Option<(&'a Value, &'a Sink)>,
    headers: &'a [(String, String)],
    deadline: &'a mut Deadline,
    trace: &'a Trace<'a>,
    /// Whether the tools were listed again for this request already.
    relisted: bool,
    /// The id of the last message sent.
    last_id: u64,
    /// How many results came back.
    results: usize,
}

impl RoundTrip for Network<'_> {
    type Reply = Value;
    type Error = ClientError;

    async fn send(&mut self, params: &Value) -> Result<Value, ClientError> {
        let (client, method) = (self.client, self.method);
        let inner = &*client.inner;
        loop {
            let id = client.next_id();
            self.last_id = id;
            let call = Call {
                id: Some(id),
                method,
                params,
                version: &inner.version,
                modern: self.modern,
                progress: self.progress,
                headers: self.headers,
                cancel: Some(client.cancellation(id)),
            };
            self.trace.event(id, "sent", None);
            tracing::Span::current().record("jsonrpc.request.id", id);
            let response = self.deadline.wait(method, inner.wire.send(call)).await;
            match response.and_then(result_of) {
                Ok(result) => {
                    self.results += 1;
                    match exchange::round(&result) {
                        Round::Final => self.trace.event(id, "completed", None),
                        Round::InputRequired { .. } => self.trace.event(id, "input_required", None),
                        // Reported as failed once the rounds stop at it.
                        Round::Unknown(_) => {}
                    }
                    return Ok(result);
                }
                Err(error) if client.relist_for(method, &error, &mut self.relisted) => {
                    self.trace.event(id, "failed", Some(error.layer()));
                    // The server wants `Mcp-Param-*` headers this client did not know the
                    // tool has: learn them from `tools/list`, then send the call again
                    // (streamable-http, "Client Behavior"). A cached list is stale, then.
                    inner
                        .cache
                        .notified(&json!({"method": "notifications/tools/list_changed"}));
                    let listed = client.pages("tools/list", "tools", self.deadline.left());
                    self.deadline.wait("tools/list", collect(listed)).await?;
                }
                Err(error) => {
                    self.trace.event(id, "failed", Some(error.layer()));
                    return Err(error);
                }
            }
        }
    }

    fn result(result: &Value) -> Option<&Value> {
        Some(result)
    }
}

/// One request, ready to send: await it (it is [`IntoFuture`]), after setting its options.
/// Made by [`Client::request`] and the methods named for what they do
/// ([`call_tool`](Client::call_tool)...).
#[must_use = "a request does nothing until it is awaited"]
pub struct Request {
    pub(super) client: Client,
    pub(super) method: String,
    pub(super) params: Value,
    pub(super) timeout: Duration,
    pub(super) progress: Option<Sink>,
    pub(super) headers: Vec<(String, String)>,
    pub(super) tool: bool,
    pub(super) fresh: bool,
}

impl Request {
    /// The deadline of this request, instead of the client's
    /// [default](super::ClientBuilder::timeout): all its rounds and every byte of the server's
    /// answers come within it, or the request is cancelled and fails with
    /// [`ClientError::Timeout`]. In 2026-07-28 the time the client's handlers take to
    /// answer questions between rounds is not counted; in the handshake era the server
    /// asks while the request waits, so it is.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Ask the server for progress (a `progressToken` in `_meta`) and give each
    /// `notifications/progress` params (`progress`, `total`, `message`) to `progress`.
    pub fn on_progress(mut self, progress: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }

    /// Send this HTTP header with the request, in place of the client's own of that name
    /// (say, a wrong `Mcp-Name`, to test a server's check). Ignored over stdio.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Ask the server even if the client's [`Cache`](super::Cache) holds a fresh result for this
    /// request; a cacheable answer replaces the cached one.
    pub fn fresh(mut self) -> Self {
        self.fresh = true;
        self
    }
}

impl IntoFuture for Request {
    type Output = Result<Value, ClientError>;
    type IntoFuture = BoxFuture<'static, Result<Value, ClientError>>;

    fn into_future(self) -> Self::IntoFuture {
        async move {
            let mut deadline = Deadline::new(self.timeout);
            let result = self
                .client
                .run(
                    &self.method,
                    self.params,
                    &mut deadline,
                    self.progress,
                    &self.headers,
                    self.fresh,
                )
                .await?;
            let mut result = result;
            if let Some(policy) = &self.client.inner.policy {
                policy.enforce(&self.method, &mut result);
            }
            if self.tool && result.get("isError") == Some(&Value::Bool(true)) {
                return Err(ClientError::Business(result));
            }
            Ok(result)
        }
        .boxed()
    }
}

/// The span of one request a client sends, as the conventions' "MCP client" span: named
/// `{mcp.method.name} {target}` (a tool's or prompt's name; the method alone otherwise).
fn client_span(
    method: &str,
    target: Option<&str>,
    version: &str,
    transport: &str,
) -> tracing::Span {
    let span = tracing::debug_span!(
        target: "mcp_runtime::client",
        "mcp.client.request",
        otel.name = Empty,
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        gen_ai.operation.name = Empty,
        mcp.resource.uri = Empty,
        jsonrpc.request.id = Empty,
        mcp.protocol.version = version,
        network.transport = crate::observe::network_transport(transport),
        network.protocol.name = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
    );
    if !span.is_disabled() {
        crate::observe::record_target(&span, method, target);
        if transport == "http" {
            span.record("network.protocol.name", "http");
        }
    }
    span
}

/// Record how a request ended in its client span: an error's code (or `tool_error` for
/// a tool's `isError: true`, `_OTHER` for a failure with no code) and an error status.
fn ended(span: &tracing::Span, ran: &Result<Value, ClientError>) {
    match ran {
        Ok(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => {
            span.record("error.type", "tool_error");
            span.record("otel.status_code", "ERROR");
        }
        Ok(_) => {}
        Err(error) => {
            match error.code() {
                Some(code) => {
                    span.record("error.type", tracing::field::display(code));
                    span.record("rpc.response.status_code", tracing::field::display(code));
                }
                None => {
                    span.record("error.type", "_OTHER");
                }
            }
            span.record("otel.status_code", "ERROR");
            span.record("otel.status_description", tracing::field::display(error));
        }
    }
}
