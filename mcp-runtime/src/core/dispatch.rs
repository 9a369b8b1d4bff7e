//! The core's entry: a [`Call`] in, a [`Reply`] out. It holds the server's parts
//! ([`Core`]), announces capabilities, and routes each method to its family in `methods/`;
//! the steps every handler call shares are in `pipeline`.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::observe::Outcome;
use crate::policy::auth::{SharedAuthorize, VisibleIf};
use crate::policy::limits::Limiter;
use crate::protocol::method::Method;
use crate::protocol::{Implementation, Params, RpcError};
use crate::registry::ListPage;

use super::input::Rounds;
use super::live::Live;
use super::resolved::Resolved;
use super::{RequestContext, StateMap};

pub use crate::protocol::cache::CacheHints;

/// A request as the core sees it: context plus the method's params (without `_meta`),
/// and its method and target as resolved when it arrived.
pub struct Call {
    /// Who asks, how, and with which capabilities.
    pub ctx: RequestContext,
    /// The params object, `_meta` removed.
    pub params: Params,
    /// The method and what its target is in the catalog, looked up once.
    pub(crate) target: Resolved,
}

/// The core's answer, before an era adapter gives it its wire shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A complete result; `cache` is set for cacheable results.
    Result {
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
    /// A refusal for want of scopes (-31403 naming them): the error, and the scopes an
    /// HTTP transport names in the 403's `insufficient_scope` challenge.
    Refused {
        /// The JSON-RPC error the client gets.
        error: RpcError,
        /// Every scope the refused action needs.
        scopes: Vec<String>,
    },
}

impl Reply {
    /// The members of a [`Reply::Tool`] as a `body` (for the adapters that reshape results).
    #[cfg_attr(not(any(feature = "legacy", feature = "testing")), allow(dead_code))]
    pub fn tool_body(
        result: crate::protocol::CallToolResult,
    ) -> Result<Map<String, Value>, RpcError> {
        result.into_members().map_err(|_| {
            RpcError::internal("Internal error: the tool result could not be serialized")
        })
    }

    /// The members of a [`Reply::Page`] as a `body`, the entries copied out of the page.
    #[cfg(feature = "legacy")]
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
    /// The server's own hook, when it set one (the default allows all, and costs nothing).
    pub(crate) authorize: Option<SharedAuthorize>,
    /// Which items each caller sees and may name (`Server::visible_if`).
    pub(crate) visible: Option<VisibleIf>,
    /// Lists leave out what the caller lacks the scopes for (`Server::hide_unauthorized`).
    pub(crate) hide_unauthorized: bool,
    /// Search instead of the whole list, past a number of tools (`Server::tool_search`).
    pub(crate) search: Option<super::search::ToolSearch>,
    pub(crate) limiter: Limiter,
    /// Layers around calls (`Server::layer`).
    pub(crate) layers: super::layers::Layers,
    /// The response cache, right above the handlers (`Server::cache_responses`).
    pub(crate) response_cache: Option<Arc<super::response_cache::Cache>>,
    /// The audit trail of calls (`Server::audit`).
    pub(crate) audit: Option<super::audit::Audit>,
    pub(crate) tasks: Option<Arc<crate::core::tasks::TaskRuntime>>,
    pub(crate) states: Arc<StateMap>,
    // Read by the handshake era's `initialize` answer.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
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

impl Core {
    /// Read `method` and look its target up: once per request, when it arrives.
    pub(crate) fn resolve(&self, method: &str, params: Option<&Params>) -> Resolved {
        Resolved::new(self.live.load(), method, params)
    }

    /// Whether the caller of `ctx` may see (and name) `item`.
    pub(crate) fn sees(&self, ctx: &RequestContext, item: &crate::registry::Listed<'_>) -> bool {
        self.visible.as_ref().is_none_or(|rule| rule(ctx, item))
    }

    /// Whether the lists (and `search_tools`) show `item` to the caller of `ctx`: it may
    /// see it and, with `Server::hide_unauthorized`, has the scopes it declares.
    pub(crate) fn lists_show(
        &self,
        ctx: &RequestContext,
        item: &crate::registry::Listed<'_>,
    ) -> bool {
        self.sees(ctx, item)
            && (!self.hide_unauthorized
                || crate::policy::auth::DeclaredScopes::check_principal(
                    ctx.principal(),
                    item.required_scopes(),
                )
                .is_ok())
    }

    /// Whether the lists depend on who asks (a visibility rule, or lists shaped by
    /// scopes).
    pub(crate) fn lists_vary(&self) -> bool {
        self.visible.is_some() || self.hide_unauthorized
    }

    /// Whether `method` is served (known and its capability advertised).
    pub fn serves(&self, method: &str) -> bool {
        Method::parse(method).is_some_and(|m| self.live.load().served.serves(m))
    }

    /// A handle to change what this server serves while it runs.
    pub fn server_handle(&self) -> crate::core::ServerHandle {
        crate::core::ServerHandle(self.live.clone())
    }

