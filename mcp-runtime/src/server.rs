//! The `Server` builder and the built [`App`].

use std::net::SocketAddr;
use std::sync::Arc;

use crate::core::input::Rounds;
use crate::core::live::Live;
use crate::core::{Core, ServerHandle, StateMap};
use crate::policy::auth::{AllowAll, Authorize, ListFilter, Listed, SharedAuthorize};
use crate::policy::limits::{Limiter, Limits, RateLimit};
use crate::policy::oauth::{HttpAuth, ProtectedResource, TokenVerifier};
use crate::policy::principal::Principal;
use crate::policy::seal::{SealKey, Sealer, SEAL_KEY_ENV};
use crate::protocol::cache::CacheHints;
use crate::protocol::{version, Implementation};
use crate::registry::{
    BuildError, Defs, PromptDef, PromptRef, PromptRegistration, ResourceDef, ResourceRef,
    ResourceRegistration, ToolDef, ToolRef, ToolRegistration,
};
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;
use crate::Error;

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
    authorize: SharedAuthorize,
    list_filter: Option<ListFilter>,
    limits: Limits,
    oauth: Option<HttpAuth>,
    store: Option<Arc<dyn crate::store::DynStore>>,
    tasks: crate::core::tasks::TaskConfig,
    idempotency: crate::core::idempotency::IdempotencyConfig,
    artifacts: crate::core::artifacts::ArtifactConfig,
    cursor_ttl: std::time::Duration,
    only: Option<Selection>,
    modules: Vec<String>,
    page_size: Option<usize>,
    list_cache: CacheHints,
    read_cache: CacheHints,
    discover_cache: CacheHints,
    seal_key: Option<SealKey>,
    request_state_ttl: std::time::Duration,
    shutdown_grace: Option<std::time::Duration>,
    request_span_level: Option<tracing::Level>,
    metrics_addr: Option<SocketAddr>,
    http: HttpConfig,
    stdio: StdioConfig,
    #[cfg(feature = "legacy")]
    legacy: crate::era::legacy::LegacyConfig,
}

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
            authorize: Arc::new(AllowAll),
            list_filter: None,
            limits: Limits::default(),
            oauth: None,
            store: None,
            tasks: Default::default(),
            idempotency: Default::default(),
            artifacts: Default::default(),
            cursor_ttl: crate::core::pages::DEFAULT_CURSOR_TTL,
            only: None,
            modules: Vec::new(),
            page_size: None,
            list_cache: CacheHints::default(),
            read_cache: CacheHints::default(),
            discover_cache: CacheHints::default(),
            seal_key: None,
            request_state_ttl: std::time::Duration::from_secs(600),
            shutdown_grace: None,
            request_span_level: None,
            metrics_addr: None,
            http: HttpConfig::default(),
            stdio: StdioConfig::default(),
            #[cfg(feature = "legacy")]
            legacy: Default::default(),
        }
    }

    /// Display title shown by hosts.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Guidance for the model on using this server as a whole (sent in `server/discover`).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Share a value with handlers; they take it as `State<T>`. One value per type.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }

    /// The hook that runs before every tool call, resource read, prompt get and
    /// completion, after the built-in check of the scopes the target declares
    /// ([`DeclaredScopes`](crate::policy::auth::DeclaredScopes)). Default: allow what the scopes allow.
    /// Compose several hooks with [`AuthorizeExt::and`](crate::policy::auth::AuthorizeExt::and).
    pub fn authorize<A: Authorize>(mut self, hook: A) -> Self {
        self.authorize = Arc::new(hook);
        self
    }

    /// Serve Streamable HTTP as an OAuth 2.1 resource server: every request needs a bearer
    /// token that `verifier` accepts (else 401), the metadata document of `resource` is
    /// served at its well-known path, and a call whose token lacks a declared scope gets
    /// 403 with an `insufficient_scope` challenge. The resource's host is added to the
    /// allowed hosts. On stdio, the verifier checks `MCP_ACCESS_TOKEN` when the host sets it.
    pub fn oauth<V: TokenVerifier>(mut self, resource: ProtectedResource, verifier: V) -> Self {
        self.oauth = Some(HttpAuth::new(resource, verifier));
        self
    }

    /// Allow [`App::serve_http`] on an address other than loopback without a token
    /// verifier. Without this, such a server refuses to start: anyone who can reach the
    /// port could call every tool. Use it when a gateway in front authenticates callers.
    pub fn allow_unauthenticated_remote(mut self) -> Self {
        self.http.allow_unauthenticated_remote = true;
        self
    }

    /// Show a caller only the list entries `filter` accepts (it sees the caller's principal,
    /// `None` when anonymous). Lists then vary by caller, so they are `cacheScope: private`.
    /// Filtering hides; it does not forbid: calls are still decided by scopes and the
    /// [`Authorize`] hook.
    pub fn list_filter<F>(mut self, filter: F) -> Self
    where
        F: Fn(Option<&Principal>, &Listed<'_>) -> bool + Send + Sync + 'static,
    {
        self.list_filter = Some(Arc::new(filter));
        self
    }

    /// Leave out of list results the entries whose declared scopes the caller lacks (a
    /// [`Server::list_filter`]). Clients then cannot discover what they could unlock by
    /// asking for more scopes, which is why it is not the default.
    pub fn hide_unauthorized(self) -> Self {
        self.list_filter(|principal, listed| {
            crate::policy::auth::DeclaredScopes::check_principal(
                principal,
                listed.required_scopes(),
            )
            .is_ok()
        })
    }

    /// All limits at once (see [`Limits`] for each and its default).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Deepest accepted nesting of arrays and objects in a message (default 64); deeper
    /// messages get -32600 before they are parsed.
    pub fn max_json_depth(mut self, depth: usize) -> Self {
        self.limits.max_json_depth = depth.max(2);
        self
    }

    /// Largest `arguments` of one `tools/call` or `prompts/get`, in bytes of JSON (default
    /// 1 MiB); larger ones get -32602.
    pub fn max_argument_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_argument_bytes = bytes;
        self
    }

    /// Most calls one principal may have running at once (default 64); more get -31429
    /// (HTTP 429) with `data.retryAfterMs`.
    pub fn max_concurrent_calls(mut self, calls: usize) -> Self {
        self.limits.max_concurrent_calls = calls.max(1);
        self
    }

    /// Longest a handler may run (default 5 minutes; `None`: no limit). The call then fails
    /// with -31408 and its cancellation fires.
    pub fn call_timeout(mut self, timeout: Option<std::time::Duration>) -> Self {
        self.limits.call_timeout = timeout;
        self
    }

    /// Limit how fast each principal may call (`tools/call`, `resources/read`,
    /// `prompts/get`; default unlimited). Refused calls get -31429 (HTTP 429 with
    /// `Retry-After`) and `data.retryAfterMs`.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.limits.rate = Some(limit);
        self
    }

    /// How long calls and tasks already running may take to finish once shutdown starts
    /// (SIGTERM, Ctrl-C, EOF on stdio, or [`App::shutdown`]); default 20 s. Calls still
    /// running then are stopped and answer with -31503 (HTTP 503), and running tasks
    /// fail with the same reason. Keep it below your orchestrator's own limit (Kubernetes'
    /// `terminationGracePeriodSeconds` is 30 s by default). Without this call, the
    /// `MCP_SHUTDOWN_GRACE_MS` environment variable sets it.
    pub fn shutdown_grace(mut self, grace: std::time::Duration) -> Self {
        self.shutdown_grace = Some(grace);
        self
    }

    /// The level of each request's `mcp.request` span (target `mcp_runtime::request`).
    /// Default: `DEBUG`, so the usual `info` filter creates no span and the request path
    /// pays nothing for it; `INFO` when the `MCP_LOG_REQUESTS` environment variable asks
    /// for a log line per request. A subscriber of your own (an OpenTelemetry exporter,
    /// say) sees the spans when its filter admits this level for that target, e.g.
    /// `RUST_LOG=info,mcp_runtime::request=debug`, or when you raise the level here.
    pub fn request_span_level(mut self, level: tracing::Level) -> Self {
        self.request_span_level = Some(level);
        self
    }

    /// Count requests (by method, target, outcome and error layer, with latency) and
    /// serve them in the Prometheus text format at `http://addr/metrics`, a listener of
    /// its own so the MCP port does not expose them. Without this call, the
    /// `MCP_METRICS_ADDR` environment variable (e.g. `127.0.0.1:9464`) turns it on.
    /// [`App::metrics`] renders the same text for a router of your own.
    pub fn metrics_endpoint(mut self, addr: SocketAddr) -> Self {
        self.metrics_addr = Some(addr);
        self
    }

    /// Longest time a client may take to send a request body (default 30 s); slower
    /// clients get 408.
    pub fn request_body_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.http.body_timeout = timeout;
        self
    }

    /// The caller on stdio, instead of the one the environment names
    /// ([`Principal::from_env`]).
    pub fn stdio_principal(mut self, principal: Principal) -> Self {
        self.stdio.principal = Some(principal);
        self
    }

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

    /// How long a task stays readable after it was created (default one hour; `None`:
    /// until deleted). After it, `tasks/get` answers -32602 and the task is deleted.
    pub fn task_ttl(mut self, ttl: Option<std::time::Duration>) -> Self {
        self.tasks.ttl = ttl;
        self
    }

    /// The polling interval suggested to clients (`pollIntervalMs`, default 500 ms).
    pub fn task_poll_interval(mut self, interval: std::time::Duration) -> Self {
        self.tasks.poll_interval = interval.max(std::time::Duration::from_millis(1));
        self
    }

    /// How long an instance's claim on work it runs lasts unless renewed (default 15 s;
    /// renewed every third of it): a running task, or a call under an idempotency key.
    /// When the instance dies, the next `tasks/get` after this long fails its task, and a
    /// retry under the key is answered `outcome_unknown`.
    pub fn lease(mut self, lease: std::time::Duration) -> Self {
        self.tasks.lease = lease.max(std::time::Duration::from_millis(150));
        self
    }

    /// How long the outcome of a call under an idempotency key is kept (default 24 hours):
    /// a retry with the same key within this time gets it back without running the tool
    /// again. See `#[tool(idempotency)]`.
    pub fn idempotency_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.idempotency.ttl = ttl;
        self
    }

    /// How long a retry waits for the first call under the same idempotency key to finish
    /// before answering `in_progress` (default 10 s).
    pub fn idempotency_wait(mut self, wait: std::time::Duration) -> Self {
        self.idempotency.wait = wait;
        self
    }

    /// Tool results larger than this, serialized, are stored whole as an artifact and the
    /// model gets a link to it, their size and their first lines instead (see
    /// [`Artifact`](crate::Artifact)); `None` sends every result whole. Default: 64 KiB.
    /// `#[tool(inline_limit = ..)]` sets a tool's own.
    pub fn inline_result_limit(mut self, limit: Option<usize>) -> Self {
        self.artifacts.inline_limit = limit;
        self
    }

    /// How long an artifact can be read after it was made (default one hour).
    pub fn artifact_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.artifacts.ttl = ttl;
        self
    }

    /// The largest artifact the server stores, in bytes (default 256 MiB); a larger one
    /// fails the tool call that makes it.
    pub fn artifact_max_size(mut self, bytes: u64) -> Self {
        self.artifacts.max_bytes = bytes;
        self
    }

    /// The most one `resources/read` of an artifact serves, in bytes before base64
    /// (default 1 MiB): larger artifacts are read in parts of this size,
    /// `artifact://<id>/part/<n>`.
    pub fn artifact_part_size(mut self, bytes: usize) -> Self {
        self.artifacts.part_bytes = bytes.max(4);
        self
    }

    /// How long the cursor of a paged tool result ([`Page`](crate::Page)) can be used
    /// (default one hour). After it, the model is told to start again from the first page.
    pub fn page_cursor_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.cursor_ttl = ttl;
        self
    }

    /// A task tool's call still running after this long becomes a task (default 1 s);
    /// one that finishes sooner answers directly. `ctx.start_task()` makes it a task at
    /// once.
    pub fn task_after(mut self, after: std::time::Duration) -> Self {
        self.tasks.task_after = after;
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

    /// Entries per page of every list method (default 100; without this call, the
    /// `MCP_PAGE_SIZE` environment variable sets it).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// Cache hints on list results (default one minute, public).
    pub fn list_cache(mut self, hints: CacheHints) -> Self {
        self.list_cache = hints;
        self
    }

    /// Cache hints on `resources/read` results (default one minute, public). A resource's
    /// own `ttl` / `cache` options take precedence.
    pub fn read_cache(mut self, hints: CacheHints) -> Self {
        self.read_cache = hints;
        self
    }

    /// Cache hints on the `server/discover` result (default one minute, public).
    pub fn discover_cache(mut self, hints: CacheHints) -> Self {
        self.discover_cache = hints;
        self
    }

    /// The key that seals list cursors and `requestState`. Default: the `MCP_SEAL_KEY`
    /// environment variable, else a random key per process. Give every instance behind one
    /// load balancer the same key, so any of them can resume a listing or finish a call
    /// that asked the user for input.
    pub fn seal_key(mut self, key: SealKey) -> Self {
        self.seal_key = Some(key);
        self
    }

    /// How long a client has to answer an `input_required` result (default 10 minutes).
    /// The retry must arrive within this time, or the `requestState` is refused as
    /// expired and the call starts over.
    pub fn request_state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// Hosts accepted in `Host` and `Origin` on HTTP (default: localhost, 127.0.0.1, `[::1]`).
    /// Requests naming any other host get 403, which defeats DNS rebinding.
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.http.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Largest accepted HTTP request body (default 4 MiB); larger bodies get 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.http.max_body_bytes = bytes;
        self
    }

    /// Longest accepted stdio line (default 4 MiB); longer lines get a -32600 error.
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.stdio.max_line_bytes = bytes;
        self
    }

    /// The handshake-era revisions `initialize` may settle on (default: 2025-11-25,
    /// 2025-06-18 and 2025-03-26). Versions this crate does not know are ignored; with none
    /// left, `initialize` is refused with the 2026-07-28 versions named, as in a build
    /// without the `legacy` feature.
    #[cfg(feature = "legacy")]
    pub fn legacy_versions<'a>(mut self, versions: impl IntoIterator<Item = &'a str>) -> Self {
        let wanted: Vec<&str> = versions.into_iter().collect();
        self.legacy.versions = crate::protocol::version::LEGACY_VERSIONS
            .iter()
            .copied()
            .filter(|v| wanted.contains(v))
            .collect();
        self
    }

    /// How long a handshake-era request waits for the client to answer the server's own
    /// request (an elicitation, a sampling request, `roots/list`; default 5 minutes). The
    /// call then fails and the server cancels its request.
    #[cfg(feature = "legacy")]
    pub fn client_request_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.legacy.client_request_timeout = timeout;
        self
    }

    /// A handshake-era HTTP session with no request and no open stream for this long ends
    /// (default 30 minutes); its client gets 404 and initializes again.
    #[cfg(feature = "legacy")]
    pub fn session_idle_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.legacy.session_idle_timeout = timeout;
        self
    }

    /// Most handshake-era HTTP sessions held at once (default 10 000); opening one more
    /// ends the least recently used.
    #[cfg(feature = "legacy")]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.legacy.max_sessions = sessions.max(1);
        self
    }

    /// Check everything (duplicate names, schemas, state) and build the served app.
    pub fn build(self) -> Result<App, Error> {
        let seal_key = match self.seal_key {
            Some(key) => key,
            None => match std::env::var(SEAL_KEY_ENV) {
                Ok(text) => SealKey::parse(&text).map_err(|e| {
                    Error::Build(vec![BuildError::Config(format!("{SEAL_KEY_ENV}: {e}"))])
                })?,
                Err(_) => {
                    SealKey::random().map_err(|e| Error::Build(vec![BuildError::Config(e)]))?
                }
            },
        };
        let mut http = self.http;
        if let Some(auth) = self.oauth {
            let problems = auth.resource().problems();
            if !problems.is_empty() {
                return Err(Error::Build(
                    problems.into_iter().map(BuildError::Config).collect(),
                ));
            }
            let host = auth.resource().host();
            if !http
                .allowed_hosts
                .iter()
                .any(|h| h.eq_ignore_ascii_case(&host))
            {
                http.allowed_hosts.push(host);
            }
            http.auth = Some(auth);
        }
        let shutdown_grace = match self.shutdown_grace {
            Some(grace) => grace,
            None => crate::core::lifecycle::grace_from_env()
                .map_err(|e| Error::Build(vec![BuildError::Config(e)]))?,
        };
        let metrics_addr = match self.metrics_addr {
            Some(addr) => Some(addr),
            None => match std::env::var(METRICS_ENV) {
                Ok(text) => Some(text.trim().parse::<SocketAddr>().map_err(|_| {
                    Error::Build(vec![BuildError::Config(format!(
                        "{METRICS_ENV} must be an address such as 127.0.0.1:9464, not {text:?}"
                    ))])
                })?),
                Err(_) => None,
            },
        };
        let sealer = Sealer::new(&seal_key);
        let defs = select(self.only, &self.modules);
        let records = crate::store::Records::new(match self.store {
            Some(store) => store,
            None => store_from_env()?,
        });
        let instance = crate::policy::seal::random_token(12)
            .map_err(|e| Error::Build(vec![BuildError::Config(e)]))?;
        // Always there: a task tool may be added while the server runs.
        let tasks = Some(Arc::new(crate::core::tasks::TaskRuntime::new(
            records.clone(),
            self.tasks.clone(),
            instance.clone(),
        )));
        let idempotency = crate::core::idempotency::Idempotency::new(
            records.clone(),
            self.idempotency,
            self.tasks.lease,
            instance,
        );
        let artifacts = crate::core::artifacts::Artifacts::new(records.clone(), self.artifacts);
        let mut states = self.states;
        // Handlers reach the artifacts through their context, as server-provided state.
        states.insert(artifacts.clone());
        let states = Arc::new(states);
        let page_size = match self.page_size {
            Some(size) => size,
            None => match std::env::var(PAGE_SIZE_ENV) {
                Ok(text) => text
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        Error::Build(vec![BuildError::Config(format!(
                            "{PAGE_SIZE_ENV} must be a positive whole number, not {text:?}"
                        ))])
                    })?,
                Err(_) => 100,
            },
        };
        let live =
            Live::new(defs, page_size, sealer.clone(), states.clone()).map_err(Error::Build)?;
        let info_json = serde_json::value::to_raw_value(&self.info)
            .map(Arc::from)
            .map_err(|e| {
                Error::Build(vec![BuildError::Config(format!(
                    "the server's name and version do not serialize: {e}"
                ))])
            })?;
        let core = Core {
            live: Arc::new(live),
            rounds: Rounds::new(sealer, self.request_state_ttl, records),
            idempotency,
            artifacts,
            cursor_ttl: self.cursor_ttl,
            authorize: self.authorize,
            list_filter: self.list_filter,
            limiter: Limiter::new(self.limits),
            tasks,
            states,
            info_json,
            info: self.info,
            instructions: self.instructions,
            list_cache: self.list_cache,
            read_cache: self.read_cache,
            discover_cache: self.discover_cache,
            supported_versions: version::MODERN_VERSIONS.to_vec(),
            lifecycle: Arc::new(crate::core::lifecycle::Lifecycle::new(shutdown_grace)),
            metrics: metrics_addr.map(|_| crate::metrics::Metrics::new()),
            span_level: self.request_span_level.unwrap_or(
                if crate::transport::args::flag(crate::transport::args::LOG_REQUESTS_ENV) {
                    tracing::Level::INFO
                } else {
                    tracing::Level::DEBUG
                },
            ),
        };
        let eras = crate::era::Eras::new(
            #[cfg(feature = "legacy")]
            self.legacy,
        );
        Ok(App {
            metrics_addr,
            closing: tokio_util::sync::CancellationToken::new(),
            core: Arc::new(core),
            http: Arc::new(http),
            stdio: self.stdio,
            #[cfg(feature = "legacy")]
            sessions: Arc::new(crate::transport::http::Sessions::new(eras.legacy.clone())),
            eras,
        })
    }

    /// Build, then serve MCP over stdin/stdout until EOF.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        self.build()?.serve_stdio().await
    }

    /// Build, then serve Streamable HTTP at `http://addr/mcp` until Ctrl-C or SIGTERM.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<(), Error> {
        self.build()?.serve_http(addr).await
    }

    /// Build, then return the HTTP endpoint as an `axum::Router` (route `/mcp`) to nest
    /// into an existing application.
    pub fn router(self) -> Result<axum::Router, Error> {
        Ok(self.build()?.router())
    }

    /// Build, then serve as the command line says: `--stdio` (the default) or
    /// `--http 127.0.0.1:8080`. Also sets up logging to stderr (`RUST_LOG` filters it).
    pub async fn serve_from_args(self) -> Result<(), Error> {
        let mode = crate::transport::args::parse(std::env::args().skip(1))?;
        crate::transport::args::init_logging();
        self.build()?.serve(mode).await
    }
}

