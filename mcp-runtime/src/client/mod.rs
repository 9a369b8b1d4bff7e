//! An MCP client (feature `client`): call any MCP server, over stdio (a process it spawns)
//! or Streamable HTTP, in 2026-07-28 or in the handshake era, found out without guessing.
//!
//! See [`Client`]. It shares its request/answer model with the in-process `TestClient`
//! and `HttpTestClient` of the `testing` feature: the `_meta` of a 2026-07-28 request,
//! the [`Answers`] that answer the server's questions (the same value works with all
//! three, given with the same methods), the `input_required` rounds they answer, and
//! `call_tool_as`. That model lives in `protocol` (`protocol/answers.rs`,
//! `protocol/exchange.rs`, `protocol/typed.rs`): neither this module nor the test kit may
//! depend on the other, and both stand on the wire model; it does no I/O, so each client
//! passes the way one round travels (here: [`Request`] over stdio or HTTP, within its
//! deadline and limits).

mod builder;
mod cache;
mod connection;
mod error;
mod http;
mod limits;
mod listing;
mod opening;
mod request;
mod safety;
mod stdio;
mod weight;
mod wire;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

pub use crate::protocol::answers::Answers;
pub use cache::Cache;
use connection::Wire;
pub use error::{ClientError, Layer};
use limits::Deadline;
pub use limits::Limits;
pub use request::Request;
pub use safety::{ContentPolicy, Removal, RemovalReason, ToolHints, REMOVED_META_KEY};
use wire::{Call, Host};

use crate::protocol::exchange;
use crate::protocol::typed;
use crate::protocol::{version, LogLevel};

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
/// (elicitation, sampling, roots) go to the [`Answers`] given to the builder
/// ([`answers`](ClientBuilder::answers), [`on_elicit`](ClientBuilder::on_elicit)...), in
/// both eras; each handler also declares its client capability. A question the client declared but
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

    /// Call a tool and read its structured content as a `T`, as the test kit's
    /// `TestClient::call_tool_as` does (feature `testing`). A
    /// result with `isError: true` is [`ClientError::Business`]; one without
    /// `structuredContent`, or whose `structuredContent` does not deserialize into `T`, is
    /// [`ClientError::UnexpectedResult`], which names `T` and gives the deserializer's
    /// error. For a deadline or progress of the call's own, use
    /// [`call_tool`](Client::call_tool).
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let sum: i64 = client.call_tool_as("add", serde_json::json!({"a": 2, "b": 3})).await?;
    /// assert_eq!(sum, 5);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<T, ClientError> {
        let result = self.call_tool(name, arguments).await?;
        typed::structured(&result)
            .map_err(|untyped| ClientError::untyped::<T>(untyped, name, result))
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

    /// A snapshot of everything the server offers, for a repository to keep and
    /// `mcp catalog diff` to compare: its tools, resources, resource templates and prompts
    /// (those of the kinds its capabilities declare), each keyed by its name, URI or
    /// template, with object members sorted so that the same catalog always prints the
    /// same text (`serde_json::to_string_pretty`). The server's name and version are left
    /// out: the snapshot is the contract, wherever it is served.
    pub async fn catalog(&self) -> Result<Value, ClientError> {
        let declares = |kind: &str| self.capabilities().get(kind).is_some();
        let tools = if declares("tools") {
            self.list_tools().await?
        } else {
            Vec::new()
        };
        let (resources, templates) = if declares("resources") {
            (
                self.list_resources().await?,
                self.list_resource_templates().await?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let prompts = if declares("prompts") {
            self.list_prompts().await?
        } else {
            Vec::new()
        };
        Ok(crate::protocol::catalog::snapshot(
            tools, resources, templates, prompts,
        ))
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
