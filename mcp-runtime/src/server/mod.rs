//! The `Server` builder and the built [`App`]: the face of the crate.
//!
//! `mod.rs` holds the builder's settings, in sections by what they configure (an `impl`
//! block each, so the API docs show them grouped); `build` checks them and builds the [`App`] part
//! by part, with `select` (what is served) and `store` (the store the environment
//! names); `app` serves the built app on each transport and drains it on shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::core::{RequestContext, StateMap};
use crate::policy::auth::{Authorize, Listed, SharedAuthorize, VisibleIf};
use crate::policy::limits::{Limits, RateLimit};
use crate::policy::oauth::{HttpAuth, ProtectedResource, TokenVerifier};
use crate::policy::principal::Principal;
use crate::policy::seal::SealKey;
use crate::protocol::cache::CacheHints;
use crate::protocol::{
    CallToolResult, GetPromptResult, Implementation, ResourceContents, RpcError,
};
use crate::registry::dynamic::{
    DynamicCall, DynamicGet, DynamicPrompt, DynamicRead, DynamicResource, DynamicTool,
};
use crate::registry::{PromptRef, ResourceRef, ToolRef};
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;

mod app;
mod build;
#[cfg(feature = "openapi")]
pub(crate) mod openapi;
mod select;
mod setters;
mod store;

pub use app::App;
use select::{AddedItems, Selection};
pub(crate) use setters::setters;

/// A build error about the server's configuration.
fn config(message: String) -> crate::Error {
    crate::Error::Build(vec![crate::registry::BuildError::Config(message)])
}

/// The environment variable that sets the list page size when the code does not.
pub const PAGE_SIZE_ENV: &str = "MCP_PAGE_SIZE";

/// The environment variable that turns the metrics endpoint on at an address.
pub const METRICS_ENV: &str = "MCP_METRICS_ADDR";

/// Builds an MCP server from the `#[tool]`, `#[resource]` and `#[prompt]` functions linked
/// into the binary.
///
/// ```no_run
/// use mcp_runtime::prelude::*;
///
/// /// Adds two integers.
/// #[tool(read_only, idempotent)]
/// async fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// #[tokio::main]
/// async fn main() -> Result<(), mcp_runtime::Error> {
///     Server::new("calculator", "1.0.0").serve_from_args().await
/// }
/// ```
pub struct Server {
    info: Implementation,
    instructions: Option<String>,
    states: StateMap,
    authorize: Option<SharedAuthorize>,
    visible: Option<VisibleIf>,
    hide_unauthorized: bool,
    disabled_tags: Vec<String>,
    search: Option<crate::core::search::ToolSearch>,
    layers: crate::core::layers::Layers,
    response_cache: Option<crate::layers::ResponseCache>,
    audit: Option<crate::core::audit::Audit>,
    #[cfg(feature = "oauth")]
    exchange: Option<crate::downstream::TokenExchange>,
    #[cfg(feature = "oauth")]
    accounts: Option<crate::downstream::Accounts>,
    limits: Limits,
    oauth: Option<HttpAuth>,
    store: Option<Arc<dyn crate::store::DynStore>>,
    tasks: crate::core::tasks::TaskConfig,
    idempotency: crate::core::idempotency::IdempotencyConfig,
    artifacts: crate::core::artifacts::ArtifactConfig,
    cursor_ttl: Duration,
    only: Option<Selection>,
    /// Tools, prompts and resources added with `tool_from_json` and the others, or why
    /// one could not be read (reported by `build`).
    added: AddedItems,
    modules: Vec<String>,
    page_size: Option<usize>,
    output_schema_bytes: usize,
    list_cache: CacheHints,
    read_cache: CacheHints,
    discover_cache: CacheHints,
    seal_key: Option<SealKey>,
    request_state_ttl: Duration,
    shutdown_grace: Option<Duration>,
    request_span_level: Option<tracing::Level>,
    metrics_addr: Option<SocketAddr>,
    http: HttpConfig,
    stdio: StdioConfig,
    #[cfg(feature = "legacy")]
    legacy: crate::era::legacy::LegacyConfig,
}

