//! An MCP client (feature `client`): call any MCP server, over stdio (a process it spawns)
//! or Streamable HTTP, in 2026-07-28 or in the handshake era, found out without guessing.
//!
//! See [`Client`]. It shares its request/answer model (the `_meta` of a 2026-07-28
//! request, `input_required` rounds, the capabilities a handler declares) with the
//! in-process [`TestClient`](crate::testing::TestClient) of the `testing` feature.

mod cache;
mod connection;
mod error;
mod http;
mod limits;
mod safety;
mod stdio;
mod wire;

use std::future::{Future, IntoFuture};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::{FutureExt as _, Stream};
use serde_json::{json, Map, Value};

pub use cache::Cache;
use connection::Wire;
pub use error::{ClientError, Layer};
use limits::Deadline;
pub use limits::Limits;
pub use safety::{ContentPolicy, Removal, RemovalReason, ToolHints, REMOVED_META_KEY};
use wire::{Answer, Call, Host, Sink};

use crate::protocol::exchange::{self, Round};
use crate::protocol::{codes, meta, version, LogLevel};

/// The default deadline of each operation.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default time the stdio probe (`server/discover`) waits before the client takes the
/// server for a handshake-era one.
const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// The handshake-era version this client offers in `initialize` unless told otherwise.
const LEGACY_OFFERED: &str = version::LEGACY_LATEST;

/// Which protocol era a [`Client`] speaks with its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2026-07-28: no handshake; every request carries its version and the client's
    /// capabilities in `_meta`; the server asks questions in `input_required` results.
    Modern,
    /// The handshake era (2025-11-25, 2025-06-18, 2025-03-26): `initialize` opens a
    /// session; the server asks questions with requests of its own.
    Legacy,
}

/// A connection to one MCP server, as one client identity (its credentials, its handlers).
///
/// Cheap to clone (the clones share the connection); keep one per server and per
/// credential, so what one caller may see never reaches another.
///
/// [`connect`](ClientBuilder::connect) finds out the server's era without guessing: over
/// stdio it sends `server/discover` first and falls back to the `initialize` handshake when
/// the answer is not a 2026-07-28 one (or none comes within the
/// [probe timeout](ClientBuilder::probe_timeout)); over HTTP it sends `server/discover`
/// with the 2026-07-28 headers and falls back when the server refuses it without a
/// 2026-07-28 error (a 400, 404 or 405 with no recognised JSON-RPC error, or a JSON-RPC
/// error that is not one). [`pin`](ClientBuilder::pin) skips the probe. Every method then
/// works the same in both eras. Over HTTP in the handshake era, a server that has
/// forgotten the session (a 404, say after a restart) gets a new `initialize` and the
/// request again.
///
/// Requests have integer ids and a timeout; dropping a request's future cancels it on the
/// server (stdio: `notifications/cancelled`; HTTP: the response is closed, and in the
/// handshake era `notifications/cancelled` is posted too). Questions the server asks
/// (elicitation, sampling, roots) go to the handlers given to the builder, in both eras;
/// each handler also declares its client capability. A question the client declared but
/// has no handler for ends the call with [`ClientError::InputUnanswered`] (in 2026-07-28,
/// and over handshake-era HTTP, where the question comes on the call's own stream; over
/// handshake-era stdio a question names no call, so the server's request is refused with
/// -32601 and the server decides how its call ends). A question the client did not
/// declare at all is refused by the server, typically with -32021, which names the
/// capability.
///
/// Results the server marks cacheable (`ttlMs`, `cacheScope`) are served again from a
/// [`Cache`] while fresh, never across credentials when private: see [`Cache`].
///
/// Everything the server sends is untrusted input. Every operation has a deadline
/// ([`timeout`](ClientBuilder::timeout)), and [`Limits`] bound the size of each message,
/// the pages of a listing, the rounds and questions of a call and the server's requests
/// answered at once. Over HTTP nothing leaves the origin the client was given: a redirect
/// is followed only within it. The answers to `server/discover` and `initialize` must
/// have their schema's shape, and a response over HTTP must name its request. The client
/// never follows a link by itself (a `resource_link` is returned as it is, and nothing is
/// read unless asked); a [`ContentPolicy`] bounds the size and MIME types of the content
/// it hands over; what a tool says of itself is the server's claim ([`ToolHints`]).
///
/// ```no_run
/// # async fn demo() -> Result<(), mcp_runtime::client::ClientError> {
/// use mcp_runtime::client::Client;
/// use serde_json::{json, Value};
///
/// let client = Client::stdio(tokio::process::Command::new("./quickstart"))
///     .on_elicit(|_question| async { json!({"action": "accept", "content": {"confirm": true}}) })
///     .connect()
///     .await?;
/// tracing::info!(era = ?client.era(), version = client.protocol_version(), "connected");
/// let names: Vec<Value> = client.list_tools().await?.into_iter().map(|t| t["name"].clone()).collect();
/// assert!(names.contains(&json!("add")));
/// let result = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
/// assert_eq!(result["structuredContent"], 5);
/// client.close().await;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    wire: Wire,
    era: Era,
    version: String,
    /// The `server/discover` result, or the `initialize` result.
    discovered: Value,
    server_info: Option<Value>,
    capabilities: Value,
    instructions: Option<String>,
    /// The `_meta` every 2026-07-28 request carries.
    meta: Value,
    timeout: Duration,
    host: Arc<Host>,
    ids: Arc<AtomicU64>,
    cache: cache::Bound,
    policy: Option<ContentPolicy>,
    limits: Limits,
    /// Set by [`Client::close`]: every later call fails with [`ClientError::Closed`].
    closed: std::sync::atomic::AtomicBool,
}

