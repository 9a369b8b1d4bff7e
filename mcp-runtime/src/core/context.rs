//! Per-request context and the typed state map.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::policy::auth::Principal;
use crate::protocol::meta::Meta;
use crate::protocol::{Implementation, LogLevel, RequestId, RpcError};

use super::input::Exchange;
use super::notify::{Cancellation, Notifier};

/// Which transport a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON over stdin/stdout (or another byte stream).
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The in-process test client.
    InProcess,
}

impl Transport {
    /// Lower-case name, as used in trace fields.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::InProcess => "in-process",
        }
    }
}

impl From<Transport> for &'static str {
    fn from(transport: Transport) -> &'static str {
        transport.as_str()
    }
}

/// Values registered with `Server::state`, by type.
#[derive(Default)]
pub(crate) struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.0.contains_key(&id)
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0
            .get(&TypeId::of::<T>())
            .cloned()
            .and_then(|a| a.downcast::<T>().ok())
    }
}

/// The client capabilities declared on this request (`io.modelcontextprotocol/clientCapabilities`).
///
/// Capabilities are never carried over from earlier requests: each request says what it can do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientCapabilities(Arc<Map<String, Value>>);

impl ClientCapabilities {
    pub(crate) fn new(map: Map<String, Value>) -> Self {
        ClientCapabilities(Arc::new(map))
    }

    /// Whether the top-level capability `name` (`"sampling"`, `"elicitation"`, `"roots"`, ..) is declared.
    pub fn has(&self, name: &str) -> bool {
        self.declares(&[name])
    }

    /// Whether the extension `id` (e.g. `io.modelcontextprotocol/tasks`) is declared.
    pub fn has_extension(&self, id: &str) -> bool {
        self.0
            .get("extensions")
            .and_then(|e| e.get(id))
            .is_some_and(Value::is_object)
    }

    /// Whether the capability at `path` is declared, e.g. `["elicitation", "url"]` or
    /// `["sampling", "tools"]`.
    pub fn declares(&self, path: &[&str]) -> bool {
        let Some((first, rest)) = path.split_first() else {
            return false;
        };
        let mut node = self.0.get(*first);
        for key in rest {
            node = node.and_then(|n| n.get(*key));
        }
        node.is_some_and(Value::is_object)
    }

    /// `Ok(())` when `name` is declared, else the -32021 error naming it, ready for `?` in a tool.
    pub fn require(&self, name: &str) -> Result<(), RpcError> {
        if self.has(name) {
            Ok(())
        } else {
            let mut required = Map::new();
            required.insert(name.to_owned(), Value::Object(Map::new()));
            Err(RpcError::missing_capability(Value::Object(required)))
        }
    }

    /// The raw object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }
}

pub(crate) struct ContextParts {
    pub(crate) request_id: RequestId,
    pub(crate) method: String,
    pub(crate) name: Option<String>,
    pub(crate) protocol_version: &'static str,
    pub(crate) client_capabilities: ClientCapabilities,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) meta: Meta,
    pub(crate) transport: Transport,
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) progress_token: Option<Value>,
    pub(crate) notifier: Option<Notifier>,
    pub(crate) cancel: CancellationToken,
    /// Fired when the connection's grace period runs out (see `core::lifecycle`).
    pub(crate) stop: CancellationToken,
    pub(crate) principal: Option<Principal>,
    pub(crate) server: super::live::ServerHandle,
}

struct Inner {
    parts: ContextParts,
    /// `parts.meta` as a JSON map, once asked for.
    meta: std::sync::OnceLock<Map<String, Value>>,
    states: Arc<StateMap>,
    exchange: Mutex<Exchange>,
    last_progress: Mutex<Option<f64>>,
    /// Set when this call may become (or is) a task.
    task: std::sync::OnceLock<Arc<crate::core::tasks::TaskLink>>,
    /// Set for a call of a paged tool: what its cursors are sealed to.
    paging: std::sync::OnceLock<Arc<super::pages::Paging>>,
    /// The retry key of a call of an `idempotency` tool, when it came with one.
    idempotency_key: std::sync::OnceLock<String>,
}

