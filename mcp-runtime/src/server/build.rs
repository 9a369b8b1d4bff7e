//! Building the [`App`] from the builder's settings, part by part: the seal key, the HTTP
//! settings with the token check, the settings the environment gives when the code does
//! not, what is served (`select`), the store (`store` when the environment names it), the
//! runtimes of tasks, idempotency keys and artifacts, and the core; and the builder's
//! shortcuts that build and serve at once.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::core::artifacts::Artifacts;
use crate::core::idempotency::Idempotency;
use crate::core::input::Rounds;
use crate::core::live::{Live, Shaping};
use crate::core::response_cache::Cache as ResponseCache;
use crate::core::tasks::TaskRuntime;
use crate::core::Core;
use crate::policy::limits::Limiter;
use crate::policy::oauth::HttpAuth;
use crate::policy::seal::{SealKey, Sealer, SEAL_KEY_ENV};
use crate::protocol::version;
use crate::registry::BuildError;
use crate::store::Records;
use crate::transport::http::HttpConfig;
use crate::Error;

use super::{config, select, store, App, Server, METRICS_ENV, PAGE_SIZE_ENV};

impl Server {
    /// Check everything (duplicate names, schemas, state) and build the served app.
    pub fn build(self) -> Result<App, Error> {
        let seal_key = seal_key(self.seal_key)?;
        let http = with_auth(self.http, self.oauth)?;
        let shutdown_grace = match self.shutdown_grace {
            Some(grace) => grace,
            None => crate::core::lifecycle::grace_from_env().map_err(config)?,
        };
        let metrics_addr = metrics_addr(self.metrics_addr)?;
        let sealer = Sealer::new(&seal_key);
        let defs = select::defs(self.only, &self.modules, self.added, self.disabled_tags)?;
        let records = match self.store {
            Some(store) => Records::new(store),
            None => Records::new(store::from_env()?).in_process(store::named_none()),
        };
        let work = Work::new(&records, &self.tasks, self.idempotency, self.artifacts)?;
        let mut states = self.states;
        // Handlers reach the artifacts through their context, as server-provided state.
        states.insert(work.artifacts.clone());
        #[cfg(feature = "oauth")]
        states.insert(downstreams(self.exchange, self.accounts, &records)?);
        let states = Arc::new(states);
        let page_size = page_size(self.page_size)?;
        let mut live = Live::new(
            defs,
            Shaping {
                page_size,
                output_schema_bytes: self.output_schema_bytes,
            },
            sealer.clone(),
            states.clone(),
            self.search.is_some(),
        )
        .map_err(Error::Build)?;
        let mut response_cache = None;
        if let Some(config) = self.response_cache {
            let cache = ResponseCache::new(config, records.clone());
            live = live.invalidating(cache.invalidator());
            response_cache = Some(Arc::new(cache));
        }
        let info_json = serde_json::value::to_raw_value(&self.info)
            .map(Arc::from)
            .map_err(|e| {
                config(format!(
                    "the server's name and version do not serialize: {e}"
                ))
            })?;
        let core = Core {
            live: Arc::new(live),
            rounds: Rounds::new(sealer, self.request_state_ttl, records),
            idempotency: work.idempotency,
            artifacts: work.artifacts,
            cursor_ttl: self.cursor_ttl,
            authorize: self.authorize,
            visible: self.visible,
            hide_unauthorized: self.hide_unauthorized,
            search: self.search,
            limiter: Limiter::new(self.limits),
            layers: self.layers,
            response_cache,
            audit: self.audit,
            tasks: Some(work.tasks),
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
            span_level: span_level(self.request_span_level),
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
        let mode = crate::process::parse_args(std::env::args().skip(1))?;
        crate::process::init_logging();
        self.build()?.serve(mode).await
    }
}

/// The token exchange and connected accounts handlers reach through their context.
#[cfg(feature = "oauth")]
fn downstreams(
    exchange: Option<crate::downstream::TokenExchange>,
    accounts: Option<crate::downstream::Accounts>,
    records: &Records,
) -> Result<crate::core::downstream::Downstreams, Error> {
    let exchange = match exchange {
        Some(exchange) => Some(
            exchange
                .start()
                .map_err(|e| config(format!("Server::exchange_tokens: {e}")))?,
        ),
        None => None,
    };
    let accounts = match accounts {
        Some(accounts) => Some(Arc::new(accounts.start(records.clone()).map_err(
            |problems| Error::Build(problems.into_iter().map(BuildError::Config).collect()),
        )?)),
        None => None,
    };
    Ok(crate::core::downstream::Downstreams { exchange, accounts })
}

/// The key given, else the one `MCP_SEAL_KEY` holds, else a random key.
fn seal_key(given: Option<SealKey>) -> Result<SealKey, Error> {
    match given {
        Some(key) => Ok(key),
        None => match std::env::var(SEAL_KEY_ENV) {
            Ok(text) => SealKey::parse(&text).map_err(|e| config(format!("{SEAL_KEY_ENV}: {e}"))),
            Err(_) => SealKey::random().map_err(config),
        },
    }
}

/// The HTTP settings with the token check `auth`, if any: a protected resource's
/// metadata is checked, and its host is allowed in `Host` and `Origin`.
fn with_auth(mut http: HttpConfig, auth: Option<HttpAuth>) -> Result<HttpConfig, Error> {
    let Some(auth) = auth else {
        return Ok(http);
    };
    // The metadata is checked only where there is some: API keys have none.
    if let Some(resource) = auth.resource() {
        let problems = resource.problems();
        if !problems.is_empty() {
            return Err(Error::Build(
                problems.into_iter().map(BuildError::Config).collect(),
            ));
        }
        let host = resource.host();
        if !http
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&host))
        {
            http.allowed_hosts.push(host);
        }
    }
    http.auth = Some(auth);
    Ok(http)
}