/// Where a [`ClientBuilder`] connects.
enum Target {
    Stdio(tokio::process::Command),
    Http(String),
}

/// Configures a [`Client`]; made by [`Client::stdio`] or [`Client::http`], finished by
/// [`connect`](ClientBuilder::connect).
pub struct ClientBuilder {
    target: Target,
    headers: ::http::HeaderMap,
    header_error: Option<String>,
    pin: Option<Era>,
    version: Option<String>,
    timeout: Duration,
    probe_timeout: Duration,
    client_info: Value,
    capabilities: Option<Value>,
    log_level: Option<LogLevel>,
    host: Host,
    cache: Option<Cache>,
    policy: Option<ContentPolicy>,
    limits: Limits,
}

impl Client {
    /// A client of the server `command` starts: its stdin and stdout become the
    /// connection (its stderr is left as the command has it). The process is killed when
    /// the last clone of the client is dropped; [`close`](Client::close) lets it exit.
    pub fn stdio(command: tokio::process::Command) -> ClientBuilder {
        ClientBuilder::new(Target::Stdio(command))
    }

    /// A client of the Streamable HTTP endpoint at `url` (e.g.
    /// `http://127.0.0.1:8080/mcp`).
    pub fn http(url: impl AsRef<str>) -> ClientBuilder {
        ClientBuilder::new(Target::Http(url.as_ref().to_owned()))
    }

    /// The era the client and the server speak.
    pub fn era(&self) -> Era {
        self.inner.era
    }

    /// The protocol version the client and the server speak (`2026-07-28`, or the version
    /// the handshake settled on).
    pub fn protocol_version(&self) -> &str {
        &self.inner.version
    }

    /// The server's `Implementation` (name, version...), if it said: from
    /// `_meta["io.modelcontextprotocol/serverInfo"]` of the `server/discover` result, or
    /// `serverInfo` of the `initialize` result.
    pub fn server_info(&self) -> Option<&Value> {
        self.inner.server_info.as_ref()
    }

    /// The server's capabilities (`ServerCapabilities`; an empty object if it named none).
    pub fn capabilities(&self) -> &Value {
        &self.inner.capabilities
    }

    /// The server's instructions for the model, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// What the server said about itself when the client connected: the whole
    /// `server/discover` result (2026-07-28) or `initialize` result (handshake era).
    pub fn discovery(&self) -> &Value {
        &self.inner.discovered
    }

    /// Send a request: `method` with `params` (an object). In 2026-07-28 the client adds
    /// its `_meta` (the caller's keys win) and answers `input_required` rounds with its
    /// handlers; the result is the final one. Await it, or set
    /// [`timeout`](Request::timeout), [`on_progress`](Request::on_progress) or
    /// [`header`](Request::header) first.
    pub fn request(&self, method: &str, params: Value) -> Request {
        Request {
            client: self.clone(),
            method: method.to_owned(),
            params,
            timeout: self.inner.timeout,
            progress: None,
            headers: Vec::new(),
            tool: false,
            fresh: false,
        }
    }

    /// Call a tool: its `CallToolResult`. A result with `isError: true` (the tool ran and
    /// failed) is [`ClientError::Business`].
    pub fn call_tool(&self, name: &str, arguments: Value) -> Request {
        let mut request = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        request.tool = true;
        request
    }

    /// Read a resource: its `ReadResourceResult`.
    pub fn read_resource(&self, uri: &str) -> Request {
        self.request("resources/read", json!({"uri": uri}))
    }

    /// Get a prompt with its arguments (an object of strings): its `GetPromptResult`.
    pub fn get_prompt(&self, name: &str, arguments: Value) -> Request {
        self.request("prompts/get", json!({"name": name, "arguments": arguments}))
    }