/// The store the environment names (`MCP_STORE`), else one in memory.
fn store_from_env() -> Result<Arc<dyn crate::store::DynStore>, Error> {
    use crate::store::STORE_ENV;
    let config = |message: String| Error::Build(vec![BuildError::Config(message)]);
    if std::env::var_os("MCP_TASK_STORE").is_some() {
        return Err(config(format!(
            "MCP_TASK_STORE is set, but the store now keeps more than tasks and is named by {STORE_ENV}: rename the variable"
        )));
    }
    let named = std::env::var(STORE_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty());
    match named {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            #[cfg(feature = "postgres")]
            return Ok(Arc::new(crate::store::PostgresStore::new(url)));
            #[cfg(not(feature = "postgres"))]
            return Err(config(format!(
                "{STORE_ENV} names PostgreSQL, but mcp-runtime was built without its `postgres` feature"
            )));
        }
        Some(path) => {
            #[cfg(feature = "sqlite")]
            return crate::store::SqliteStore::open(&path)
                .map(|s| Arc::new(s) as Arc<dyn crate::store::DynStore>)
                .map_err(|e| config(format!("{STORE_ENV} {path:?}: {e}")));
            #[cfg(not(feature = "sqlite"))]
            return Err(config(format!(
                "{STORE_ENV} names the SQLite file {path:?}, but mcp-runtime was built without its `sqlite` feature"
            )));
        }
        None => Ok(Arc::new(crate::store::MemoryStore::new())),
    }
}

