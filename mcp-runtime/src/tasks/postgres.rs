//! [`PostgresStore`]: tasks in PostgreSQL (feature `postgres`), for several server
//! instances behind a load balancer: any of them answers `tasks/get` for a task another
//! runs, and a task whose instance died is failed when its lease expires.

use std::sync::Arc;

use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};

use super::store::{decode, encode, StoreError, TaskRecord, TaskStore, SCHEMA};

/// Task storage in PostgreSQL. The connection is opened on first use and again after it
/// breaks; the table `mcp_tasks` is created if missing.
pub struct PostgresStore {
    url: String,
    client: Mutex<Option<Arc<Client>>>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password.
        f.debug_struct("PostgresStore").finish_non_exhaustive()
    }
}

fn failed(e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("postgres: {e}"))
}

fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl PostgresStore {
    /// The database at `url` (`postgres://user:password@host:port/database`), reached
    /// without TLS: keep it on a private network or a local socket.
    pub fn new(url: impl Into<String>) -> PostgresStore {
        PostgresStore {
            url: url.into(),
            client: Mutex::new(None),
        }
    }

    /// A connected client, opening one when there is none or the last one broke.
    async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let mut slot = self.client.lock().await;
        if let Some(client) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(client.clone());
        }
        let (client, connection) = tokio_postgres::connect(&self.url, NoTls)
            .await
            .map_err(failed)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!("the task store's PostgreSQL connection ended: {e}");
            }
        });
        client.batch_execute(SCHEMA).await.map_err(failed)?;
        let client = Arc::new(client);
        *slot = Some(client.clone());
        Ok(client)
    }
}

impl TaskStore for PostgresStore {
    async fn insert(&self, task: &TaskRecord) -> Result<(), StoreError> {
        let body = encode(task)?;
        self.client()
            .await?
            .execute(
                "INSERT INTO mcp_tasks (id, version, expires_at, body) VALUES ($1, $2, $3, $4)",
                &[
                    &task.id,
                    &as_i64(task.version),
                    &as_i64(task.expires_at_ms()),
                    &body,
                ],
            )
            .await
            .map(|_| ())
            .map_err(failed)
    }

    async fn load(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
        let row = self
            .client()
            .await?
            .query_opt("SELECT body FROM mcp_tasks WHERE id = $1", &[&id])
            .await
            .map_err(failed)?;
        match row {
            Some(row) => {
                let body: String = row.try_get(0).map_err(failed)?;
                decode(&body).map(Some)
            }
            None => Ok(None),
        }
    }

    async fn replace(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        let body = encode(task)?;
        let version = as_i64(task.version);
        let previous = version.saturating_sub(1);
        let rows = self
            .client()
            .await?
            .execute(
                "UPDATE mcp_tasks SET version = $2, expires_at = $3, body = $4 WHERE id = $1 AND version = $5",
                &[
                    &task.id,
                    &version,
                    &as_i64(task.expires_at_ms()),
                    &body,
                    &previous,
                ],
            )
            .await
            .map_err(failed)?;
        Ok(rows == 1)
    }

    async fn delete_expired(&self, now_ms: u64) -> Result<u64, StoreError> {
        self.client()
            .await?
            .execute(
                "DELETE FROM mcp_tasks WHERE expires_at < $1",
                &[&as_i64(now_ms)],
            )
            .await
            .map_err(failed)
    }
}