    /// The server's tools, page after page (following `nextCursor`), all within one
    /// deadline (the client's [timeout](ClientBuilder::timeout)) and the [`Limits`] of a
    /// listing; a cursor the server gave before in the same listing ends it with an
    /// error. What a tool says of itself (its description, its `annotations`) is the
    /// server's claim: see [`ToolHints`].
    pub fn tools(&self) -> impl Stream<Item = Result<Value, ClientError>> + Send + 'static {
        self.pages("tools/list", "tools", self.inner.timeout)
    }

    /// The server's resources, page after page.
    pub fn resources(&self) -> impl Stream<Item = Result<Value, ClientError>> + Send + 'static {
        self.pages("resources/list", "resources", self.inner.timeout)
    }

    /// The server's resource templates, page after page.
    pub fn resource_templates(
        &self,
    ) -> impl Stream<Item = Result<Value, ClientError>> + Send + 'static {
        self.pages(
            "resources/templates/list",
            "resourceTemplates",
            self.inner.timeout,
        )
    }

    /// The server's prompts, page after page.
    pub fn prompts(&self) -> impl Stream<Item = Result<Value, ClientError>> + Send + 'static {
        self.pages("prompts/list", "prompts", self.inner.timeout)
    }

    /// All the server's tools (every page).
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        collect(self.tools()).await
    }

    /// All the server's resources (every page).
    pub async fn list_resources(&self) -> Result<Vec<Value>, ClientError> {
        collect(self.resources()).await
    }

    /// All the server's resource templates (every page).
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, ClientError> {
        collect(self.resource_templates()).await
    }

    /// All the server's prompts (every page).
    pub async fn list_prompts(&self) -> Result<Vec<Value>, ClientError> {
        collect(self.prompts()).await
    }

    /// Open a `subscriptions/listen` subscription (2026-07-28) for `notifications`, a
    /// `SubscriptionFilter` such as `{"toolsListChanged": true, "resourceSubscriptions":
    /// ["file:///a"]}`; it is open once the server acknowledged it. The [`Subscription`]
    /// yields the notifications the server then sends for it, and ends when the server
    /// ends the subscription; dropping it cancels the listen request. A handshake-era
    /// server answers the method with an error of its own (-32601 usually).
    pub async fn listen(&self, notifications: Value) -> Result<Subscription, ClientError> {
        let inner = &*self.inner;
        if inner.closed.load(Ordering::Relaxed) {
            return Err(ClientError::Closed);
        }
        let modern = inner.era == Era::Modern;
        let mut params = json!({ "notifications": notifications });
        if modern {
            params = exchange::with_meta(params, inner.meta.clone());
        }
        let id = self.next_id();
        let trace = Trace {
            version: &inner.version,
            transport: inner.wire.transport(),
            method: "subscriptions/listen",
            name: "",
        };
        trace.event(id, "sent", None);
        let call = Call {
            id: Some(id),
            method: "subscriptions/listen",
            params: &params,
            version: &inner.version,
            modern,
            progress: None,
            headers: &[],
            cancel: Some(self.cancellation(id)),
        };
        let opened = Deadline::new(inner.timeout)
            .wait("subscriptions/listen", inner.wire.listen(call))
            .await;
        match opened {
            Ok(listening) => {
                trace.event(id, "completed", None);
                Ok(Subscription {
                    listening,
                    cache: inner.cache.clone(),
                })
            }
            Err(error) => {
                trace.event(id, "failed", Some(error.layer()));
                Err(error)
            }
        }
    }

    /// Close the connection, for every clone: over stdio, close the server's input and
    /// give it a moment to exit (then kill it); over HTTP in the handshake era, end the
    /// session with a DELETE. Later calls fail with [`ClientError::Closed`]; calls still
    /// running over stdio fail with a transport error.
    pub async fn close(self) {
        self.inner.closed.store(true, Ordering::Relaxed);
        self.inner.wire.close().await;
    }

    /// A listing: `method`'s pages, their items under `key`, within `timeout` and the
    /// client's limits.
    fn pages(
        &self,
        method: &'static str,
        key: &'static str,
        timeout: Duration,
    ) -> impl Stream<Item = Result<Value, ClientError>> + Send + 'static {
        let client = self.clone();
        let listing = Listing {
            cursor: None,
            done: false,
            deadline: Deadline::new(timeout),
            pages: 0,
            bytes: 0,
            seen: std::collections::HashSet::new(),
        };
        let pages = futures_util::stream::unfold(listing, move |mut listing| {
            let client = client.clone();
            async move {
                if listing.done {
                    return None;
                }
                let page = client.page(method, key, &mut listing).await;
                let items = match page {
                    Ok((items, next)) => {
                        match next {
                            Some(cursor) => listing.cursor = Some(cursor),
                            None => listing.done = true,
                        }
                        items.into_iter().map(Ok).collect()
                    }
                    Err(error) => {
                        listing.done = true;
                        vec![Err(error)]
                    }
                };
                Some((futures_util::stream::iter(items), listing))
            }
        });
        futures_util::StreamExt::flatten(pages)
    }

    /// One page of a listing: its items and the next cursor, if any.
    async fn page(
        &self,
        method: &str,
        key: &str,
        listing: &mut Listing,
    ) -> Result<(Vec<Value>, Option<String>), ClientError> {
        let limits = self.inner.limits;
        if listing.pages == limits.pages {
            return Err(ClientError::limit(
                "max_pages",
                limits.pages,
                format!("{method} has more than {} pages", limits.pages),
            ));
        }
        listing.pages += 1;
        let params = match &listing.cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        // Boxed: a call may list the tools again (`run`), which lists here.
        let mut page = self
            .run(method, params, &mut listing.deadline, None, &[], false)
            .boxed()
            .await?;
        let items = match page.get_mut(key).map(Value::take) {
            Some(Value::Array(items)) => items,
            None | Some(Value::Null) => Vec::new(),
            Some(_) => {
                return Err(ClientError::malformed(format!(
                    "the {key} of a {method} page are not an array"
                )))
            }
        };
        let next = match page.get("nextCursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor.clone()),
            Some(_) => {
                return Err(ClientError::malformed(format!(
                    "the nextCursor of a {method} page is not a string"
                )))
            }
        };
        listing.bytes += items.iter().map(json_len).sum::<usize>();
        listing.bytes += next.as_ref().map_or(0, String::len);
        if listing.bytes > limits.list_bytes {
            return Err(ClientError::limit(
                "max_list_bytes",
                limits.list_bytes,
                format!(
                    "the pages of {method} hold more than {} bytes",
                    limits.list_bytes
                ),
            ));
        }
        if let Some(cursor) = &next {
            if !listing.seen.insert(cursor.clone()) {
                return Err(ClientError::malformed(format!(
                    "{method}: page {} gives a cursor an earlier page gave, so the listing would never end",
                    listing.pages
                )));
            }
        }
        Ok((items, next))
    }

    fn next_id(&self) -> u64 {
        self.inner.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// One request, all its rounds.
    async fn run(
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
        let mut relisted = false;
        let rounds = inner.limits.rounds;
        for round in 0..rounds {
            let id = self.next_id();
            let call = Call {
                id: Some(id),
                method,
                params: &params,
                version: &inner.version,
                modern,
                progress: token.as_ref().zip(progress.as_ref()),
                headers,
                cancel: Some(self.cancellation(id)),
            };
            trace.event(id, "sent", None);
            let response = deadline.wait(method, inner.wire.send(call)).await;
            let mut result = match response.and_then(result_of) {
                Ok(result) => result,
                Err(error) if self.relist_for(method, &error, &mut relisted) => {
                    trace.event(id, "failed", Some(error.layer()));
                    // The server wants `Mcp-Param-*` headers this client did not know the
                    // tool has: learn them from `tools/list`, then send the call again
                    // (streamable-http, "Client Behavior"). A cached list is stale, then.
                    inner
                        .cache
                        .notified(&json!({"method": "notifications/tools/list_changed"}));
                    let listed = self.pages("tools/list", "tools", deadline.left());
                    deadline.wait("tools/list", collect(listed)).await?;
                    continue;
                }
                Err(error) => {
                    trace.event(id, "failed", Some(error.layer()));
                    return Err(error);
                }
            };
            let answers = match exchange::round(&result) {
                Round::Final => {
                    trace.event(id, "completed", None);
                    self.learn(method, &mut result);
                    // The result of a retry answered questions: not for anyone else.
                    if let (0, Some(asked)) = (round, &asked) {
                        inner
                            .cache
                            .store(&inner.version, method, asked, headers, &result);
                    }
                    return Ok(result);
                }
                Round::Unknown(kind) => {
                    let error = ClientError::malformed(format!(
                        "a result of type {kind:?}, which this client did not ask for"
                    ));
                    trace.event(id, "failed", Some(error.layer()));
                    return Err(error);
                }
                Round::InputRequired { requests, state } => {
                    trace.event(id, "input_required", None);
                    let state = state.cloned();
                    let requests = requests.cloned().unwrap_or_default();
                    (self.answer(requests).await, state)
                }
            };
            match answers {
                (Ok(responses), state) => {
                    params = exchange::next_round(&params, responses, state.as_ref());
                }
                (Err(error), _) => {
                    trace.event(id, "failed", Some(error.layer()));
                    return Err(error);
                }
            }
        }
        Err(ClientError::limit(
            "max_rounds",
            rounds,
            format!("the server still asked for input after {rounds} rounds of {method}"),
        ))
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

    /// The `inputResponses` for an `input_required` result's questions.
    async fn answer(
        &self,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let most = self.inner.limits.questions;
        if requests.len() > most {
            return Err(ClientError::limit(
                "max_questions",
                most,
                format!(
                    "the server asked {} questions in one round; none was put to a handler",
                    requests.len()
                ),
            ));
        }
        let mut responses = Map::new();
        for (key, request) in requests {
            let (method, params) = exchange::asked(&request);
            let method = method.unwrap_or_default();
            let answer = exchange::Question::of_method(method)
                .and_then(|question| self.inner.host.answer(question));
            let Some(answer) = answer else {
                return Err(ClientError::InputUnanswered {
                    method: method.to_owned(),
                    params: params.clone(),
                });
            };
            responses.insert(key, answer(params.clone()).await);
        }
        Ok(responses)
    }

    /// The notification that cancels request `id`.
    fn cancellation(&self, id: u64) -> Value {
        let mut params = json!({"requestId": id, "reason": "the client no longer waits for it"});
        if self.inner.era == Era::Modern {
            params = exchange::with_meta(params, self.inner.meta.clone());
        }
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
    }
}

/// The trace events of one request: one per phase, with the fields the server's request
/// spans have.
struct Trace<'a> {
    version: &'a str,
    transport: &'static str,
    method: &'a str,
    name: &'a str,
}