/// Items named explicitly with `Server::only*`.
#[derive(Default)]
struct Selection {
    tools: Vec<&'static ToolDef>,
    resources: Vec<&'static ResourceDef>,
    prompts: Vec<&'static PromptDef>,
}

fn in_modules(modules: &[String], module_path: &str) -> bool {
    modules.iter().any(|m| {
        module_path == m
            || module_path
                .strip_prefix(m.as_str())
                .is_some_and(|rest| rest.starts_with("::"))
    })
}

/// Everything registered, or what `only*` and `only_module` pick (each item once).
fn pick<T: 'static>(
    all: impl Iterator<Item = &'static T>,
    named: &[&'static T],
    modules: &[String],
    module_of: fn(&T) -> &'static str,
    filtering: bool,
) -> Vec<&'static T> {
    if !filtering {
        return all.collect();
    }
    let mut picked: Vec<&'static T> = all.filter(|d| in_modules(modules, module_of(d))).collect();
    for def in named {
        if !picked.iter().any(|p| std::ptr::eq(*p, *def)) {
            picked.push(def);
        }
    }
    picked
}

fn select(only: Option<Selection>, modules: &[String]) -> Defs {
    let filtering = only.is_some() || !modules.is_empty();
    let only = only.unwrap_or_default();
    Defs {
        tools: pick(
            inventory::iter::<ToolRegistration>.into_iter().map(|r| r.0),
            &only.tools,
            modules,
            |d| d.module_path,
            filtering,
        ),
        resources: pick(
            inventory::iter::<ResourceRegistration>
                .into_iter()
                .map(|r| r.0),
            &only.resources,
            modules,
            |d| d.module_path,
            filtering,
        ),
        prompts: pick(
            inventory::iter::<PromptRegistration>
                .into_iter()
                .map(|r| r.0),
            &only.prompts,
            modules,
            |d| d.module_path,
            filtering,
        ),
    }
}

