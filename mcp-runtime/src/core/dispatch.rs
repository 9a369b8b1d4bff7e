//! The era-neutral core: capabilities, routing, listing, the authorization step and panic
//! isolation. Method handlers live in `methods/`.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::{json, Map, Value};

use crate::policy::auth::{Action, DeclaredScopes, ListFilter, Listed, SharedAuthorize};
use crate::policy::limits::Limiter;
use crate::policy::paging::Cursors;
use crate::protocol::{codes, Implementation, RpcError};
use crate::registry::{Catalog, ListPage, Listing};

use super::input::Rounds;
use super::live::Live;
use super::{RequestContext, StateMap};

pub use crate::policy::cache::CacheHints;

/// A request as the core sees it: context plus the method's params (without `_meta`).
pub struct Call {
    /// Who asks, how, and with which capabilities.
    pub ctx: RequestContext,
    /// The params object, `_meta` removed.
    pub params: Map<String, Value>,
}

/// The core's answer, before an era adapter gives it its wire shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A complete result; `cache` is set for cacheable results.
    Complete {
        /// Result members (no `resultType`, no `_meta`).
        body: Map<String, Value>,
        /// Freshness hints for cacheable results.
        cache: Option<CacheHints>,
    },
    /// A page of a list result (`tools/list` and the others), shared with the copy made
    /// at start rather than copied into a `body`.
    Page {
        /// The member that holds the entries: `tools`, `resources`, `resourceTemplates` or
        /// `prompts`.
        field: &'static str,
        /// The entries.
        page: Arc<ListPage>,
        /// The cursor of the next page, when there is one.
        next_cursor: Option<String>,
        /// Freshness hints.
        cache: CacheHints,
    },
    /// A `tools/call` result as the handler made it; the era adapter writes it out.
    Tool(crate::protocol::CallToolResult),
    /// The request needs input from the client first (`resultType: "input_required"`).
    InputRequired {
        /// The input requests, by key (`{method, params}` each).
        requests: Map<String, Value>,
        /// Sealed state to echo on the retry.
        state: String,
    },
    /// The request goes on as a task (`resultType: "task"`): the `Task` fields.
    Task {
        /// `taskId`, `status`, timestamps, `ttlMs`, `pollIntervalMs`.
        body: Map<String, Value>,
    },
    /// A JSON-RPC error.
    Error(RpcError),
}

impl Reply {
    /// The members of a [`Reply::Tool`] as a `body`.
    pub fn tool_body(
        result: crate::protocol::CallToolResult,
    ) -> Result<Map<String, Value>, RpcError> {
        result.into_members().map_err(|_| {
            RpcError::internal("Internal error: the tool result could not be serialized")
        })
    }

    /// The members of a [`Reply::Page`] as a `body`, the entries copied out of the page.
    pub fn page_body(
        field: &'static str,
        page: &ListPage,
        next_cursor: Option<String>,
    ) -> Map<String, Value> {
        let mut body = Map::new();
        body.insert(field.into(), page.items().clone());
        if let Some(next) = next_cursor {
            body.insert("nextCursor".into(), Value::String(next));
        }
        body
    }
}

/// The era-neutral server: catalog, policies and the method handlers.
pub struct Core {
    pub(crate) live: Arc<Live>,
    pub(crate) rounds: Rounds,
    pub(crate) idempotency: super::idempotency::Idempotency,
    /// Large results kept for reading by reference.
    pub(crate) artifacts: super::artifacts::Artifacts,
    /// How long a page cursor opens.
    pub(crate) cursor_ttl: std::time::Duration,
    pub(crate) authorize: SharedAuthorize,
    pub(crate) list_filter: Option<ListFilter>,
    pub(crate) limiter: Limiter,
    pub(crate) tasks: Option<Arc<crate::tasks::TaskRuntime>>,
    pub(crate) states: Arc<StateMap>,
    pub(crate) info: Implementation,
    /// `info` serialized once at start: every 2026-07-28 result carries it.
    pub(crate) info_json: Arc<serde_json::value::RawValue>,
    pub(crate) instructions: Option<String>,
    pub(crate) list_cache: CacheHints,
    pub(crate) read_cache: CacheHints,
    pub(crate) discover_cache: CacheHints,
    pub(crate) supported_versions: Vec<&'static str>,
    pub(crate) lifecycle: Arc<super::lifecycle::Lifecycle>,
    /// Request metrics, when a scrape endpoint is configured.
    pub(crate) metrics: Option<Arc<crate::metrics::Metrics>>,
    /// The level of each request's span (`Server::request_span_level`).
    pub(crate) span_level: tracing::Level,
}