impl Trace<'_> {
    fn event(&self, request_id: u64, phase: &'static str, layer: Option<Layer>) {
        tracing::debug!(
            target: "mcp_runtime::client",
            protocol_version = self.version,
            transport = self.transport,
            method = self.method,
            name = self.name,
            request_id,
            phase,
            error_layer = layer.map(Layer::as_str).unwrap_or_default(),
            "mcp request {phase}"
        );
    }
}

/// The result of a response message, or its error in its layer.
fn result_of(response: Value) -> Result<Value, ClientError> {
    match response {
        Value::Object(mut message) => {
            if let Some(result) = message.remove("result") {
                return Ok(result);
            }
            match message.get("error") {
                Some(error) => Err(ClientError::from_rpc(error)),
                None => Err(ClientError::malformed(
                    "a response with neither result nor error",
                )),
            }
        }
        _ => Err(ClientError::malformed("a response that is not an object")),
    }
}

async fn collect(
    stream: impl Stream<Item = Result<Value, ClientError>>,
) -> Result<Vec<Value>, ClientError> {
    futures_util::TryStreamExt::try_collect(stream).await
}

/// An open `subscriptions/listen` subscription (see [`Client::listen`]): a stream of
/// the notification messages (`{"method": .., "params": ..}`) the server sends for it.
/// It ends when the server ends the subscription or the connection ends; dropping it
/// cancels the listen request on the server. A `list_changed` or `resources/updated`
/// notification has dropped what it names from the client's [`Cache`] by the time the
/// stream yields it.
pub struct Subscription {
    listening: wire::Listening,
    cache: cache::Bound,
}

