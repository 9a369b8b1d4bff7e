//! What the framework remembers between requests: tasks, confirmations already used and
//! idempotency records, behind one small trait, [`Store`].
//!
//! A deployment names one store ([`Server::store`](crate::Server::store), or the
//! `MCP_STORE` environment variable) and everything the framework keeps lives there:
//!
//! | store | for |
//! | --- | --- |
//! | [`MemoryStore`] (the default) | one process; forgotten when it exits |
//! | [`SqliteStore`] (feature `sqlite`) | one machine; survives a restart |
//! | [`PostgresStore`] (feature `postgres`) | several instances behind a load balancer |
//!
//! A store keeps opaque records under string keys and changes them only by
//! compare-and-swap on a version number, so instances sharing it never lose each other's
//! updates. Every record expires; expired records are invisible at once and deleted in
//! bounded sweeps.
//!
//! What a task's record holds is kept here too (`task_record`): the core's task runtime
//! writes it, and every instance sharing the store reads it.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::clock::now_ms;

mod memory;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;
mod task_record;

pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub(crate) use task_record::{TaskRecord, TaskStatus};

/// The environment variable naming the store: a `postgres://` URL (feature `postgres`) or
/// the path of a SQLite file (feature `sqlite`).
pub const STORE_ENV: &str = "MCP_STORE";

/// One stored record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its key, unique in the store. The framework's keys start with their kind (`task:`,
    /// `used:`, `idem:`).
    pub key: String,
    /// 1 when inserted, one more after each replacement.
    pub version: u64,
    /// When it expires, milliseconds since the Unix epoch (`u64::MAX`: never). From then on
    /// every operation treats it as absent.
    pub expires_at_ms: u64,
    /// The content: JSON text the framework wrote and reads back.
    pub body: String,
}

/// A storage failure (the database is unreachable, a statement failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// Durable storage of the framework's records. Implemented by [`MemoryStore`],
/// [`SqliteStore`] and [`PostgresStore`]; implement it for another database the same way
/// and check it with `mcp_runtime::testing::check_store` (feature `testing`).
///
/// Each operation is atomic on its own: two instances inserting the same key at once
/// see exactly one `true`, and of two replacements of the same version exactly one lands.
/// An operation returns only once its change is durable, so any instance sharing the store
/// sees it on its next call.
pub trait Store: Send + Sync + 'static {
    /// Store `record` unless a record under its key has not expired at `now_ms`: `true`
    /// when stored (an expired record under the key is replaced), `false` when the key is
    /// taken.
    fn insert(
        &self,
        record: &Record,
        now_ms: u64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// The record under `key`, unless there is none or it has expired at `now_ms`.
    fn load(
        &self,
        key: &str,
        now_ms: u64,
    ) -> impl Future<Output = Result<Option<Record>, StoreError>> + Send;

    /// Replace the record under `record.key` whose stored version is `record.version - 1`
    /// with `record`: `false` when the stored version differs (someone else changed it
    /// first) or the record is gone.
    fn replace(&self, record: &Record) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Delete the record under `key` if its stored version is `version`: `false` when it
    /// differs or the record is gone.
    fn remove(
        &self,
        key: &str,
        version: u64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Delete at most `limit` records that expired before `now_ms`; how many went.
    fn delete_expired(
        &self,
        now_ms: u64,
        limit: u64,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

/// Object-safe form of [`Store`], as the server holds it.
pub(crate) trait DynStore: Send + Sync {
    fn insert<'a>(
        &'a self,
        record: &'a Record,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    fn load<'a>(
        &'a self,
        key: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<Record>, StoreError>>;
    fn replace<'a>(&'a self, record: &'a Record) -> BoxFuture<'a, Result<bool, StoreError>>;
    fn remove<'a>(&'a self, key: &'a str, version: u64) -> BoxFuture<'a, Result<bool, StoreError>>;
    fn delete_expired(&self, now_ms: u64, limit: u64) -> BoxFuture<'_, Result<u64, StoreError>>;
}

impl<S: Store> DynStore for S {
    fn insert<'a>(
        &'a self,
        record: &'a Record,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(Store::insert(self, record, now_ms))
    }
    fn load<'a>(
        &'a self,
        key: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<Record>, StoreError>> {
        Box::pin(Store::load(self, key, now_ms))
    }
    fn replace<'a>(&'a self, record: &'a Record) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(Store::replace(self, record))
    }
    fn remove<'a>(&'a self, key: &'a str, version: u64) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(Store::remove(self, key, version))
    }
    fn delete_expired(&self, now_ms: u64, limit: u64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(Store::delete_expired(self, now_ms, limit))
    }
}

/// Most expired records one sweep deletes, so a sweep is one short statement however much
/// has piled up; the next sweep takes the rest.
const SWEEP_LIMIT: u64 = 1000;

/// How often a server sweeps expired records (on its next write after this long).
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// The server's store with typed access: records as JSON values of a type, changes as
/// compare-and-swap loops, and sweeps of expired records. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Records {
    store: Arc<dyn DynStore>,
    last_sweep: Arc<Mutex<Option<Instant>>>,
    /// The store is the memory this process chose for want of one named: nothing in it
    /// is seen by another process, or after a restart.
    in_process: bool,
}

/// A typed record as loaded, with the version a change must follow.
pub(crate) struct Loaded<T> {
    pub(crate) value: T,
    pub(crate) version: u64,
    pub(crate) expires_at_ms: u64,
}