/// The methods the core knows, told apart once per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Discover,
    ToolsList,
    ToolsCall,
    ResourcesList,
    TemplatesList,
    ResourcesRead,
    PromptsList,
    PromptsGet,
    Complete,
    /// `subscriptions/listen`: a stream the transports open; the core only admits it.
    Listen,
    TasksGet,
    TasksUpdate,
    TasksCancel,
}

impl Method {
    fn parse(method: &str) -> Option<Method> {
        Some(match method {
            "server/discover" => Method::Discover,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::TemplatesList,
            "resources/read" => Method::ResourcesRead,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "completion/complete" => Method::Complete,
            "subscriptions/listen" => Method::Listen,
            "tasks/get" => Method::TasksGet,
            "tasks/update" => Method::TasksUpdate,
            "tasks/cancel" => Method::TasksCancel,
            _ => return None,
        })
    }
}

/// Which primitives are served, decided once at start from the catalog.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Served {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    /// Some prompt or resource template declares a completer.
    pub(crate) completions: bool,
    /// Some tool may run as a task.
    pub(crate) tasks: bool,
}

impl Served {
    pub(crate) fn of(catalog: &Catalog) -> Served {
        Served {
            tools: !catalog.tools().is_empty(),
            // Any tool may hand out an artifact (`resource_link`), read with resources/read.
            resources: !catalog.resources().is_empty()
                || !catalog.templates().is_empty()
                || !catalog.tools().is_empty(),
            prompts: !catalog.prompts().is_empty(),
            completions: catalog
                .prompts()
                .iter()
                .any(|p| !p.def.completions.is_empty())
                || catalog
                    .templates()
                    .iter()
                    .any(|t| !t.def.completions.is_empty()),
            tasks: catalog
                .tools()
                .iter()
                .any(|t| t.def.task != crate::registry::TaskSupport::Forbidden),
        }
    }

    fn method(&self, method: Method) -> bool {
        match method {
            Method::Discover | Method::Listen => true,
            Method::ToolsList | Method::ToolsCall => self.tools,
            Method::ResourcesList | Method::TemplatesList | Method::ResourcesRead => self.resources,
            Method::PromptsList | Method::PromptsGet => self.prompts,
            Method::Complete => self.completions,
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => self.tasks,
        }
    }
}

impl Core {
    /// Whether `method` is served (known and its capability advertised).
    pub fn serves(&self, method: &str) -> bool {
        Method::parse(method).is_some_and(|m| self.live.load().served.method(m))
    }

    /// A handle to change what this server serves while it runs.
    pub fn handle_to_server(&self) -> crate::ServerHandle {
        crate::ServerHandle(self.live.clone())
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.info
    }

    /// The server's name and version as JSON, made once at start (every 2026-07-28 result
    /// carries it).
    pub(crate) fn info_json(&self) -> &Arc<serde_json::value::RawValue> {
        &self.info_json
    }

    /// Protocol versions this server accepts.
    pub fn supported_versions(&self) -> &[&'static str] {
        &self.supported_versions
    }

    /// Capabilities derived from what is served now. Lists can change at run time (through
    /// [`ServerHandle`](crate::ServerHandle)), so every list announces `listChanged`, and
    /// resources can be subscribed to.
    pub fn capabilities(&self) -> Value {
        let snapshot = self.live.load();
        let served = snapshot.served;
        let mut caps = Map::new();
        if served.tools {
            caps.insert("tools".into(), json!({"listChanged": true}));
        }
        if served.resources {
            caps.insert(
                "resources".into(),
                json!({"listChanged": true, "subscribe": true}),
            );
        }
        if served.prompts {
            caps.insert("prompts".into(), json!({"listChanged": true}));
        }
        if served.completions {
            caps.insert("completions".into(), json!({}));
        }
        if snapshot.catalog.logging() {
            caps.insert("logging".into(), json!({}));
        }
        if served.tasks && self.tasks.is_some() {
            caps.insert("extensions".into(), json!({ crate::tasks::EXTENSION: {} }));
        }
        Value::Object(caps)
    }