/// Who the server is, and what its handlers share.
impl Server {
    /// A server named `name` at `version` (shown to clients as `serverInfo`).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Server {
            info: Implementation {
                name: name.into(),
                version: version.into(),
                title: None,
                description: None,
                website_url: None,
            },
            instructions: None,
            states: StateMap::default(),
            authorize: None,
            visible: None,
            hide_unauthorized: false,
            disabled_tags: Vec::new(),
            search: None,
            layers: Default::default(),
            response_cache: None,
            audit: None,
            #[cfg(feature = "oauth")]
            exchange: None,
            #[cfg(feature = "oauth")]
            accounts: None,
            limits: Limits::default(),
            oauth: None,
            store: None,
            tasks: Default::default(),
            idempotency: Default::default(),
            artifacts: Default::default(),
            cursor_ttl: crate::core::pages::DEFAULT_CURSOR_TTL,
            only: None,
            added: AddedItems::default(),
            modules: Vec::new(),
            page_size: None,
            output_schema_bytes: crate::registry::abridge::DEFAULT_BUDGET,
            list_cache: CacheHints::default(),
            read_cache: CacheHints::default(),
            discover_cache: CacheHints::default(),
            seal_key: None,
            request_state_ttl: Duration::from_secs(600),
            shutdown_grace: None,
            request_span_level: None,
            metrics_addr: None,
            http: HttpConfig::default(),
            stdio: StdioConfig::default(),
            #[cfg(feature = "legacy")]
            legacy: Default::default(),
        }
    }

    setters! {
        /// Display title shown by hosts.
        fn title(title: impl Into<String>) => info.title = Some(title.into());

        /// Guidance for the model on using this server as a whole (sent in `server/discover`).
        fn instructions(text: impl Into<String>) => instructions = Some(text.into());
    }

    /// Share a value with handlers; they take it as `State<T>`. One value per type.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }
}

/// Who may call, and what each caller sees: the token check on HTTP, the caller on stdio,
/// the authorization hook, and the filter of list results.
impl Server {
    /// The hook that runs before every tool call, resource read, prompt get and
    /// completion, after the built-in check of the scopes the target declares
    /// ([`DeclaredScopes`](crate::policy::auth::DeclaredScopes)). Default: allow what the scopes allow.
    /// Compose several hooks with [`AuthorizeExt::and`](crate::policy::auth::AuthorizeExt::and).
    pub fn authorize<A: Authorize>(mut self, hook: A) -> Self {
        self.authorize = Some(Arc::new(hook));
        self
    }

    /// Serve Streamable HTTP as an OAuth 2.1 resource server: every request needs a bearer
    /// token that `verifier` accepts (else 401), the metadata document of `resource` is
    /// served at its well-known path and named in every challenge, and a call whose token
    /// lacks a declared scope gets 403 with an `insufficient_scope` challenge. The
    /// resource's host is added to the allowed hosts. On stdio, the verifier checks
    /// `MCP_ACCESS_TOKEN` when the host sets it. Replaces a [`Server::verify_tokens`].
    pub fn oauth<V: TokenVerifier>(mut self, resource: ProtectedResource, verifier: V) -> Self {
        self.oauth = Some(HttpAuth::oauth(resource, verifier));
        self
    }

    /// Check a bearer token on every Streamable HTTP request with `verifier`, without an
    /// OAuth flow: for API keys ([`ApiKeys`](crate::policy::api_keys::ApiKeys)) and other
    /// tokens no authorization server issues. A request without a token, or with one the
    /// verifier refuses, gets 401 with a plain `WWW-Authenticate: Bearer` challenge; a
    /// caller without a declared scope gets 403 with an `insufficient_scope` one. No
    /// protected-resource metadata is served and the challenges name none (use
    /// [`Server::oauth`] when an authorization server issues the tokens). The server may
    /// then serve an address other than loopback. On stdio, the verifier checks
    /// `MCP_ACCESS_TOKEN` when the host sets it. Replaces a [`Server::oauth`].
    pub fn verify_tokens<V: TokenVerifier>(mut self, verifier: V) -> Self {
        self.oauth = Some(HttpAuth::tokens(verifier));
        self
    }

    /// Allow [`App::serve_http`] on an address other than loopback without a token
    /// verifier. Without this, such a server refuses to start: anyone who can reach the
    /// port could call every tool. Use it when a gateway in front authenticates callers.
    pub fn allow_unauthenticated_remote(mut self) -> Self {
        self.http.allow_unauthenticated_remote = true;
        self
    }

