//! [`SqliteStore`]: records in an embedded SQLite database (feature `sqlite`, on by
//! default). With a file they survive a restart of the server, and processes of one
//! machine can share it; `in_memory()` keeps them for the life of the process.

use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};

use super::{as_i64, as_u64, Record, Store, StoreError};

/// Storage in SQLite. Cheap to clone (one connection, shared).
#[derive(Clone)]
pub struct SqliteStore {
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

fn failed(e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("sqlite: {e}"))
}

/// How long a statement waits for another process holding the file's lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether SQLite refused because another connection holds the file's lock.
fn busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The shared statements use PostgreSQL's `$n`; SQLite numbers parameters `?n` (its `$n`
/// would be a named parameter, numbered by first appearance instead).
fn sql(statement: &str) -> String {
    statement.replace('$', "?")
}

impl SqliteStore {
    /// The database at `path`, created if needed (write-ahead logging, so readers do not
    /// wait for writers; every commit synced, so a record written is a record kept).
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<SqliteStore, StoreError> {
        // Processes that share the file may open it at the same moment: switching it to
        // write-ahead logging and creating the table take its lock, and SQLite answers
        // "busy" at once in some of those steps rather than waiting. Try again for a while.
        let started = std::time::Instant::now();
        loop {
            match Self::try_open(path.as_ref()) {
                Err(e) if busy(&e) && started.elapsed() < BUSY_TIMEOUT => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => return Err(failed(e)),
                Ok(connection) => {
                    return Ok(SqliteStore {
                        connection: Arc::new(Mutex::new(connection)),
                    })
                }
            }
        }
    }

    fn try_open(path: &std::path::Path) -> rusqlite::Result<Connection> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.execute_batch(super::SCHEMA)?;
        Ok(connection)
    }

    /// A database in memory, gone when the process ends.
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        let connection = Connection::open_in_memory().map_err(failed)?;
        connection.execute_batch(super::SCHEMA).map_err(failed)?;
        Ok(SqliteStore {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// Run `f` on the connection off the async threads.
    async fn with_connection<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || {
            let connection = connection.lock().unwrap_or_else(|p| p.into_inner());
            f(&connection).map_err(failed)
        })
        .await
        .map_err(failed)?
    }

    /// `statement` (`INSERT` or `REPLACE`) with the record's columns and `condition` (the
    /// time now, before which the record it overwrites must have expired, or the version
    /// it replaces): whether it wrote the record.
    async fn write(
        &self,
        statement: &'static str,
        record: &Record,
        condition: u64,
    ) -> Result<bool, StoreError> {
        let record = record.clone();
        self.with_connection(move |c| {
            c.prepare_cached(&sql(statement))?
                .execute(params![
                    record.key,
                    as_i64(record.version),
                    as_i64(record.expires_at_ms),
                    record.body,
                    as_i64(condition)
                ])
                .map(|rows| rows == 1)
        })
        .await
    }
}

impl Store for SqliteStore {
    async fn insert(&self, record: &Record, now_ms: u64) -> Result<bool, StoreError> {
        self.write(super::INSERT, record, now_ms).await
    }

    async fn load(&self, key: &str, now_ms: u64) -> Result<Option<Record>, StoreError> {
        let key = key.to_owned();
        self.with_connection(move |c| {
            c.prepare_cached(&sql(super::LOAD))?
                .query_row(params![key, as_i64(now_ms)], |row| {
                    Ok(Record {
                        key: key.clone(),
                        version: as_u64(row.get(0)?),
                        expires_at_ms: as_u64(row.get(1)?),
                        body: row.get(2)?,
                    })
                })
                .optional()
        })
        .await
    }

    async fn replace(&self, record: &Record) -> Result<bool, StoreError> {
        self.write(super::REPLACE, record, record.version.saturating_sub(1))
            .await
    }

    async fn remove(&self, key: &str, version: u64) -> Result<bool, StoreError> {
        let key = key.to_owned();
        self.with_connection(move |c| {
            c.prepare_cached(&sql(super::REMOVE))?
                .execute(params![key, as_i64(version)])
                .map(|rows| rows == 1)
        })
        .await
    }

    async fn delete_expired(&self, now_ms: u64, limit: u64) -> Result<u64, StoreError> {
        self.with_connection(move |c| {
            c.prepare_cached(&sql(super::DELETE_EXPIRED))?
                .execute(params![as_i64(now_ms), as_i64(limit)])
                .map(|rows| rows as u64)
        })
        .await
    }
}