    /// The server's name and version.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
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
    /// [`ServerHandle`](crate::core::ServerHandle)), so every list announces `listChanged`, and
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
        let mut extensions = Map::new();
        if served.tasks && self.tasks.is_some() {
            extensions.insert(crate::protocol::extensions::TASKS.into(), json!({}));
        }
        // MCP Apps: announced only when there is a view to render (the MIME types are
        // those the server's views are served as).
        if snapshot.catalog.views() {
            extensions.insert(
                crate::protocol::extensions::UI.into(),
                json!({ "mimeTypes": [crate::protocol::extensions::UI_MIME] }),
            );
        }
        if !extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(caps)
    }

    /// Handle one request.
    pub async fn handle(&self, call: Call) -> Reply {
        let snapshot = call.target.snapshot();
        let method = match call.target.method() {
            Some(method) if snapshot.served.serves(method) => method,
            _ => return Reply::Error(RpcError::method_not_found(call.ctx.method())),
        };
        let lists = &snapshot.lists;
        // A future is as large as its largest branch, and every request's future is copied
        // into its box whole: the rarely used methods with large futures are boxed on their
        // own, so a tool call's future is not their size.
        if let (Some(audit), Method::ToolsCall | Method::ResourcesRead | Method::PromptsGet) =
            (&self.audit, method)
        {
            // Boxed: an audited call's future holds the call's, and unaudited calls keep
            // theirs as small as it was.
            return Box::pin(self.audited(audit, method, call)).await;
        }
        match method {
            Method::Discover => self.discover(),
            Method::ToolsList => self.tools_list(snapshot, &call),
            Method::ToolsCall => self.call_tool(call).await,
            Method::ResourcesList => self.list(&lists.resources, &call),
            Method::TemplatesList => self.list(&lists.templates, &call),
            Method::ResourcesRead => self.read_resource(call).await,
            Method::PromptsList => self.list(&lists.prompts, &call),
            Method::PromptsGet => self.get_prompt(call).await,
            Method::Complete => Box::pin(self.complete(call)).await,
            Method::TasksGet => Box::pin(self.tasks_get(call)).await,
            Method::TasksUpdate => Box::pin(self.tasks_update(call)).await,
            Method::TasksCancel => Box::pin(self.tasks_cancel(call)).await,
            // Transports intercept it: it is a stream, not one response.
            Method::Listen => Reply::Error(RpcError::invalid_request(
                "subscriptions/listen opens a notification stream and needs a streaming transport (stdio or Streamable HTTP)",
            )),
            Method::Initialize
            | Method::Ping
            | Method::ResourcesSubscribe
            | Method::ResourcesUnsubscribe
            | Method::SetLevel => Reply::Error(RpcError::method_not_found(call.ctx.method())),
        }
    }
}

impl Core {
    /// A call of `method` (`tools/call`, `resources/read` or `prompts/get`), recorded in
    /// the audit trail once answered.
    async fn audited(&self, audit: &super::audit::Audit, method: Method, call: Call) -> Reply {
        let (name, key) = match method {
            Method::ResourcesRead => ("resources/read", "uri"),
            Method::PromptsGet => ("prompts/get", "name"),
            _ => ("tools/call", "name"),
        };
        let target = call
            .params
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let given = call.params.get("arguments").and_then(Value::as_object);
        // A tool's arguments as its schema lets them be kept; an unknown target's not at all.
        let arguments = match method {
            Method::ToolsCall => call
                .target
                .tool()
                .map(|tool| given.map_or_else(Map::new, |given| tool.validator.redact(given))),
            Method::PromptsGet => call
                .target
                .prompt()
                .map(|_| given.cloned().unwrap_or_default()),
            _ => None,
        };
        let audited = super::audit::Audited::start(name, target, arguments);
        let ctx = call.ctx.clone();
        let reply = match method {
            Method::ResourcesRead => self.read_resource(call).await,
            Method::PromptsGet => self.get_prompt(call).await,
            _ => self.call_tool(call).await,
        };
        audit.record(audited.finish(&ctx, &reply)).await;
        reply
    }
}

impl crate::observe::Observed for Core {
    fn span_level(&self) -> tracing::Level {
        self.span_level
    }

    fn metrics(&self) -> Option<&crate::metrics::Metrics> {
        self.metrics.as_deref()
    }
}

impl crate::observe::Ending for Reply {
    fn outcome(&self) -> Outcome {
        match self {
            Reply::Result { body, .. } => {
                if body.get("isError") == Some(&Value::Bool(true)) {
                    Outcome::Failed("business")
                } else {
                    Outcome::Completed
                }
            }
            Reply::Page { .. } => Outcome::Completed,
            Reply::Tool(result) if result.is_error => Outcome::Failed("business"),
            Reply::Tool(_) => Outcome::Completed,
            Reply::InputRequired { .. } => Outcome::InputRequired,
            Reply::Task { .. } => Outcome::Task,
            Reply::Error(error) | Reply::Refused { error, .. } => Outcome::of_error(error),
        }
    }

    fn error(&self) -> Option<&RpcError> {
        match self {
            Reply::Error(error) | Reply::Refused { error, .. } => Some(error),
            _ => None,
        }
    }
}