impl Subscription {
    /// The notifications the server agreed to send (the acknowledgement's
    /// `notifications`: what was asked, less what the server does not support).
    pub fn acknowledged(&self) -> &Value {
        &self.listening.acknowledged
    }
}

impl Stream for Subscription {
    type Item = Value;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Value>> {
        let next = self.listening.notifications.poll_recv(cx);
        if let std::task::Poll::Ready(Some(notification)) = &next {
            self.cache.notified(notification);
        }
        next
    }
}

/// One request, ready to send: await it (it is [`IntoFuture`]), after setting its options.
/// Made by [`Client::request`] and the methods named for what they do
/// ([`call_tool`](Client::call_tool)...).
#[must_use = "a request does nothing until it is awaited"]
pub struct Request {
    client: Client,
    method: String,
    params: Value,
    timeout: Duration,
    progress: Option<Sink>,
    headers: Vec<(String, String)>,
    tool: bool,
    fresh: bool,
}

impl Request {
    /// The deadline of this request, instead of the client's
    /// [default](ClientBuilder::timeout): all its rounds and every byte of the server's
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

    /// Ask the server even if the client's [`Cache`] holds a fresh result for this
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

impl ClientBuilder {
    fn new(target: Target) -> Self {
        ClientBuilder {
            target,
            headers: ::http::HeaderMap::new(),
            header_error: None,
            pin: None,
            version: None,
            timeout: DEFAULT_TIMEOUT,
            probe_timeout: DEFAULT_PROBE_TIMEOUT,
            client_info: json!({"name": "mcp-runtime-client", "version": env!("CARGO_PKG_VERSION")}),
            capabilities: None,
            log_level: None,
            host: Host::default(),
            cache: None,
            policy: None,
            limits: Limits::default(),
        }
    }