/// A built server, ready to serve on any transport. Cheap to clone.
#[derive(Clone)]
pub struct App {
    pub(crate) metrics_addr: Option<SocketAddr>,
    pub(crate) closing: tokio_util::sync::CancellationToken,
    pub(crate) core: Arc<Core>,
    pub(crate) http: Arc<HttpConfig>,
    pub(crate) stdio: StdioConfig,
    pub(crate) eras: crate::era::Eras,
    /// Handshake-era HTTP sessions, shared by every router of this app.
    #[cfg(feature = "legacy")]
    pub(crate) sessions: Arc<crate::transport::http::Sessions>,
}

impl App {
    /// The era-neutral core.
    pub fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// A handle to change what this server serves while it runs (see [`ServerHandle`]).
    pub fn handle(&self) -> ServerHandle {
        self.core.server_handle()
    }

    /// The HTTP endpoint as an `axum::Router` serving `/mcp`.
    pub fn router(&self) -> axum::Router {
        crate::transport::http::router(
            self.core.clone(),
            &self.eras,
            #[cfg(feature = "legacy")]
            self.sessions.clone(),
            self.http.clone(),
            self.closing.clone(),
        )
    }

    /// Serve as `mode` says (from [`args::parse`](crate::transport::args::parse)): stdio,
    /// HTTP at an address, or print the help text.
    pub async fn serve(&self, mode: crate::transport::args::Mode) -> Result<(), Error> {
        match mode {
            crate::transport::args::Mode::Stdio => self.serve_stdio().await,
            crate::transport::args::Mode::Http(addr) => self.serve_http(addr).await,
            crate::transport::args::Mode::Help(text) => {
                eprintln!("{text}");
                Ok(())
            }
        }
    }

