//! [`PostgresStore`]: records in PostgreSQL (feature `postgres`), for several server
//! instances behind a load balancer: any of them answers for a task another runs, refuses
//! a confirmation another already used, and returns the outcome another recorded under an
//! idempotency key.

use std::sync::Arc;

use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};

use super::{as_i64, as_u64, Record, Store, StoreError};

/// Storage in PostgreSQL. The connection is opened on first use and again after it
/// breaks; the table `mcp_records` is created if missing.
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
                tracing::warn!("the store's PostgreSQL connection ended: {e}");
            }
        });
        client.batch_execute(super::SCHEMA).await.map_err(failed)?;
        let client = Arc::new(client);
        *slot = Some(client.clone());
        Ok(client)
    }

    async fn execute(
        &self,
        statement: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        self.client()
            .await?
            .execute(statement, params)
            .await
            .map_err(failed)
    }

    /// `statement` (`INSERT` or `REPLACE`) with the record's columns and `condition` (the
    /// time now, before which the record it overwrites must have expired, or the version
    /// it replaces): whether it wrote the record.
    async fn write(
        &self,
        statement: &str,
        record: &Record,
        condition: u64,
    ) -> Result<bool, StoreError> {
        let rows = self
            .execute(
                statement,
                &[
                    &record.key,
                    &as_i64(record.version),
                    &as_i64(record.expires_at_ms),
                    &record.body,
                    &as_i64(condition),
                ],
            )
            .await?;
        Ok(rows == 1)
    }
}

impl Store for PostgresStore {
    async fn insert(&self, record: &Record, now_ms: u64) -> Result<bool, StoreError> {
        self.write(super::INSERT, record, now_ms).await
    }

    async fn load(&self, key: &str, now_ms: u64) -> Result<Option<Record>, StoreError> {
        let row = self
            .client()
            .await?
            .query_opt(super::LOAD, &[&key, &as_i64(now_ms)])
            .await
            .map_err(failed)?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(Record {
            key: key.to_owned(),
            version: as_u64(row.try_get(0).map_err(failed)?),
            expires_at_ms: as_u64(row.try_get(1).map_err(failed)?),
            body: row.try_get(2).map_err(failed)?,
        }))
    }

    async fn replace(&self, record: &Record) -> Result<bool, StoreError> {
        self.write(super::REPLACE, record, record.version.saturating_sub(1))
            .await
    }

    async fn remove(&self, key: &str, version: u64) -> Result<bool, StoreError> {
        let rows = self
            .execute(super::REMOVE, &[&key, &as_i64(version)])
            .await?;
        Ok(rows == 1)
    }

    async fn delete_expired(&self, now_ms: u64, limit: u64) -> Result<u64, StoreError> {
        self.execute(super::DELETE_EXPIRED, &[&as_i64(now_ms), &as_i64(limit)])
            .await
    }
}