    /// Send this HTTP header with every request (credentials, say). Ignored over stdio.
    /// An invalid name or value makes [`connect`](ClientBuilder::connect) fail.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (
            ::http::HeaderName::from_bytes(name.as_bytes()),
            ::http::HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                self.headers.insert(name, value);
            }
            _ => self.header_error = Some(format!("invalid HTTP header {name:?}")),
        }
        self
    }

    /// Send `Authorization: Bearer <token>` with every request. Ignored over stdio.
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Speak this era only, without probing: [`Era::Modern`] fails where the server does
    /// not speak 2026-07-28; [`Era::Legacy`] opens with `initialize` at once.
    pub fn pin(mut self, era: Era) -> Self {
        self.pin = Some(era);
        self
    }

    /// Speak this protocol version only (which pins its era): `2026-07-28`, or a
    /// handshake-era version to offer in `initialize` (`2025-11-25`, `2025-06-18`,
    /// `2025-03-26`).
    pub fn protocol_version(mut self, version: &str) -> Self {
        self.pin = Some(if version::MODERN_VERSIONS.contains(&version) {
            Era::Modern
        } else {
            Era::Legacy
        });
        self.version = Some(version.to_owned());
        self
    }

    /// The deadline of each operation, unless a request says otherwise
    /// ([`Request::timeout`]): a request with all its rounds, a listing with all its pages,
    /// [`connect`](ClientBuilder::connect) with its probe and handshake; every byte of the
    /// server's answers must come within it. The requests the client sends of its own
    /// (closing a handshake-era session, answering the server's questions, cancelling)
    /// wait at most this long too. Default: 60 seconds.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long the stdio probe (`server/discover`) waits for an answer before the client
    /// takes the server for a handshake-era one that stays silent. Default: 5 seconds.
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// The client's name and version, as the server sees them (`clientInfo`).
    pub fn client_info(mut self, name: &str, version: &str) -> Self {
        self.client_info = json!({"name": name, "version": version});
        self
    }

    /// Client capabilities to declare besides those of the handlers (a
    /// `ClientCapabilities` object, e.g. `{"extensions": {..}}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Answer the server's elicitations with `answer(params)`, which gives the
    /// `ElicitResult` (`{"action": "accept", "content": {..}}`, `{"action": "decline"}`
    /// or `{"action": "cancel"}`). Declares the `elicitation` capability.
    pub fn on_elicit<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.host.elicit = Some(boxed(answer));
        self
    }

    /// Answer the server's sampling requests with `answer(params)`, which gives the
    /// `CreateMessageResult` (`{"role": "assistant", "content": {..}, "model": ".."}`).
    /// Declares the `sampling` capability.
    pub fn on_sample<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.host.sample = Some(boxed(answer));
        self
    }

    /// Answer the server's `roots/list` with `answer(params)`, which gives the
    /// `ListRootsResult` (`{"roots": [{"uri": "file:///work"}]}`). Declares the `roots`
    /// capability.
    pub fn on_roots<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.host.roots = Some(boxed(answer));
        self
    }

    /// Ask for the server's log messages at `level` and above (2026-07-28: the `logLevel`
    /// of each request's `_meta`; handshake era: `logging/setLevel` after the handshake,
    /// if the server has the `logging` capability), and give each `notifications/message`
    /// params (`level`, `logger`, `data`) to `log`.
    pub fn on_log(mut self, level: LogLevel, log: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.log_level = Some(level);
        self.host.log = Some(Arc::new(log));
        self
    }

    /// Keep cacheable results in `cache` (shared with the other clients given it) instead
    /// of a cache of this client's own: see [`Cache`] for what is kept and for whom.
    pub fn cache(mut self, cache: &Cache) -> Self {
        self.cache = Some(cache.clone());
        self
    }

    /// Apply `policy` to the content of every tool result, resource read and prompt the
    /// server sends: see [`ContentPolicy`]. Default: none, the content arrives as the
    /// server sent it.
    pub fn content_policy(mut self, policy: ContentPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// These limits and this timeout where they are tighter than the builder's own.
    pub(crate) fn at_most(mut self, limits: Limits, timeout: Duration) -> Self {
        self.limits = self.limits.tightest(limits);
        self.timeout = self.timeout.min(timeout);
        self
    }

    /// Bound what the server may send: see [`Limits`]. Default: [`Limits::default`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Start (stdio) or reach (HTTP) the server and find out its era: see [`Client`].
    pub async fn connect(mut self) -> Result<Client, ClientError> {
        if let Some(error) = self.header_error {
            return Err(ClientError::transport(error));
        }
        let declared = exchange::declare(self.capabilities.as_ref(), self.host.answered());
        let cache = self.bound_cache(&declared);
        let invalidate = cache.clone();
        self.host.changed = Some(Arc::new(move |notification| {
            invalidate.notified(&notification)
        }));
        let host = Arc::new(self.host);
        let ids = Arc::new(AtomicU64::new(1));
        let wire = match self.target {
            Target::Stdio(command) => Wire::Stdio(Box::new(stdio::Pipe::spawn(
                command,
                host.clone(),
                self.limits,
            )?)),
            Target::Http(url) => Wire::Http(Arc::new(http::Endpoint::new(
                &url,
                self.headers,
                host.clone(),
                ids.clone(),
                self.limits,
                self.timeout,
            )?)),
        };
        let modern_version = match (&self.version, self.pin) {
            (Some(version), Some(Era::Modern)) => version.clone(),
            _ => version::MODERN.to_owned(),
        };
        let mut meta =
            exchange::modern_meta(&modern_version, declared.clone(), self.client_info.clone());
        if let (Some(level), Value::Object(map)) = (self.log_level, &mut meta) {
            map.insert(meta::LOG_LEVEL.into(), json!(level));
        }
        let mut client = Inner {
            wire,
            era: Era::Modern,
            version: modern_version,
            discovered: Value::Null,
            server_info: None,
            capabilities: json!({}),
            instructions: None,
            meta,
            timeout: self.timeout,
            host,
            ids,
            cache,
            policy: self.policy,
            limits: self.limits,
            closed: std::sync::atomic::AtomicBool::new(false),
        };
        let legacy_version = match (&self.version, self.pin) {
            (Some(version), Some(Era::Legacy)) => version.clone(),
            _ => LEGACY_OFFERED.to_owned(),
        };
        let opening = Opening {
            declared,
            client_info: self.client_info,
            log_level: self.log_level,
        };
        let mut deadline = Deadline::new(self.timeout);
        match self.pin {
            Some(Era::Legacy) => {
                client
                    .handshake(&legacy_version, &opening, &mut deadline)
                    .await?
            }
            Some(Era::Modern) => {
                if !client.discover_cached() {
                    let discovered = client.discover(&mut deadline, None).await?;
                    let result = client.discovered(result_of(discovered)?)?;
                    client.adopt_and_keep(result);
                }
            }
            None if client.discover_cached() => {}
            None => {
                // Over stdio a handshake-era server may stay silent: the probe waits less.
                let probe = match client.wire {
                    Wire::Stdio(_) => Some(self.probe_timeout),
                    Wire::Http(_) => None,
                };
                match client.probe(&mut deadline, probe).await? {
                    Probed::Modern(result) => client.adopt_and_keep(result),
                    Probed::Legacy(version) => {
                        let version = version.unwrap_or(legacy_version);
                        client.handshake(&version, &opening, &mut deadline).await?;
                    }
                }
            }
        }
        if client.era == Era::Modern {
            client.wire.speak_modern();
        }
        tracing::debug!(
            target: "mcp_runtime::client",
            transport = client.wire.transport(),
            protocol_version = client.version.as_str(),
            era = ?client.era,
            "connected"
        );
        Ok(Client {
            inner: Arc::new(client),
        })
    }
}

/// What the handshake declares.
struct Opening {
    declared: Value,
    client_info: Value,
    log_level: Option<LogLevel>,
}

/// What the probe found out.
enum Probed {
    /// A 2026-07-28 server: its `server/discover` result.
    Modern(Value),
    /// A handshake-era server; the version to offer, when the server named one.
    Legacy(Option<String>),
}