/// The address given, else the one `MCP_METRICS_ADDR` names, else none (no endpoint).
fn metrics_addr(given: Option<SocketAddr>) -> Result<Option<SocketAddr>, Error> {
    if given.is_some() {
        return Ok(given);
    }
    match std::env::var(METRICS_ENV) {
        Ok(text) => text.trim().parse::<SocketAddr>().map(Some).map_err(|_| {
            config(format!(
                "{METRICS_ENV} must be an address such as 127.0.0.1:9464, not {text:?}"
            ))
        }),
        Err(_) => Ok(None),
    }
}

/// The size given, else the one `MCP_PAGE_SIZE` names, else 100.
fn page_size(given: Option<usize>) -> Result<usize, Error> {
    if let Some(size) = given {
        return Ok(size);
    }
    match std::env::var(PAGE_SIZE_ENV) {
        Ok(text) => text
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| {
                config(format!(
                    "{PAGE_SIZE_ENV} must be a positive whole number, not {text:?}"
                ))
            }),
        Err(_) => Ok(100),
    }
}

/// The level given, else `INFO` when `MCP_LOG_REQUESTS` asks for a line per request,
/// else `DEBUG`.
fn span_level(given: Option<tracing::Level>) -> tracing::Level {
    given.unwrap_or(if crate::process::flag(crate::process::LOG_REQUESTS_ENV) {
        tracing::Level::INFO
    } else {
        tracing::Level::DEBUG
    })
}

/// The runtimes of the work the server remembers in its store: tasks, calls under
/// idempotency keys and artifacts, all claimed in the name of this instance.
struct Work {
    tasks: Arc<TaskRuntime>,
    idempotency: Idempotency,
    artifacts: Artifacts,
}

impl Work {
    fn new(
        records: &Records,
        tasks: &crate::core::tasks::TaskConfig,
        idempotency: crate::core::idempotency::IdempotencyConfig,
        artifacts: crate::core::artifacts::ArtifactConfig,
    ) -> Result<Work, Error> {
        let instance = crate::policy::seal::random_token(12).map_err(config)?;
        Ok(Work {
            // Always there: a task tool may be added while the server runs.
            tasks: Arc::new(TaskRuntime::new(
                records.clone(),
                tasks.clone(),
                instance.clone(),
            )),
            idempotency: Idempotency::new(records.clone(), idempotency, tasks.lease, instance),
            artifacts: Artifacts::new(records.clone(), artifacts),
        })
    }
}
