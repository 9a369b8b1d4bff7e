//! The store the environment names (`MCP_STORE`) when the code gives none: a PostgreSQL
//! URL, else a SQLite file, else memory; a store whose cargo feature is off is a build
//! error that names the feature.

use std::sync::Arc;

use super::config;
use crate::Error;

/// The store the environment names (`MCP_STORE`), else one in memory.
pub(super) fn from_env() -> Result<Arc<dyn crate::store::DynStore>, Error> {
    if std::env::var_os("MCP_TASK_STORE").is_some() {
        return Err(config(format!(
            "MCP_TASK_STORE is set, but the store now keeps more than tasks and is named by {}: rename the variable",
            crate::store::STORE_ENV
        )));
    }
    store_named(
        std::env::var(crate::store::STORE_ENV).ok(),
        StoreFeatures::BUILT,
    )
}

/// Whether the environment names no store (so the store is this process's memory).
pub(super) fn named_none() -> bool {
    std::env::var(crate::store::STORE_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .is_none()
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
    config(format!(
        "{} names PostgreSQL, but mcp-runtime was built without its `postgres` feature",
        crate::store::STORE_ENV
    ))
}

fn without_sqlite(path: &str) -> Error {
    config(format!(
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
        .map_err(|e| config(format!("{} {path:?}: {e}", crate::store::STORE_ENV)))
}

/// Only reached with a [`StoreFeatures`] that does not match the build.
#[cfg(not(feature = "sqlite"))]
fn open_sqlite(path: String) -> Result<Arc<dyn crate::store::DynStore>, Error> {
    Err(without_sqlite(&path))
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