/// What a handler may know about the request it serves. Cheap to clone.
///
/// Take it as a tool parameter (`ctx: RequestContext`) to read the protocol version, the
/// client's declared capabilities, its self-asserted info, or the raw `_meta`.
#[derive(Clone)]
pub struct RequestContext(Arc<Inner>);

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("request_id", &self.0.parts.request_id)
            .field("method", &self.0.parts.method)
            .field("name", &self.0.parts.name)
            .field("protocol_version", &self.0.parts.protocol_version)
            .field("transport", &self.0.parts.transport)
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    pub(crate) fn new(parts: ContextParts, states: Arc<StateMap>) -> Self {
        RequestContext(Arc::new(Inner {
            parts,
            meta: std::sync::OnceLock::new(),
            states,
            exchange: Mutex::default(),
            last_progress: Mutex::default(),
            task: std::sync::OnceLock::new(),
            paging: std::sync::OnceLock::new(),
            idempotency_key: std::sync::OnceLock::new(),
        }))
    }

    pub(crate) fn exchange(&self) -> MutexGuard<'_, Exchange> {
        // A poisoned lock only means a handler panicked mid-update; the data stays usable.
        self.0.exchange.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn last_progress(&self) -> MutexGuard<'_, Option<f64>> {
        self.0
            .last_progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn notifier(&self) -> Option<&Notifier> {
        self.0.parts.notifier.as_ref()
    }

    /// The client's `progressToken`, when it asked for progress notifications.
    pub fn progress_token(&self) -> Option<&Value> {
        self.0.parts.progress_token.as_ref()
    }

    /// The log level the client asked for on this request (`None`: send no log messages).
    pub fn log_level(&self) -> Option<LogLevel> {
        self.0.parts.log_level
    }

    /// This request's cancellation signal.
    pub fn cancellation(&self) -> Cancellation {
        Cancellation(self.0.parts.cancel.clone())
    }

    pub(crate) fn attach_task(&self, link: Arc<crate::core::tasks::TaskLink>) {
        let _ = self.0.task.set(link);
    }

    pub(crate) fn set_paging(&self, paging: super::pages::Paging) {
        let _ = self.0.paging.set(Arc::new(paging));
    }

    pub(crate) fn set_idempotency_key(&self, key: String) {
        let _ = self.0.idempotency_key.set(key);
    }

    /// The retry key (`idempotencyKey`) this call came with, for a tool with
    /// `#[tool(idempotency)]`: the framework already runs a call once per key; a tool that
    /// calls an API which takes keys of its own forwards it (as an `Idempotency-Key`
    /// header, say), so a retry the framework could not answer is still done once there.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.0.idempotency_key.get().map(String::as_str)
    }

    pub(crate) fn paging(&self) -> Option<&Arc<super::pages::Paging>> {
        self.0.paging.get()
    }

    pub(crate) fn task_link(&self) -> Option<&Arc<crate::core::tasks::TaskLink>> {
        self.0.task.get()
    }

    /// Continue this call as a task (the `io.modelcontextprotocol/tasks` extension): the
    /// client gets a task handle now and polls for the result, while the handler goes on.
    ///
    /// Input asked for before this point is gathered synchronously (`input_required`
    /// rounds on the call itself); input asked for after it moves the task to
    /// `input_required`, answered through `tasks/update`. Without this call, a task tool
    /// still running after the server's `task_after` becomes a task anyway. Does nothing
    /// for tools that are not `#[tool(task)]`, for clients without the extension, and
    /// once the call is a task.
    pub fn start_task(&self) {
        if let Some(link) = self.task_link() {
            link.start();
        }
    }

    /// The id of this call's task, once it is one.
    pub fn task_id(&self) -> Option<&str> {
        self.task_link().and_then(|link| link.id())
    }

    /// Whether this call is, or is becoming, a task.
    pub(crate) fn is_task(&self) -> bool {
        self.task_link().is_some_and(|link| link.is_started())
    }

    /// Say what the task is doing (its `statusMessage`, seen by clients polling
    /// `tasks/get`). Does nothing when the call is not a task. Progress reports of a task
    /// become its status message too.
    pub fn set_status(&self, message: impl Into<String>) {
        if let Some(link) = self.task_link() {
            link.set_status(message.into());
        }
    }

    /// Fire this request's cancellation (the server gave up on it).
    pub(crate) fn cancel_now(&self) {
        self.0.parts.cancel.cancel();
    }

    /// Completes when the transport stops this request (its connection ended and the
    /// grace period ran out).
    pub(crate) async fn stopped(&self) {
        self.0.parts.stop.cancelled().await;
    }

    /// Completes when the client cancels this request.
    pub async fn cancelled(&self) {
        self.0.parts.cancel.cancelled().await;
    }

    /// Whether the client has cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.0.parts.cancel.is_cancelled()
    }

    /// Suggest that the transport let go of the client's connection while this handler
    /// keeps working; the client reconnects later to collect what follows.
    ///
    /// Only a handshake-era client on Streamable HTTP can do that (its response stream is
    /// resumable: the server ends it with a `retry` hint, and the client comes back with
    /// `Last-Event-ID`). Everywhere else this does nothing, so a long-running handler can
    /// call it unconditionally to free connections behind proxies with short timeouts.
    pub fn release_connection(&self) {
        if let Some(notifier) = self.notifier() {
            notifier.release();
        }
    }

    /// Who is calling, when the transport authenticated the caller (see [`Principal`]).
    pub fn principal(&self) -> Option<&Principal> {
        self.0.parts.principal.as_ref()
    }

    pub(crate) fn principal_subject(&self) -> Option<&str> {
        self.0.parts.principal.as_ref().map(|p| p.subject.as_str())
    }

    /// A handle on the running server, to change what it serves or announce updated
    /// resources (see [`ServerHandle`](crate::core::ServerHandle)).
    pub fn server(&self) -> &super::live::ServerHandle {
        &self.0.parts.server
    }

    /// The JSON-RPC id of this request.
    pub fn request_id(&self) -> &RequestId {
        &self.0.parts.request_id
    }

    /// The method (`tools/call`, ..).
    pub fn method(&self) -> &str {
        &self.0.parts.method
    }

    /// The tool (or prompt, resource) name this request targets, if any.
    pub fn name(&self) -> Option<&str> {
        self.0.parts.name.as_deref()
    }

    /// The protocol revision of this request.
    pub fn protocol_version(&self) -> &str {
        self.0.parts.protocol_version
    }

    /// What the client declared it can do, on this request.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.0.parts.client_capabilities
    }

    /// The client's self-asserted name and version. For display and logs only: never base
    /// behaviour or security decisions on it.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.0.parts.client_info.as_deref()
    }

    /// The request's whole `_meta` object.
    pub fn meta(&self) -> &Map<String, Value> {
        // Built on first use: most handlers never read it.
        self.0.meta.get_or_init(|| self.0.parts.meta.to_map())
    }

    /// The transport the request arrived on.
    pub fn transport(&self) -> Transport {
        self.0.parts.transport
    }

    /// Shared state registered with `Server::state`.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.states.get::<T>()
    }
}