fn encode<T: Serialize>(key: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError(format!("cannot encode {key}: {e}")))
}

fn decode<T: DeserializeOwned>(record: &Record) -> Result<T, StoreError> {
    serde_json::from_str(&record.body)
        .map_err(|e| StoreError(format!("the record {} does not decode: {e}", record.key)))
}

impl Records {
    pub(crate) fn new(store: Arc<dyn DynStore>) -> Records {
        Records {
            store,
            last_sweep: Arc::default(),
            in_process: false,
        }
    }

    /// The same records, marked as kept in this process's memory for want of a store
    /// named (so that what another process stored can be said to be elsewhere).
    pub(crate) fn in_process(mut self, in_process: bool) -> Records {
        self.in_process = in_process;
        self
    }

    /// Whether the records are kept in this process's memory for want of a store named.
    pub(crate) fn is_in_process(&self) -> bool {
        self.in_process
    }

    /// Store `value` under `key` unless a live record holds the key: `true` when stored.
    pub(crate) async fn insert<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        expires_at_ms: u64,
    ) -> Result<bool, StoreError> {
        let record = Record {
            key: key.to_owned(),
            version: 1,
            expires_at_ms,
            body: encode(key, value)?,
        };
        let stored = self.store.insert(&record, now_ms()).await?;
        self.sweep();
        Ok(stored)
    }

    /// The live record under `key`.
    pub(crate) async fn load<T: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<Loaded<T>>, StoreError> {
        match self.store.load(key, now_ms()).await? {
            Some(record) => Ok(Some(Loaded {
                value: decode(&record)?,
                version: record.version,
                expires_at_ms: record.expires_at_ms,
            })),
            None => Ok(None),
        }
    }

    /// Replace the record under `key` loaded at `version` with `value`: `false` when it
    /// changed or went in between.
    pub(crate) async fn replace<T: Serialize>(
        &self,
        key: &str,
        version: u64,
        value: &T,
        expires_at_ms: u64,
    ) -> Result<bool, StoreError> {
        let record = Record {
            key: key.to_owned(),
            version: version.saturating_add(1),
            expires_at_ms,
            body: encode(key, value)?,
        };
        self.store.replace(&record).await
    }

    /// Delete the record under `key` loaded at `version`.
    pub(crate) async fn remove(&self, key: &str, version: u64) -> Result<bool, StoreError> {
        self.store.remove(key, version).await
    }

    /// Load, change and store the record under `key` until the change lands. `change`
    /// returns whether it changed anything (and may move the expiry); the record as stored
    /// (or as found, when unchanged) comes back, `None` when there is none.
    pub(crate) async fn modify<T: Serialize + DeserializeOwned>(
        &self,
        key: &str,
        mut change: impl FnMut(&mut T, &mut u64) -> bool,
    ) -> Result<Option<T>, StoreError> {
        for _ in 0..32 {
            let Some(mut loaded) = self.load::<T>(key).await? else {
                return Ok(None);
            };
            if !change(&mut loaded.value, &mut loaded.expires_at_ms) {
                return Ok(Some(loaded.value));
            }
            if self
                .replace(key, loaded.version, &loaded.value, loaded.expires_at_ms)
                .await?
            {
                return Ok(Some(loaded.value));
            }
        }
        Err(StoreError(format!("{key} kept changing under this update")))
    }

    /// Delete expired records in the background, at most once a minute and at most
    /// [`SWEEP_LIMIT`] at a time.
    fn sweep(&self) {
        {
            let mut last = self.last_sweep.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|at| at.elapsed() < SWEEP_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let store = self.store.clone();
        runtime.spawn(async move {
            match store.delete_expired(now_ms(), SWEEP_LIMIT).await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(deleted = n, "expired records deleted"),
                Err(e) => tracing::warn!("could not delete expired records: {e}"),
            }
        });
    }
}

/// The table every SQL store keeps records in: the key (`id`), the version compared on replace,
/// the expiry (indexed, for sweeps) and the body.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS mcp_records (
    id TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_records_expires ON mcp_records (expires_at);";

/// Insert, or take over an expired record under the key; one statement, so it is atomic
/// in both databases. A live record makes it change no row.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const INSERT: &str = "INSERT INTO mcp_records (id, version, expires_at, body) VALUES ($1, $2, $3, $4)
    ON CONFLICT (id) DO UPDATE SET version = excluded.version, expires_at = excluded.expires_at, body = excluded.body
    WHERE mcp_records.expires_at <= $5";

#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const LOAD: &str =
    "SELECT version, expires_at, body FROM mcp_records WHERE id = $1 AND expires_at > $2";

#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const REPLACE: &str = "UPDATE mcp_records SET version = $2, expires_at = $3, body = $4 WHERE id = $1 AND version = $5";

#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const REMOVE: &str = "DELETE FROM mcp_records WHERE id = $1 AND version = $2";

#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const DELETE_EXPIRED: &str = "DELETE FROM mcp_records WHERE id IN (SELECT id FROM mcp_records WHERE expires_at <= $1 LIMIT $2)";

/// A whole number as both databases store integers (`BIGINT`), saturating: `u64::MAX`
/// (never) and everything past `i64::MAX` milliseconds (292 million years) are stored as
/// `i64::MAX`.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A stored integer read back: `i64::MAX` is `u64::MAX` (never) again; never negative as
/// the framework writes them.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn as_u64(n: i64) -> u64 {
    if n == i64::MAX {
        return u64::MAX;
    }
    u64::try_from(n).unwrap_or(0)
}