    /// Serve over this process's stdin and stdout until EOF.
    ///
    /// The caller is the one set with [`Server::stdio_principal`], else the one the host
    /// names in the environment: `MCP_ACCESS_TOKEN` checked by the verifier given to
    /// [`Server::oauth`] (an invalid token stops the server), or `MCP_PRINCIPAL`,
    /// `MCP_SCOPES` and `MCP_TENANT` ([`Principal::from_env`]).
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        let mut app = self.clone();
        if app.stdio.principal.is_none() {
            app.stdio.principal = self.principal_from_env().await?;
        }
        // Pipes (as a host spawns servers) are read and written without a blocking thread
        // per operation; a terminal or a file falls back to tokio's blocking stdio.
        self.start_metrics().await?;
        // SIGTERM or Ctrl-C ends the input as EOF does; the grace period follows.
        let core = self.core.clone();
        let signal = async move {
            crate::transport::args::shutdown_signal().await;
            core.lifecycle.begin_draining();
        };
        #[cfg(unix)]
        let served = match crate::transport::stdio::pipes() {
            Some((input, output)) => app.serve_stream(input, output, signal).await,
            None => {
                app.serve_stream(tokio::io::stdin(), tokio::io::stdout(), signal)
                    .await
            }
        };
        #[cfg(not(unix))]
        let served = app
            .serve_stream(tokio::io::stdin(), tokio::io::stdout(), signal)
            .await;
        // The calls of the connection have answered or been stopped; tasks running in
        // the background get the grace period too.
        if let Some(runtime) = &self.core.tasks {
            runtime.shutdown(self.core.lifecycle.grace).await;
        }
        served
    }

    async fn principal_from_env(&self) -> Result<Option<Principal>, Error> {
        let token = std::env::var(crate::policy::principal::TOKEN_ENV)
            .ok()
            .filter(|t| !t.trim().is_empty());
        match (token, &self.http.auth) {
            (Some(token), Some(auth)) => auth.verify(token.trim()).await.map(Some).map_err(|e| {
                Error::Build(vec![BuildError::Config(format!(
                    "{}: the access token was refused: {e}",
                    crate::policy::principal::TOKEN_ENV
                ))])
            }),
            (Some(_), None) => Err(Error::Build(vec![BuildError::Config(format!(
                "{} is set, but the server has no token verifier to check it (Server::oauth)",
                crate::policy::principal::TOKEN_ENV
            ))])),
            (None, _) => Ok(Principal::from_env()),
        }
    }

    /// Serve newline-delimited JSON-RPC over any byte stream pair (the stdio framing).
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_stream(reader, writer, std::future::pending())
            .await
    }

    /// Serve one byte stream pair until EOF or `shutdown`, then drain.
    async fn serve_stream<R, W>(
        &self,
        reader: R,
        writer: W,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        crate::transport::stdio::serve(
            self.core.clone(),
            self.eras.clone(),
            &self.stdio,
            (reader, writer),
            shutdown,
        )
        .await
        .map_err(Error::Io)
    }

    /// Serve Streamable HTTP at `http://addr/mcp` until Ctrl-C or SIGTERM.
    ///
    /// Refuses to start on an address other than loopback without a token verifier
    /// ([`Server::oauth`]), unless [`Server::allow_unauthenticated_remote`] says a gateway
    /// in front authenticates callers.
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<(), Error> {
        if !addr.ip().is_loopback()
            && self.http.auth.is_none()
            && !self.http.allow_unauthenticated_remote
        {
            return Err(Error::Build(vec![BuildError::Config(format!(
                "refusing to serve {addr} without authentication: anyone who can reach it could call every tool. Configure a token verifier with Server::oauth(..), bind to 127.0.0.1, or call Server::allow_unauthenticated_remote() when a gateway in front authenticates callers"
            ))]));
        }
        let loopback_names = HttpConfig::default().allowed_hosts;
        if !addr.ip().is_loopback()
            && self
                .http
                .allowed_hosts
                .iter()
                .all(|h| loopback_names.contains(h))
        {
            tracing::warn!("serving on {addr}, but only loopback host names are allowed in Host and Origin: set Server::allowed_hosts to the names clients use");
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(Error::Io)?;
        let local = listener.local_addr().map_err(Error::Io)?;
        self.start_metrics().await?;
        tracing::info!("serving MCP over Streamable HTTP at http://{local}/mcp");
        let lifecycle = self.core.lifecycle.clone();
        let signal = tokio::spawn(async move {
            crate::transport::args::shutdown_signal().await;
            lifecycle.begin_draining();
        });
        // Once shutdown starts (a signal, or App::shutdown), the drain runs beside the
        // server: calls get the grace period and are then stopped, so the connections
        // the listener waits for do end.
        let draining = self.core.lifecycle.draining().clone();
        let app = self.clone();
        let drain = tokio::spawn(async move {
            app.core.lifecycle.draining().cancelled().await;
            app.drain().await;
        });
        // Requests and answers are small and strictly alternate on a connection; Nagle's
        // algorithm would only hold an answer back waiting for an acknowledgement.
        let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
            if let Err(error) = stream.set_nodelay(true) {
                tracing::debug!(%error, "could not set TCP_NODELAY");
            }
        });
        let served = axum::serve(listener, self.router())
            .with_graceful_shutdown(draining.clone().cancelled_owned())
            .await
            .map_err(Error::Io);
        signal.abort();
        if draining.is_cancelled() {
            // Tasks may still be storing their outcomes.
            let _ = drain.await;
            tracing::info!("shut down");
        } else {
            drain.abort();
        }
        served
    }

    /// Shut down gracefully, as SIGTERM does: readiness (`/readyz`) turns false, HTTP
    /// stops accepting connections, subscriptions and handshake-era sessions end, and
    /// calls and tasks already running get the grace period ([`Server::shutdown_grace`]).
    /// Calls still running then are stopped and answer with -31503; tasks still running
    /// fail with the same reason. Returns when all of that is done.
    pub async fn shutdown(&self) {
        self.core.lifecycle.begin_draining();
        self.drain().await;
    }

    /// The request metrics in the OpenMetrics text format (what Prometheus scrapes), or
    /// `None` when they are off ([`Server::metrics_endpoint`]).
    pub fn metrics(&self) -> Option<String> {
        self.core
            .metrics
            .as_ref()
            .map(|metrics| metrics.render(self.core.lifecycle.running()))
    }

    /// Bind the metrics listener, if one is configured, and serve it in the background
    /// until shutdown begins.
    async fn start_metrics(&self) -> Result<(), Error> {
        let Some(addr) = self.metrics_addr else {
            return Ok(());
        };
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            Error::Io(std::io::Error::new(
                e.kind(),
                format!("the metrics endpoint cannot listen on {addr} ({METRICS_ENV}): {e}"),
            ))
        })?;
        let local = listener.local_addr().map_err(Error::Io)?;
        tracing::info!("serving metrics at http://{local}/metrics");
        let app = self.clone();
        let scrape = move || {
            let app = app.clone();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "application/openmetrics-text; version=1.0.0; charset=utf-8",
                    )],
                    app.metrics().unwrap_or_default(),
                )
            }
        };
        let router = axum::Router::new().route("/metrics", axum::routing::get(scrape));
        let draining = self.core.lifecycle.draining().clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(draining.cancelled_owned())
                .await;
            if let Err(e) = served {
                tracing::error!("the metrics listener failed: {e}");
            }
        });
        Ok(())
    }

    /// Whether this server takes new work: true until shutdown starts.
    pub fn is_ready(&self) -> bool {
        self.core.lifecycle.is_ready()
    }

    async fn drain(&self) {
        // Long-lived streams would hold the shutdown open: end them.
        self.close_subscriptions();
        let lifecycle = &self.core.lifecycle;
        let grace = lifecycle.grace;
        let calls = async {
            if !lifecycle.wait_idle(grace).await {
                tracing::warn!(
                    running = lifecycle.running(),
                    "calls still running {} s after shutdown began; stopping them",
                    grace.as_secs_f64()
                );
                lifecycle.stop();
                lifecycle.wait_idle(std::time::Duration::from_secs(1)).await;
            }
        };
        let tasks = async {
            if let Some(runtime) = &self.core.tasks {
                runtime.shutdown(grace).await;
            }
        };
        tokio::join!(calls, tasks);
    }

    /// End every open `subscriptions/listen` stream on HTTP with its closing result, and
    /// every handshake-era session with its streams (for a graceful shutdown of a router
    /// nested in your own server; `serve_http` does it on Ctrl-C and SIGTERM).
    pub fn close_subscriptions(&self) {
        self.closing.cancel();
        #[cfg(feature = "legacy")]
        self.sessions.end_all();
    }
}
