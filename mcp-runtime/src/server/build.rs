//! Building the [`App`]: the seal key, the catalog (what is served, checked), the store,
//! the policies and the core, all from the builder's settings; and the builder's
//! shortcuts that build and serve at once.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::core::input::Rounds;
use crate::core::live::Live;
use crate::core::Core;
use crate::policy::limits::Limiter;
use crate::policy::seal::{SealKey, Sealer, SEAL_KEY_ENV};
use crate::protocol::version;
use crate::registry::{
    BuildError, Defs, PromptDef, PromptRegistration, ResourceDef, ResourceRegistration, ToolDef,
    ToolRegistration,
};
use crate::Error;

use super::{App, Server, METRICS_ENV, PAGE_SIZE_ENV};

impl Server {
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
        let mut defs = select(self.only, &self.modules);
        let mut unreadable = Vec::new();
        for dynamic in self.dynamic {
            match dynamic {
                Ok(tool) => defs.dynamic.push(tool),
                Err(error) => unreadable.push(error),
            }
        }
        for dynamic in self.dynamic_prompts {
            match dynamic {
                Ok(prompt) => defs.dynamic_prompts.push(prompt),
                Err(error) => unreadable.push(error),
            }
        }
        for dynamic in self.dynamic_resources {
            match dynamic {
                Ok(resource) => defs.dynamic_resources.push(resource),
                Err(error) => unreadable.push(error),
            }
        }
        if !unreadable.is_empty() {
            return Err(Error::Build(unreadable));
        }
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
                if crate::process::flag(crate::process::LOG_REQUESTS_ENV) {
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
        let mode = crate::process::parse_args(std::env::args().skip(1))?;
        crate::process::init_logging();
        self.build()?.serve(mode).await
    }
}

/// The store the environment names (`MCP_STORE`), else one in memory.
fn store_from_env() -> Result<Arc<dyn crate::store::DynStore>, Error> {
    if std::env::var_os("MCP_TASK_STORE").is_some() {
        return Err(store_config(format!(
            "MCP_TASK_STORE is set, but the store now keeps more than tasks and is named by {}: rename the variable",
            crate::store::STORE_ENV
        )));
    }
    store_named(
        std::env::var(crate::store::STORE_ENV).ok(),
        StoreFeatures::BUILT,
    )
}

fn store_config(message: String) -> Error {
    Error::Build(vec![BuildError::Config(message)])
}

/// The optional stores this build has, as their cargo features say. A value rather than
/// `#[cfg]` on the branches of [`store_named`], so that the refusal of a store whose
/// feature is off is tested in every build, not only in one without the feature.
#[derive(Clone, Copy)]
struct StoreFeatures {
    sqlite: bool,
    postgres: bool,
}

impl StoreFeatures {
    const BUILT: StoreFeatures = StoreFeatures {
        sqlite: cfg!(feature = "sqlite"),
        postgres: cfg!(feature = "postgres"),
    };
}

/// The store a value of `MCP_STORE` names: a PostgreSQL URL, else a SQLite file; none (or
/// blank), memory. A store whose cargo feature is off is a build error naming the feature.
fn store_named(
    named: Option<String>,
    features: StoreFeatures,
) -> Result<Arc<dyn crate::store::DynStore>, Error> {
    let named = named.filter(|s| !s.trim().is_empty());
    match named {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            if features.postgres {
                open_postgres(url)
            } else {
                Err(without_postgres())
            }
        }
        Some(path) => {
            if features.sqlite {
                open_sqlite(path)
            } else {
                Err(without_sqlite(&path))
            }
        }
        None => Ok(Arc::new(crate::store::MemoryStore::new())),
    }
}

/// The URL stays out of the message: it may hold a password.
fn without_postgres() -> Error {
    store_config(format!(
        "{} names PostgreSQL, but mcp-runtime was built without its `postgres` feature",
        crate::store::STORE_ENV
    ))
}

fn without_sqlite(path: &str) -> Error {
    store_config(format!(
        "{} names the SQLite file {path:?}, but mcp-runtime was built without its `sqlite` feature",
        crate::store::STORE_ENV
    ))
}

#[cfg(feature = "postgres")]
fn open_postgres(url: String) -> Result<Arc<dyn crate::store::DynStore>, Error> {
    Ok(Arc::new(crate::store::PostgresStore::new(url)))
}

/// Only reached with a [`StoreFeatures`] that does not match the build.
#[cfg(not(feature = "postgres"))]
fn open_postgres(_url: String) -> Result<Arc<dyn crate::store::DynStore>, Error> {
    Err(without_postgres())
}

#[cfg(feature = "sqlite")]
fn open_sqlite(path: String) -> Result<Arc<dyn crate::store::DynStore>, Error> {
    crate::store::SqliteStore::open(&path)
        .map(|s| Arc::new(s) as Arc<dyn crate::store::DynStore>)
        .map_err(|e| store_config(format!("{} {path:?}: {e}", crate::store::STORE_ENV)))
}

/// Only reached with a [`StoreFeatures`] that does not match the build.
#[cfg(not(feature = "sqlite"))]
fn open_sqlite(path: String) -> Result<Arc<dyn crate::store::DynStore>, Error> {
    Err(without_sqlite(&path))
}

/// Items named explicitly with `Server::only*`.
#[derive(Default)]
pub(super) struct Selection {
    pub(super) tools: Vec<&'static ToolDef>,
    pub(super) resources: Vec<&'static ResourceDef>,
    pub(super) prompts: Vec<&'static PromptDef>,
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
        dynamic: Vec::new(),
        dynamic_prompts: Vec::new(),
        dynamic_resources: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A build with neither optional store, whatever this one has.
    const NEITHER: StoreFeatures = StoreFeatures {
        sqlite: false,
        postgres: false,
    };

    fn refusal(named: &str, features: StoreFeatures) -> String {
        match store_named(Some(named.to_owned()), features) {
            Err(error) => error.to_string(),
            Ok(_) => panic!("{named:?} opened a store"),
        }
    }

    #[test]
    fn no_store_named_is_memory() {
        assert!(store_named(None, NEITHER).is_ok());
        assert!(store_named(Some("  ".to_owned()), NEITHER).is_ok());
    }

    /// The book's store table: a store whose feature is off stops the build and names the
    /// feature.
    #[test]
    fn a_sqlite_file_without_the_feature_names_it() {
        let message = refusal("state.db", NEITHER);
        assert!(
            message.contains("MCP_STORE names the SQLite file \"state.db\""),
            "{message}"
        );
        assert!(
            message.contains("without its `sqlite` feature"),
            "{message}"
        );
    }

    #[test]
    fn a_postgres_url_without_the_feature_names_it() {
        for url in ["postgres://db.internal/mcp", "postgresql://db.internal/mcp"] {
            let message = refusal(url, NEITHER);
            assert!(
                message.contains("MCP_STORE names PostgreSQL")
                    && message.contains("without its `postgres` feature"),
                "{message}"
            );
            assert!(
                !message.contains("db.internal"),
                "the URL (and any password in it) stays out: {message}"
            );
        }
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn a_sqlite_file_that_cannot_open_says_which() {
        let message = refusal("/nonexistent-directory/state.db", StoreFeatures::BUILT);
        assert!(
            message.contains("MCP_STORE \"/nonexistent-directory/state.db\""),
            "{message}"
        );
    }
}