    /// The scopes the target of a `tools/call`, `prompts/get` or `resources/read` declares
    /// (none for other methods and unknown targets), so a transport can refuse a caller
    /// without them before anything else runs.
    pub fn required_scopes(
        &self,
        method: &str,
        params: &Map<String, Value>,
    ) -> &'static [&'static str] {
        let snapshot = self.live.load();
        let text = |key: &str| params.get(key).and_then(Value::as_str);
        let found = match method {
            "tools/call" => text("name")
                .and_then(|n| snapshot.catalog.get(n))
                .map(|t| t.def.scopes),
            "prompts/get" => text("name")
                .and_then(|n| snapshot.catalog.prompt(n))
                .map(|p| p.def.scopes),
            "resources/read" => text("uri")
                .filter(|u| u.len() <= crate::registry::uri::MAX_URI_BYTES)
                .and_then(|u| snapshot.catalog.resolve(u))
                .map(|(r, _)| r.def.scopes),
            _ => None,
        };
        found.unwrap_or(&[])
    }

    /// The `name` label of a request's metrics: a served tool or prompt, the URI or
    /// template of a served resource, `(unknown)` for anything else a client named.
    pub(crate) fn metric_target(&self, method: &str, name: Option<&str>) -> String {
        let Some(name) = name else {
            return String::new();
        };
        let snapshot = self.live.load();
        let known = match method {
            "tools/call" => snapshot.catalog.get(name).map(|_| name.to_owned()),
            "prompts/get" => snapshot.catalog.prompt(name).map(|_| name.to_owned()),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                if name.len() <= crate::registry::uri::MAX_URI_BYTES {
                    snapshot
                        .catalog
                        .resolve(name)
                        .map(|(resource, _)| resource.published.clone())
                } else {
                    None
                }
            }
            _ => return String::new(),
        };
        known.unwrap_or_else(|| "(unknown)".to_owned())
    }

    /// Handle one request.
    pub async fn handle(&self, call: Call) -> Reply {
        let snapshot = self.live.load();
        let method = match Method::parse(call.ctx.method()) {
            Some(method) if snapshot.served.method(method) => method,
            _ => return Reply::Error(RpcError::method_not_found(call.ctx.method())),
        };
        let lists = &snapshot.lists;
        // A future is as large as its largest branch, and every request's future is copied
        // into its box whole: the rarely used methods with large futures are boxed on their
        // own, so a tool call's future is not their size.
        match method {
            Method::Discover => self.discover(),
            Method::ToolsList => self.list(&lists.tools, &call),
            Method::ToolsCall => self.call_tool(&snapshot, call).await,
            Method::ResourcesList => self.list(&lists.resources, &call),
            Method::TemplatesList => self.list(&lists.templates, &call),
            Method::ResourcesRead => self.read_resource(&snapshot, call).await,
            Method::PromptsList => self.list(&lists.prompts, &call),
            Method::PromptsGet => self.get_prompt(&snapshot, call).await,
            Method::Complete => Box::pin(self.complete(&snapshot, call)).await,
            Method::TasksGet => Box::pin(self.tasks_get(call)).await,
            Method::TasksUpdate => Box::pin(self.tasks_update(call)).await,
            Method::TasksCancel => Box::pin(self.tasks_cancel(call)).await,
            // Transports intercept it: it is a stream, not one response.
            Method::Listen => Reply::Error(RpcError::invalid_request(
                "subscriptions/listen opens a notification stream and needs a streaming transport (stdio or Streamable HTTP)",
            )),
        }
    }

    fn discover(&self) -> Reply {
        let mut body = Map::new();
        body.insert("supportedVersions".into(), json!(self.supported_versions));
        body.insert("capabilities".into(), self.capabilities());
        if let Some(instructions) = &self.instructions {
            body.insert("instructions".into(), Value::String(instructions.clone()));
        }
        Reply::Complete {
            body,
            cache: Some(self.discover_cache),
        }
    }

    fn list(&self, list: &PagedList, call: &Call) -> Reply {
        let page = match call.params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => match list.cursors.page_of(cursor) {
                Some(page) => page,
                None => {
                    return Reply::Error(
                        RpcError::invalid_params(format!(
                            "Invalid cursor: it was not issued by this server's {}; list again without a cursor",
                            list.method
                        ))
                        .with_data(json!({ "cursor": cursor })),
                    )
                }
            },
            Some(_) => return Reply::Error(RpcError::invalid_params("cursor must be a string")),
        };
        let next_cursor = |more: bool| {
            more.then(|| list.cursors.cursor_for(page + 1))
                .flatten()
                .map(str::to_owned)
        };
        let (items, more, cache) = match &self.list_filter {
            None => {
                return match list.pages.get(page) {
                    Some(items) => Reply::Page {
                        field: list.field,
                        page: items.clone(),
                        next_cursor: next_cursor(page + 1 < list.pages.len()),
                        cache: self.list_cache,
                    },
                    // Cursors name only pages that exist; this is an empty list's only page.
                    None => Reply::Page {
                        field: list.field,
                        page: Arc::new(ListPage::new(Vec::new())),
                        next_cursor: None,
                        cache: self.list_cache,
                    },
                };
            }
            Some(filter) => {
                // The same pages, of the entries this caller may see: such a list depends on
                // who asks, so no cache may share it.
                let principal = call.ctx.principal();
                let visible: Vec<&Value> = list
                    .entries
                    .iter()
                    .filter(|(listed, _)| filter(principal, listed))
                    .map(|(_, value)| value)
                    .collect();
                let mut pages = visible.chunks(list.page_size);
                let items: Vec<Value> = pages
                    .nth(page)
                    .map(|chunk| chunk.iter().map(|v| (*v).clone()).collect())
                    .unwrap_or_default();
                let more = pages.next().is_some();
                let cache = CacheHints {
                    ttl: self.list_cache.ttl,
                    scope: crate::policy::cache::CacheScope::Private,
                };
                (Value::Array(items), more, cache)
            }
        };
        let mut body = Map::new();
        body.insert(list.field.into(), items);
        if let Some(next) = next_cursor(more) {
            body.insert("nextCursor".into(), Value::String(next));
        }
        Reply::Complete {
            body,
            cache: Some(cache),
        }
    }
}

