//! [`SqliteStore`]: tasks in an embedded SQLite database (feature `sqlite`, on by default).
//! With a file, tasks survive a restart of the server; `in_memory()` keeps them for the
//! life of the process.

use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};

use super::store::{decode, encode, StoreError, TaskRecord, TaskStore, SCHEMA};

/// Task storage in SQLite. Cheap to clone (one connection, shared).
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

/// Expiry as SQLite stores integers.
fn expires(task: &TaskRecord) -> i64 {
    i64::try_from(task.expires_at_ms()).unwrap_or(i64::MAX)
}

fn version(task: &TaskRecord) -> i64 {
    i64::try_from(task.version).unwrap_or(i64::MAX)
}

impl SqliteStore {
    /// The database at `path`, created if needed (write-ahead logging, so readers do not
    /// wait for writers).
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<SqliteStore, StoreError> {
        let connection = Connection::open(path).map_err(failed)?;
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(failed)?;
        connection
            .pragma_update(None, "synchronous", "FULL")
            .map_err(failed)?;
        Self::with(connection)
    }

    /// A database in memory, gone when the process ends.
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        Self::with(Connection::open_in_memory().map_err(failed)?)
    }

    fn with(connection: Connection) -> Result<SqliteStore, StoreError> {
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(failed)?;
        connection.execute_batch(SCHEMA).map_err(failed)?;
        Ok(SqliteStore {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// Run `f` on the connection off the async threads.
    async fn with_connection<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || {
            let connection = connection.lock().unwrap_or_else(|p| p.into_inner());
            f(&connection)
        })
        .await
        .map_err(failed)?
    }
}

impl TaskStore for SqliteStore {
    async fn insert(&self, task: &TaskRecord) -> Result<(), StoreError> {
        let (id, version, expires, body) =
            (task.id.clone(), version(task), expires(task), encode(task)?);
        self.with_connection(move |c| {
            c.execute(
                "INSERT INTO mcp_tasks (id, version, expires_at, body) VALUES (?1, ?2, ?3, ?4)",
                params![id, version, expires, body],
            )
            .map(|_| ())
            .map_err(failed)
        })
        .await
    }

    async fn load(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
        let id = id.to_owned();
        let body: Option<String> = self
            .with_connection(move |c| {
                c.query_row(
                    "SELECT body FROM mcp_tasks WHERE id = ?1",
                    params![id],
                    |row| row.get(0),
                )
                .optional()
                .map_err(failed)
            })
            .await?;
        body.as_deref().map(decode).transpose()
    }

    async fn replace(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        let (id, version, expires, body) =
            (task.id.clone(), version(task), expires(task), encode(task)?);
        self.with_connection(move |c| {
            c.execute(
                "UPDATE mcp_tasks SET version = ?2, expires_at = ?3, body = ?4 WHERE id = ?1 AND version = ?2 - 1",
                params![id, version, expires, body],
            )
            .map(|rows| rows == 1)
            .map_err(failed)
        })
        .await
    }

    async fn delete_expired(&self, now_ms: u64) -> Result<u64, StoreError> {
        let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
        self.with_connection(move |c| {
            c.execute("DELETE FROM mcp_tasks WHERE expires_at < ?1", params![now])
                .map(|rows| rows as u64)
                .map_err(failed)
        })
        .await
    }
}