    /// Show each caller only the tools, resources, templates and prompts `rule` accepts.
    /// The rule sees the request (its caller's [`Principal`], tenant and scopes, the
    /// client's capabilities) and the item ([`Listed`]: its name, tags, version and
    /// declared scopes). What it hides is left out of that caller's lists, and is not
    /// found when that caller names it (`tools/call`, `resources/read`, `prompts/get`,
    /// `completion/complete`, as if it did not exist, in both eras). Lists then vary by
    /// caller, so they are `cacheScope: private`. Calls of visible items are still
    /// decided by scopes and the [`Authorize`] hook.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::Listed;
    ///
    /// // Tools tagged "beta" only for the tenant "acme".
    /// let server = Server::new("shop", "1.0.0").visible_if(|ctx, item: &Listed<'_>| {
    ///     !item.tags().contains(&"beta")
    ///         || ctx.principal().and_then(|p| p.tenant()) == Some("acme")
    /// });
    /// # let _ = server;
    /// ```
    pub fn visible_if<F>(mut self, rule: F) -> Self
    where
        F: Fn(&RequestContext, &Listed<'_>) -> bool + Send + Sync + 'static,
    {
        self.visible = Some(Arc::new(rule));
        self
    }

    /// Leave out of each caller's lists (and `search_tools` answers) the items whose
    /// declared scopes it lacks. Calling one still gets the 403 naming the scopes it
    /// needs, so a client can ask for them and try again; to make such items not found
    /// as well, hide them with [`Server::visible_if`]. Clients can no longer discover
    /// from the lists what more scopes would unlock, which is why it is not the default.
    pub fn hide_unauthorized(mut self) -> Self {
        self.hide_unauthorized = true;
        self
    }

    /// Wrap every `tools/call`, `resources/read` and `prompts/get` in `layer`, a
    /// [`tower::Layer`] over a [`CallService`](crate::layers::CallService): it sees the
    /// [`Call`](crate::layers::Call) (what, which target, the checked arguments, the
    /// request and its caller) and the [`Outcome`](crate::layers::Outcome) or the error,
    /// and may answer itself (from a cache), refuse (an `Err`), or pass the call on.
    /// Layers run in the order they are added, the first outermost; all run after
    /// authorization and argument checks, and within the call's time limit.
    /// The handler runs at most once per call, whatever a layer does (a second run is an
    /// error). See the book's "Layers".
    ///
    /// ```
    /// use mcp_runtime::layers::{Call, CallService};
    /// use mcp_runtime::prelude::*;
    /// use tower::ServiceExt as _;
    ///
    /// // Refuse tools/call on Sundays; pass everything else on.
    /// let closed_on_sundays = tower::layer::layer_fn(|inner: CallService| {
    ///     tower::service_fn(move |call: Call| {
    ///         let inner = inner.clone();
    ///         async move {
    ///             let sunday = false; // a real layer would read a clock
    ///             if sunday {
    ///                 return Err(RpcError::invalid_request("closed on Sundays"));
    ///             }
    ///             inner.oneshot(call).await
    ///         }
    ///     })
    /// });
    /// let server = Server::new("shop", "1.0.0").layer(closed_on_sundays);
    /// # let _ = server;
    /// ```
    pub fn layer(mut self, layer: impl crate::layers::CallLayer) -> Self {
        self.layers.push(None, layer);
        self
    }

    /// [`Server::layer`] for the calls `applies` accepts only: by kind, target or tag
    /// (`|call| call.tags().contains(&"billing")`). Other calls skip it.
    pub fn layer_if<F>(mut self, applies: F, layer: impl crate::layers::CallLayer) -> Self
    where
        F: Fn(&crate::layers::Call) -> bool + Send + Sync + 'static,
    {
        self.layers.push(Some(Arc::new(applies)), layer);
        self
    }

    /// Serve the results of read-only tools and of resource reads again while they are
    /// fresh, without running the handler: see [`ResponseCache`](crate::layers::ResponseCache)
    /// for what is cached, for whom and for how long. The cache runs after authorization
    /// and the argument checks, and inside the layers, which see every call it answers.
    /// Its entries live in the server's [`store`](Server::store).
    pub fn cache_responses(mut self, cache: crate::layers::ResponseCache) -> Self {
        self.response_cache = Some(cache);
        self
    }

    /// Record every `tools/call`, `resources/read` and `prompts/get` in `sink`: who
    /// (principal, tenant), what (target, arguments with their secrets redacted), when,
    /// how it ended and how long it took (see [`AuditRecord`](crate::audit::AuditRecord)).
    /// A call refused before it runs (unknown, invalid, denied, limited) is recorded too;
    /// a tool argument marked `#[redact]`, and any value its schema marks `writeOnly` or
    /// `format: "password"`, is recorded as `"[redacted]"`.
    ///
    /// ```
    /// use mcp_runtime::audit::AuditLog;
    /// use mcp_runtime::prelude::*;
    ///
    /// /// Signs in to the billing system.
    /// #[tool]
    /// async fn sign_in(user: String, #[redact] password: String) -> String {
    ///     # let _ = password;
    ///     format!("signed in as {user}")
    /// }
    ///
    /// let server = Server::new("billing", "1.0.0").audit(AuditLog);
    /// # let _ = server;
    /// ```
    pub fn audit(mut self, sink: impl crate::audit::AuditSink) -> Self {
        self.audit = Some(crate::core::audit::Audit::new(sink));
        self
    }

    /// Trade callers' access tokens for downstream ones (RFC 8693) at this authorization
    /// server, for handlers that call other APIs as the caller with
    /// [`RequestContext::downstream`] and [`Downstream::exchange`](crate::downstream::Downstream::exchange).
    /// Only tokens an authorization server issued for this server (with
    /// [`Server::oauth`], over HTTP or as stdio's `MCP_ACCESS_TOKEN`) are exchanged; API
    /// keys never are. Feature `oauth`.
    ///
    /// ```
    /// use mcp_runtime::downstream::{ClientAuth, TokenExchange};
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::new("orders", "1.0.0").exchange_tokens(TokenExchange::new(
    ///     "https://auth.example.com/oauth/token",
    ///     ClientAuth::secret_basic("mcp-orders", "the client secret"),
    /// ));
    /// # let _ = server;
    /// ```
    #[cfg(feature = "oauth")]
    pub fn exchange_tokens(mut self, exchange: crate::downstream::TokenExchange) -> Self {
        self.exchange = Some(exchange);
        self
    }

    /// Offer connected accounts: callers sign in at these providers once, through this
    /// server's route `/oauth/callback`, and handlers then call the providers' APIs with
    /// the caller's tokens ([`Downstream::account`](crate::downstream::Downstream::account)),
    /// kept encrypted in the server's store. Feature `oauth`.
    #[cfg(feature = "oauth")]
    pub fn accounts(mut self, accounts: crate::downstream::Accounts) -> Self {
        self.accounts = Some(accounts);
        self
    }

    setters! {
        /// The caller on stdio, instead of the one the environment names
        /// ([`Principal::from_env`]).
        fn stdio_principal(principal: Principal) => stdio.principal = Some(principal);
    }
}

/// What one message, one call and one caller may consume: all at once with
/// [`Server::limits`], or one at a time (see [`Limits`] for each and its default).
impl Server {
    setters! {
        /// All limits at once (see [`Limits`] for each and its default).
        fn limits(limits: Limits) => limits = limits;

        /// Deepest accepted nesting of arrays and objects in a message (default 64); deeper
        /// messages get -32600 before they are parsed.
        fn max_json_depth(depth: usize) => limits.max_json_depth = depth.max(2);

        /// Largest `arguments` of one `tools/call` or `prompts/get`, in bytes of JSON (default
        /// 1 MiB); larger ones get -32602.
        fn max_argument_bytes(bytes: usize) => limits.max_argument_bytes = bytes;

        /// Most calls one principal may have running at once (default 64); more get -31429
        /// (HTTP 429) with `data.retryAfterMs`.
        fn max_concurrent_calls(calls: usize) => limits.max_concurrent_calls = calls.max(1);

        /// Longest a handler may run (default 5 minutes; `None`: no limit). The call then fails
        /// with -31408 and its cancellation fires.
        fn call_timeout(timeout: Option<Duration>) => limits.call_timeout = timeout;

        /// Limit how fast each principal may call (`tools/call`, `resources/read`,
        /// `prompts/get`; default unlimited). Refused calls get -31429 (HTTP 429 with
        /// `Retry-After`) and `data.retryAfterMs`.
        fn rate_limit(limit: RateLimit) => limits.rate = Some(limit);
    }
}

/// The transports' own bounds, and the hosts HTTP requests may name.
impl Server {
    /// Hosts accepted in `Host` and `Origin` on HTTP (default: localhost, 127.0.0.1, `[::1]`).
    /// Requests naming any other host get 403, which defeats DNS rebinding.
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.http.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    setters! {
        /// Largest accepted HTTP request body (default 4 MiB); larger bodies get 413.
        fn max_body_bytes(bytes: usize) => http.max_body_bytes = bytes;

        /// Longest time a client may take to send a request body (default 30 s); slower
        /// clients get 408.
        fn request_body_timeout(timeout: Duration) => http.body_timeout = timeout;

        /// Longest accepted stdio line (default 4 MiB); longer lines get a -32600 error.
        fn max_line_bytes(bytes: usize) => stdio.max_line_bytes = bytes;
    }
}

/// What is served: the functions linked into the binary, or those picked by name or
/// module, and tools, prompts and resources known only at run time.
impl Server {
    /// Do not serve the tools, resources and prompts that carry one of these tags
    /// (`tags(..)` on the attribute). They are neither listed nor callable until enabled
    /// again at run time ([`ServerHandle::enable_tag`](crate::core::ServerHandle::enable_tag)).
    pub fn disable_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        for tag in tags {
            let tag = tag.into();
            if !self.disabled_tags.contains(&tag) {
                self.disabled_tags.push(tag);
            }
        }
        self
    }

    /// Search instead of the whole list for large catalogs: when a caller may see more
    /// tools than `search`'s threshold, its `tools/list` holds the tools pinned by tag and
    /// `search_tools`, which finds the others by a description of the task. Tools not
    /// listed are still called by name, authorized as usual; a search only names tools
    /// the caller may see (see [`ToolSearch`](crate::ToolSearch)).
    pub fn tool_search(mut self, search: crate::core::search::ToolSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Serve only these tools (name them with `tools![a, module::b]`), instead of every
    /// `#[tool]`, `#[resource]` and `#[prompt]` in the binary. Combines with
    /// [`Server::only_resources`], [`Server::only_prompts`] and [`Server::only_module`].
    pub fn only(mut self, tools: impl IntoIterator<Item = ToolRef>) -> Self {
        self.only
            .get_or_insert_with(Selection::default)
            .tools
            .extend(tools.into_iter().map(|t| t.0));
        self
    }

    /// Serve only these resources (`resources![a, module::b]`); see [`Server::only`].
    pub fn only_resources(mut self, resources: impl IntoIterator<Item = ResourceRef>) -> Self {
        self.only
            .get_or_insert_with(Selection::default)
            .resources
            .extend(resources.into_iter().map(|r| r.0));
        self
    }

    /// Serve only these prompts (`prompts![a, module::b]`); see [`Server::only`].
    pub fn only_prompts(mut self, prompts: impl IntoIterator<Item = PromptRef>) -> Self {
        self.only
            .get_or_insert_with(Selection::default)
            .prompts
            .extend(prompts.into_iter().map(|p| p.0));
        self
    }

    /// Serve the tools, resources and prompts defined in module `path` (as `module_path!()`
    /// names it, e.g. `"my_crate::billing"`) and its submodules. Combines with
    /// [`Server::only`].
    pub fn only_module(mut self, path: impl Into<String>) -> Self {
        self.modules.push(path.into());
        self
    }

    /// Serve a tool known only at run time (say, one learned from another server): `tool`
    /// is its `tools/list` entry as JSON (`name`, `inputSchema`, and optionally `title`,
    /// `description`, `outputSchema`, `annotations`), and `handler` runs each call with the
    /// request's context (caller, cancellation, progress) and the arguments.
    ///
    /// The tool goes through the same pipeline as a `#[tool]` function: its arguments are
    /// checked against `inputSchema` (a call that does not match gets an `isError` result
    /// listing the problems, and the handler does not run), [`Server::authorize`] hooks see
    /// it, it is listed in pages in both protocol eras, and the caller's limits apply as to
    /// any call. It is
    /// served whatever [`Server::only`] and [`Server::only_module`] pick. Its results are
    /// sent whole (never stored as artifacts) and it never runs as a task.
    ///
    /// [`Server::build`] fails with a [`BuildError`](crate::BuildError) when the JSON is not
    /// a tool, the name breaks the spec's rule (1 to 128 characters of `A-Za-z0-9_-.`), a
    /// schema is not a JSON Schema of `type: "object"` or does not compile, a `_meta` key
    /// breaks the spec's grammar or sits under a prefix it reserves (second label
    /// `modelcontextprotocol` or `mcp`), or another tool (a `#[tool]` or another dynamic
    /// one) has the same name. Its definition is kept for
    /// the life of the process, as a `#[tool]`'s is: add dynamic tools at start, not per
    /// request.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use serde_json::json;
    ///
    /// let server = Server::new("calculator", "1.0.0").tool_from_json(
    ///     json!({
    ///         "name": "double",
    ///         "description": "Doubles a number.",
    ///         "inputSchema": {
    ///             "type": "object",
    ///             "properties": {"n": {"type": "number"}},
    ///             "required": ["n"]
    ///         }
    ///     }),
    ///     |_ctx, arguments| async move {
    ///         let n = arguments.get("n").and_then(|n| n.as_f64()).unwrap_or_default();
    ///         Ok(CallToolResult::success(vec![Content::text((n * 2.0).to_string())]))
    ///     },
    /// );
    /// # server.build().map(drop).expect("builds");
    /// ```
    pub fn tool_from_json<F, Fut>(mut self, tool: Value, handler: F) -> Self
    where
        F: Fn(RequestContext, Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, RpcError>> + Send + 'static,
    {
        let call: DynamicCall = Arc::new(move |ctx, arguments| Box::pin(handler(ctx, arguments)));
        self.added
            .tools
            .push(DynamicTool::new(tool, call).map(Arc::new));
        self
    }

    /// Serve a prompt known only at run time: `prompt` is its `prompts/list` entry as JSON
    /// (`name`, and optionally `title`, `description`, `arguments`: each with a `name`, and
    /// optionally `title`, `description`, `required`), and `handler` answers each
    /// `prompts/get` with the request's context and the arguments (all strings).
    ///
    /// As for a `#[prompt]`, the arguments are checked first (strings, known, the required
    /// ones given), [`Server::authorize`] hooks see it, and it is listed in pages in both
    /// protocol eras, whatever [`Server::only_prompts`] picks. [`Server::build`] fails when
    /// the JSON is not a prompt or another prompt has the same name. Its definition is kept
    /// for the life of the process: add dynamic prompts at start.
    pub fn prompt_from_json<F, Fut>(mut self, prompt: Value, handler: F) -> Self
    where
        F: Fn(RequestContext, Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, RpcError>> + Send + 'static,
    {
        let get: DynamicGet = Arc::new(move |ctx, arguments| Box::pin(handler(ctx, arguments)));
        self.added
            .prompts
            .push(DynamicPrompt::new(prompt, get).map(Arc::new));
        self
    }

    /// Serve a resource or resource template known only at run time: `resource` is its
    /// list entry as JSON, either a resource of `resources/list` (`uri`, `name`, and
    /// optionally `title`, `description`, `mimeType`, `size`, `annotations`) or a template
    /// of `resources/templates/list` (`uriTemplate` instead of `uri`), published as given.
    /// `handler` reads one URI (the one asked for, which matches the template) with the
    /// request's context.
    ///
    /// Templates are matched as a `#[resource]`'s are, so they take the forms the server
    /// publishes: literal text with `{name}` (one path segment) and a final `{+name}` (the
    /// rest of the URI). Reads are `cacheScope: private`, since what the handler reads may
    /// depend on the caller. [`Server::authorize`] hooks see the resource, whatever
    /// [`Server::only_resources`] picks. [`Server::build`] fails when the JSON is not a
    /// resource, a template has another form, a `_meta` key breaks the spec's grammar or
    /// sits under a prefix it reserves, or the URI is served twice (or two templates
    /// overlap). Its definition is kept for the life of the process: add dynamic
    /// resources at start.
    pub fn resource_from_json<F, Fut>(mut self, resource: Value, handler: F) -> Self
    where
        F: Fn(RequestContext, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, RpcError>> + Send + 'static,
    {
        let read: DynamicRead = Arc::new(move |ctx, uri| Box::pin(handler(ctx, uri)));
        self.added
            .resources
            .push(DynamicResource::new(resource, read).map(Arc::new));
        self
    }
}

/// List pages, and the cache hints on lists, reads and `server/discover`.
impl Server {
    setters! {
        /// Entries per page of every list method (default 100; without this call, the
        /// `MCP_PAGE_SIZE` environment variable sets it).
        fn page_size(size: usize) => page_size = Some(size.max(1));

        /// Cache hints on list results (default one minute, public).
        fn list_cache(hints: CacheHints) => list_cache = hints;

        /// Cache hints on `resources/read` results (default one minute, public). A resource's
        /// own `ttl` / `cache` options take precedence.
        fn read_cache(hints: CacheHints) => read_cache = hints;

        /// Cache hints on the `server/discover` result (default one minute, public).
        fn discover_cache(hints: CacheHints) => discover_cache = hints;

        /// How large a tool's published output schema may be, in bytes of JSON (default 32
        /// KiB). A result type's schema carries every named schema it reaches, which for
        /// types generated from a large API document (`mcp openapi`) is most of the
        /// document; past this size the named schemas farthest from the result are left
        /// out of the published schema, each reference to one replaced by its `type` and
        /// description, and a log line says how many tools were shortened (at debug
        /// level, which, with their sizes). What is published then accepts every result
        /// the whole schema accepts, and more: a client validating results still accepts
        /// the tool's answers. `usize::MAX` publishes every schema whole. Tools served
        /// straight from a document (feature `openapi`) have their own budget,
        /// `OpenApiTools::max_output_schema_bytes`.
        fn max_output_schema_bytes(bytes: usize) => output_schema_bytes = bytes;
    }
}

/// What the server remembers between requests, and what instances behind one load
/// balancer share so that they behave as one server.
impl Server {
    /// Where the server keeps what it remembers between requests: tasks, confirmations
    /// already used (single-use `requestState`) and outcomes recorded under idempotency
    /// keys. Default: the store the `MCP_STORE` environment variable names (a
    /// `postgres://` URL with the `postgres` feature, else the path of a SQLite file with
    /// the `sqlite` feature), else a [`MemoryStore`](crate::store::MemoryStore), which
    /// forgets everything when the process exits. Instances behind one load balancer share
    /// one PostgreSQL store (and one seal key), so they behave as one server.
    pub fn store<S: crate::store::Store>(mut self, store: S) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    setters! {
        /// The key that seals list cursors and `requestState`. Default: the `MCP_SEAL_KEY`
        /// environment variable, else a random key per process. Give every instance behind one
        /// load balancer the same key, so any of them can resume a listing or finish a call
        /// that asked the user for input.
        fn seal_key(key: SealKey) => seal_key = Some(key);

        /// How long a client has to answer an `input_required` result (default 10 minutes).
        /// The retry must arrive within this time, or the `requestState` is refused as
        /// expired and the call starts over.
        fn request_state_ttl(ttl: Duration) => request_state_ttl = ttl;
    }
}

/// Long-running work: tasks, and calls under idempotency keys.
impl Server {
    setters! {
        /// A task tool's call still running after this long becomes a task (default 1 s);
        /// one that finishes sooner answers directly. `ctx.start_task()` makes it a task at
        /// once.
        fn task_after(after: Duration) => tasks.task_after = after;

        /// How long a task stays readable after it was created (default one hour; `None`:
        /// until deleted). After it, `tasks/get` answers -32602 and the task is deleted.
        fn task_ttl(ttl: Option<Duration>) => tasks.ttl = ttl;

        /// The polling interval suggested to clients (`pollIntervalMs`, default 500 ms).
        fn task_poll_interval(interval: Duration) => tasks.poll_interval = interval.max(Duration::from_millis(1));

        /// How long an instance's claim on work it runs lasts unless renewed (default 15 s;
        /// renewed every third of it): a running task, or a call under an idempotency key.
        /// When the instance dies, the next `tasks/get` after this long fails its task, and a
        /// retry under the key is answered `outcome_unknown`.
        fn lease(lease: Duration) => tasks.lease = lease.max(Duration::from_millis(150));

        /// How long the outcome of a call under an idempotency key is kept (default 24 hours):
        /// a retry with the same key within this time gets it back without running the tool
        /// again. See `#[tool(idempotency)]`.
        fn idempotency_ttl(ttl: Duration) => idempotency.ttl = ttl;

        /// How long a retry waits for the first call under the same idempotency key to finish
        /// before answering `in_progress` (default 10 s).
        fn idempotency_wait(wait: Duration) => idempotency.wait = wait;
    }
}

/// Large results: the results stored as artifacts, and the cursors of paged results.
impl Server {
    setters! {
        /// Tool results larger than this, serialized, are stored whole as an artifact and the
        /// model gets a link to it, their size and their first lines instead (see
        /// [`Artifact`](crate::Artifact)); `None` sends every result whole. Default: 64 KiB.
        /// `#[tool(inline_limit = ..)]` sets a tool's own.
        fn inline_result_limit(limit: Option<usize>) => artifacts.inline_limit = limit;

        /// How long an artifact can be read after it was made (default one hour).
        fn artifact_ttl(ttl: Duration) => artifacts.ttl = ttl;

        /// The largest artifact the server stores, in bytes (default 256 MiB); a larger one
        /// fails the tool call that makes it.
        fn artifact_max_size(bytes: u64) => artifacts.max_bytes = bytes;

        /// The most one `resources/read` of an artifact serves, in bytes before base64
        /// (default 1 MiB): larger artifacts are read in parts of this size,
        /// `artifact://<id>/part/<n>`.
        fn artifact_part_size(bytes: usize) => artifacts.part_bytes = bytes.max(4);

        /// How long the cursor of a paged tool result ([`Page`](crate::Page)) can be used
        /// (default one hour). After it, the model is told to start again from the first page.
        fn page_cursor_ttl(ttl: Duration) => cursor_ttl = ttl;
    }
}

/// Operations: the shutdown grace, the request spans and the metrics endpoint.
impl Server {
    setters! {
        /// How long calls and tasks already running may take to finish once shutdown starts
        /// (SIGTERM, Ctrl-C, EOF on stdio, or [`App::shutdown`]); default 20 s. Calls still
        /// running then are stopped and answer with -31503 (HTTP 503), and running tasks
        /// fail with the same reason. Keep it below your orchestrator's own limit (Kubernetes'
        /// `terminationGracePeriodSeconds` is 30 s by default). Without this call, the
        /// `MCP_SHUTDOWN_GRACE_MS` environment variable sets it.
        fn shutdown_grace(grace: Duration) => shutdown_grace = Some(grace);

        /// The level of each request's `mcp.request` span (target `mcp_runtime::request`).
        /// Default: `DEBUG`, so the usual `info` filter creates no span and the request path
        /// pays nothing for it; `INFO` when the `MCP_LOG_REQUESTS` environment variable asks
        /// for a log line per request. A subscriber of your own (an OpenTelemetry exporter,
        /// say) sees the spans when its filter admits this level for that target, e.g.
        /// `RUST_LOG=info,mcp_runtime::request=debug`, or when you raise the level here.
        fn request_span_level(level: tracing::Level) => request_span_level = Some(level);

        /// Count requests (by method, target, outcome and error layer, with latency) and
        /// serve them in the Prometheus text format at `http://addr/metrics`, a listener of
        /// its own so the MCP port does not expose them. Without this call, the
        /// `MCP_METRICS_ADDR` environment variable (e.g. `127.0.0.1:9464`) turns it on.
        /// [`App::metrics`] renders the same text for a router of your own.
        fn metrics_endpoint(addr: SocketAddr) => metrics_addr = Some(addr);
    }
}

/// The handshake era (the `legacy` feature): the revisions `initialize` may settle on,
/// its server-to-client requests and its HTTP sessions.
#[cfg(feature = "legacy")]
impl Server {
    /// The handshake-era revisions `initialize` may settle on (default: 2025-11-25,
    /// 2025-06-18 and 2025-03-26). Versions this crate does not know are ignored; with none
    /// left, `initialize` is refused with the 2026-07-28 versions named, as in a build
    /// without the `legacy` feature.
    pub fn legacy_versions<'a>(mut self, versions: impl IntoIterator<Item = &'a str>) -> Self {
        let wanted: Vec<&str> = versions.into_iter().collect();
        self.legacy.versions = crate::protocol::version::LEGACY_VERSIONS
            .iter()
            .copied()
            .filter(|v| wanted.contains(v))
            .collect();
        self
    }

    setters! {
        /// How long a handshake-era request waits for the client to answer the server's own
        /// request (an elicitation, a sampling request, `roots/list`; default 5 minutes). The
        /// call then fails and the server cancels its request.
        fn client_request_timeout(timeout: Duration) => legacy.client_request_timeout = timeout;

        /// A handshake-era HTTP session with no request and no open stream for this long ends
        /// (default 30 minutes); its client gets 404 and initializes again.
        fn session_idle_timeout(timeout: Duration) => legacy.session_idle_timeout = timeout;

        /// Most handshake-era HTTP sessions held at once (default 10 000); opening one more
        /// ends the least recently used.
        fn max_sessions(sessions: usize) => legacy.max_sessions = sessions.max(1);
    }
}

#[cfg(test)]
mod resolve_once;