impl Core {
    /// End an MRTR-capable request: `input_required` (or the error an answer caused) when
    /// the handler failed for want of input, else the handler's own reply.
    pub(crate) fn finish_round(
        &self,
        ctx: &RequestContext,
        binding: &super::input::Binding,
        failed: bool,
        reply: impl FnOnce() -> Reply,
    ) -> Reply {
        match self.rounds.close(ctx, binding, failed) {
            super::input::RoundEnd::Finished => reply(),
            super::input::RoundEnd::InputRequired { requests, state } => {
                Reply::InputRequired { requests, state }
            }
            super::input::RoundEnd::Error(error) => Reply::Error(error),
        }
    }

    /// Check the declared scopes, then run the `Authorize` hook; a refusal becomes the
    /// reply.
    pub(crate) async fn check(
        &self,
        ctx: &RequestContext,
        action: &Action<'_>,
        (kind, target): (&str, &str),
    ) -> Result<(), Reply> {
        let verdict =
            match DeclaredScopes::check_principal(ctx.principal(), action.required_scopes()) {
                Ok(()) => self.authorize.check(ctx, action).await,
                refused => refused,
            };
        match verdict {
            Ok(()) => Ok(()),
            Err(denied) => {
                tracing::info!(kind, target = %target, reason = %denied, "request refused");
                let mut data = Map::new();
                data.insert("name".into(), json!(target));
                data.insert("reason".into(), json!(denied.reason()));
                if !denied.scopes().is_empty() {
                    data.insert("requiredScopes".into(), json!(denied.scopes()));
                }
                let data = Value::Object(data);
                Err(Reply::Error(
                    RpcError::new(
                        codes::ACCESS_DENIED,
                        format!("Access denied to {kind} {target}: {denied}"),
                    )
                    .with_data(data),
                ))
            }
        }
    }