impl Inner {
    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Send `server/discover` with this client's 2026-07-28 `_meta`, waiting at most
    /// `within` (or the deadline): the response message.
    async fn discover(
        &self,
        deadline: &mut Deadline,
        within: Option<Duration>,
    ) -> Result<Value, ClientError> {
        let params = exchange::with_meta(json!({}), self.meta.clone());
        let call = Call {
            id: Some(self.next_id()),
            method: "server/discover",
            params: &params,
            version: &self.version,
            modern: true,
            progress: None,
            headers: &[],
            // A handshake-era server must see nothing but `initialize` after the probe.
            cancel: None,
        };
        deadline
            .wait_within(within, "server/discover", self.wire.send(call))
            .await
    }

    /// Find out the era: `server/discover`, read as the spec says a dual-era client reads
    /// it (versioning, "Backward Compatibility"; stdio and Streamable HTTP,
    /// "Backward Compatibility").
    async fn probe(
        &mut self,
        deadline: &mut Deadline,
        within: Option<Duration>,
    ) -> Result<Probed, ClientError> {
        for _ in 0..2 {
            let response = match self.discover(deadline, within).await {
                Ok(response) => response,
                // stdio: no answer in time is a handshake-era server staying silent.
                Err(ClientError::Timeout { after, .. }) if Some(after) == within => {
                    return Ok(Probed::Legacy(None));
                }
                // HTTP: refused without a JSON-RPC error body.
                Err(ClientError::Transport {
                    status: Some(400 | 404 | 405),
                    ..
                }) => return Ok(Probed::Legacy(None)),
                Err(error) => return Err(error),
            };
            let error = match result_of(response) {
                Ok(result) => return Ok(Probed::Modern(self.discovered(result)?)),
                Err(error) => error,
            };
            match error.code() {
                Some(codes::UNSUPPORTED_PROTOCOL_VERSION) => {
                    let supported = supported_versions(&error);
                    if let Some(modern) = supported
                        .iter()
                        .find(|v| version::MODERN_VERSIONS.contains(&v.as_str()))
                    {
                        if *modern != self.version {
                            self.set_modern_version(modern);
                            continue;
                        }
                    }
                    // A server that speaks only handshake-era versions this client knows.
                    return match supported
                        .iter()
                        .find(|v| version::LEGACY_VERSIONS.contains(&v.as_str()))
                    {
                        Some(legacy) => Ok(Probed::Legacy(Some(legacy.clone()))),
                        None => Err(no_common_version(&supported)),
                    };
                }
                // The other 2026-07-28 errors: a modern server refusing this client.
                Some(codes::HEADER_MISMATCH | codes::MISSING_CLIENT_CAPABILITY) => {
                    return Err(error)
                }
                // Anything else (-32601 first): a server that does not know
                // `server/discover`.
                _ => return Ok(Probed::Legacy(None)),
            }
        }
        Err(ClientError::malformed(
            "the server refused every protocol version it said it supports",
        ))
    }

    /// `result`, if it is a `DiscoverResult` this client can speak with: an object with
    /// `supportedVersions` (strings, the version this client speaks among them) and
    /// `capabilities` (an object), and `instructions` a string where there are some.
    fn discovered(&self, result: Value) -> Result<Value, ClientError> {
        let wrong = |what: &str| {
            Err(ClientError::malformed(format!(
                "the server's answer to server/discover is not a DiscoverResult: {what}"
            )))
        };
        let Value::Object(fields) = &result else {
            return wrong("it is not an object");
        };
        if !matches!(exchange::round(&result), Round::Final) {
            return wrong("its resultType is not complete");
        }
        let supported: Option<Vec<String>> = match fields.get("supportedVersions") {
            Some(Value::Array(versions)) => versions
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => None,
        };
        let Some(supported) = supported else {
            return wrong("supportedVersions is not a list of versions");
        };
        if !matches!(fields.get("capabilities"), Some(Value::Object(_))) {
            return wrong("capabilities is not an object");
        }
        if fields.get("instructions").is_some_and(|i| !i.is_string()) {
            return wrong("instructions is not a string");
        }
        if !supported.contains(&self.version) {
            return Err(no_common_version(&supported));
        }
        Ok(result)
    }

    /// Adopt a fresh `server/discover` result from the cache, if there is one.
    fn discover_cached(&mut self) -> bool {
        match self
            .cache
            .lookup(&self.version, "server/discover", &json!({}), &[])
        {
            Some(result) => {
                self.adopt(result);
                true
            }
            None => false,
        }
    }

    /// Adopt a `server/discover` result the server sent, and keep it if it may be.
    fn adopt_and_keep(&mut self, result: Value) {
        self.cache
            .store(&self.version, "server/discover", &json!({}), &[], &result);
        self.adopt(result);
    }

    fn set_modern_version(&mut self, modern: &str) {
        self.version = modern.to_owned();
        if let Some(Value::Object(map)) = Some(&mut self.meta) {
            map.insert(meta::PROTOCOL_VERSION.into(), json!(modern));
        }
    }