    /// Run a handler within the caller's limits: rate, concurrency, time. A panic or a
    /// timeout fails this call only; a timeout also fires the call's cancellation.
    pub(crate) async fn run<T>(
        &self,
        ctx: &RequestContext,
        target: &str,
        future: futures_util::future::BoxFuture<'static, Result<T, RpcError>>,
    ) -> Result<T, RpcError> {
        let _slot = self.limiter.admit(ctx.principal_subject(), target)?;
        let _running = self.lifecycle.enter();
        let work = async {
            match self.limiter.limits().call_timeout {
                Some(limit) => match tokio::time::timeout(limit, guarded(target, future)).await {
                    Ok(outcome) => outcome,
                    Err(_) => {
                        ctx.cancel_now();
                        tracing::warn!(target = %target, "handler timed out");
                        Err(Limiter::timed_out(target, limit))
                    }
                },
                None => guarded(target, future).await,
            }
        };
        tokio::select! {
            biased;
            outcome = work => outcome,
            error = self.stopped(ctx, target) => Err(error),
        }
    }

    /// Completes when shutdown's grace period is over for this call (the server's, or its
    /// connection's): the call is cancelled (work it spawned sees that) and the error it
    /// answers with comes back. Whoever awaits this drops the handler.
    pub(crate) async fn stopped(&self, ctx: &RequestContext, target: &str) -> RpcError {
        tokio::select! {
            _ = self.lifecycle.stop_token().cancelled() => {}
            _ = ctx.stopped() => {}
        }
        ctx.cancel_now();
        super::lifecycle::shut_down(target)
    }
}

/// -32602 for a tool or prompt name that is not served, with the name in `data`.
pub(crate) fn unknown_name(kind: &str, name: &str) -> Reply {
    Reply::Error(
        RpcError::invalid_params(format!("Unknown {kind}: {name}"))
            .with_data(json!({ "name": name })),
    )
}

/// `params[key]` as a string, or -32602 with `need` (what the method wants there).
pub(crate) fn string_param(
    params: &Map<String, Value>,
    key: &str,
    need: &str,
) -> Result<String, Reply> {
    match params.get(key) {
        Some(Value::String(value)) => Ok(value.clone()),
        _ => Err(Reply::Error(RpcError::invalid_params(need.to_owned()))),
    }
}

/// Take `params.arguments` as an object (absent or null is empty), or -32602 with `need`.
pub(crate) fn arguments_param(
    params: &mut Map<String, Value>,
    need: &str,
) -> Result<Map<String, Value>, Reply> {
    match params.remove("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(args)) => Ok(args),
        Some(_) => Err(Reply::Error(RpcError::invalid_params(need.to_owned()))),
    }
}

/// A handler's result as a complete reply; `what` names it if it cannot be serialized.
pub(crate) fn complete_reply<T: serde::Serialize>(
    result: T,
    what: &str,
    cache: Option<CacheHints>,
) -> Reply {
    match serde_json::to_value(result) {
        Ok(Value::Object(body)) => Reply::Complete { body, cache },
        _ => Reply::Error(RpcError::internal(format!(
            "Internal error: the {what} could not be serialized"
        ))),
    }
}

/// Await a handler's future; a panic becomes -32603 for this request only.
pub(crate) async fn guarded<T>(
    target: &str,
    future: futures_util::future::BoxFuture<'static, Result<T, RpcError>>,
) -> Result<T, RpcError> {
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => {
            let message = panic_message(&panic);
            tracing::error!(target = %target, panic = %message, "handler panicked");
            Err(RpcError::internal(format!(
                "Internal error: {target} failed unexpectedly"
            )))
        }
    }
}

/// One list method's pages and cursors.
pub(crate) struct PagedList {
    method: &'static str,
    field: &'static str,
    pages: Vec<Arc<ListPage>>,
    entries: Vec<(Listed<'static>, Value)>,
    page_size: usize,
    cursors: Cursors,
}

impl PagedList {
    pub(crate) fn new(
        sealer: &crate::policy::seal::Sealer,
        method: &'static str,
        field: &'static str,
        listing: Listing,
        page_size: usize,
    ) -> Result<Self, String> {
        let cursors = Cursors::new(sealer, method, listing.pages.len(), listing.fingerprint)?;
        Ok(PagedList {
            method,
            field,
            pages: listing.pages,
            entries: listing.entries,
            page_size,
            cursors,
        })
    }
}

/// The four list methods.
pub(crate) struct Lists {
    pub(crate) tools: PagedList,
    pub(crate) resources: PagedList,
    pub(crate) templates: PagedList,
    pub(crate) prompts: PagedList,
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