    /// Take a `server/discover` result as what the server is.
    fn adopt(&mut self, result: Value) {
        self.era = Era::Modern;
        self.server_info = result
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
            .cloned();
        self.capabilities = result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({}));
        self.instructions = result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.discovered = result;
    }

    /// The `initialize` request and `notifications/initialized`, offering `offered`, all
    /// within `deadline`.
    async fn handshake(
        &mut self,
        offered: &str,
        opening: &Opening,
        deadline: &mut Deadline,
    ) -> Result<(), ClientError> {
        let params = json!({
            "protocolVersion": offered,
            "capabilities": opening.declared,
            "clientInfo": opening.client_info,
        });
        let call = Call {
            id: Some(self.next_id()),
            method: "initialize",
            params: &params,
            version: offered,
            modern: false,
            progress: None,
            headers: &[],
            cancel: None,
        };
        let response = deadline.wait("initialize", self.wire.send(call)).await?;
        let result = initialized(result_of(response)?)?;
        let agreed = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !version::LEGACY_VERSIONS.contains(&agreed) {
            return Err(no_common_version(&[agreed.to_owned()]));
        }
        self.era = Era::Legacy;
        self.version = agreed.to_owned();
        self.server_info = result.get("serverInfo").cloned();
        self.capabilities = result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({}));
        self.instructions = result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.discovered = result;
        let initialized = Call {
            id: None,
            method: "notifications/initialized",
            params: &json!({}),
            version: &self.version,
            modern: false,
            progress: None,
            headers: &[],
            cancel: None,
        };
        deadline
            .wait("notifications/initialized", self.wire.send(initialized))
            .await?;
        if let Some(level) = opening.log_level {
            if self.capabilities.get("logging").is_some() {
                let params = json!({"level": level});
                let call = Call {
                    id: Some(self.next_id()),
                    method: "logging/setLevel",
                    params: &params,
                    version: &self.version,
                    modern: false,
                    progress: None,
                    headers: &[],
                    cancel: None,
                };
                let response = deadline
                    .wait("logging/setLevel", self.wire.send(call))
                    .await?;
                result_of(response)?;
            }
        }
        Ok(())
    }
}

/// Where a listing is (see [`Client::pages`]), and what it has taken so far.
struct Listing {
    /// The next page's cursor (`None` before the first page).
    cursor: Option<String>,
    done: bool,
    deadline: Deadline,
    pages: usize,
    /// The JSON bytes of the items and cursors taken so far.
    bytes: usize,
    /// Every cursor given so far: one given again would page forever.
    seen: std::collections::HashSet<String>,
}

/// `result`, if it is an `InitializeResult`: an object with `protocolVersion` (a string),
/// `capabilities` and `serverInfo` (objects), and `instructions` a string where there are
/// some.
fn initialized(result: Value) -> Result<Value, ClientError> {
    let wrong = |what: &str| {
        Err(ClientError::malformed(format!(
            "the server's answer to initialize is not an InitializeResult: {what}"
        )))
    };
    let Value::Object(fields) = &result else {
        return wrong("it is not an object");
    };
    if !fields.get("protocolVersion").is_some_and(Value::is_string) {
        return wrong("protocolVersion is not a string");
    }
    if !matches!(fields.get("capabilities"), Some(Value::Object(_))) {
        return wrong("capabilities is not an object");
    }
    if !matches!(fields.get("serverInfo"), Some(Value::Object(_))) {
        return wrong("serverInfo is not an object");
    }
    if fields.get("instructions").is_some_and(|i| !i.is_string()) {
        return wrong("instructions is not a string");
    }
    Ok(result)
}

/// The error of a server with no protocol version in common with this client, naming both
/// lists.
fn no_common_version(supported: &[String]) -> ClientError {
    let spoken: Vec<&str> = version::MODERN_VERSIONS
        .iter()
        .chain(version::LEGACY_VERSIONS)
        .copied()
        .collect();
    ClientError::Mcp {
        code: codes::UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "no protocol version in common: the server supports {}, this client speaks {}",
            if supported.is_empty() {
                "none".to_owned()
            } else {
                supported.join(", ")
            },
            spoken.join(", ")
        ),
        data: Some(json!({"supported": supported, "spoken": spoken})),
    }
}

/// The length of `value` as JSON, counted without writing it out.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The `supported` versions of an `UnsupportedProtocolVersionError`.
fn supported_versions(error: &ClientError) -> Vec<String> {
    let data = match error {
        ClientError::Mcp {
            data: Some(data), ..
        } => data,
        _ => return Vec::new(),
    };
    data.get("supported")
        .and_then(Value::as_array)
        .map(|versions| {
            versions
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// An async handler, boxed.
fn boxed<F, Fut>(answer: F) -> Answer
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Value> + Send + 'static,
{
    Arc::new(move |params| answer(params).boxed())
}

impl ClientBuilder {
    /// The cache this client uses, seen from its server and its credential.
    fn bound_cache(&mut self, declared: &Value) -> cache::Bound {
        let (server, credential) = match &self.target {
            Target::Http(url) => (
                cache::http_server(url),
                cache::http_credential(&self.headers),
            ),
            Target::Stdio(command) => (
                cache::stdio_server(command),
                cache::stdio_credential(command),
            ),
        };
        let declared = json!({
            "capabilities": declared,
            "clientInfo": self.client_info,
            "logLevel": self.log_level,
        });
        cache::Bound::new(
            self.cache.take().unwrap_or_default(),
            &server,
            &declared,
            credential,
        )
    }
}
