//! [`MemoryStore`]: records in this process's memory, the default store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Record, Store, StoreError};

/// Records in memory: nothing to set up, gone when the process exits, and not shared with
/// other instances. Give several instances a [`PostgresStore`](super::PostgresStore)
/// instead (one machine's processes can share a [`SqliteStore`](super::SqliteStore) file).
/// Cheap to clone; clones share the records.
#[derive(Clone, Default)]
pub struct MemoryStore {
    records: Arc<Mutex<HashMap<String, Record>>>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("records", &self.records().len())
            .finish()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn records(&self) -> MutexGuard<'_, HashMap<String, Record>> {
        // A poisoned lock only means a panic elsewhere mid-operation; every operation
        // leaves the map whole.
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Store for MemoryStore {
    async fn insert(&self, record: &Record, now_ms: u64) -> Result<bool, StoreError> {
        let mut records = self.records();
        match records.get(&record.key) {
            Some(live) if live.expires_at_ms > now_ms => Ok(false),
            _ => {
                records.insert(record.key.clone(), record.clone());
                Ok(true)
            }
        }
    }

    async fn load(&self, key: &str, now_ms: u64) -> Result<Option<Record>, StoreError> {
        Ok(self
            .records()
            .get(key)
            .filter(|r| r.expires_at_ms > now_ms)
            .cloned())
    }

    async fn replace(&self, record: &Record) -> Result<bool, StoreError> {
        let mut records = self.records();
        match records.get_mut(&record.key) {
            Some(stored) if stored.version.saturating_add(1) == record.version => {
                *stored = record.clone();
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn remove(&self, key: &str, version: u64) -> Result<bool, StoreError> {
        let mut records = self.records();
        if records.get(key).is_some_and(|r| r.version == version) {
            records.remove(key);
            return Ok(true);
        }
        Ok(false)
    }

    async fn delete_expired(&self, now_ms: u64, limit: u64) -> Result<u64, StoreError> {
        let mut records = self.records();
        let expired: Vec<String> = records
            .values()
            .filter(|r| r.expires_at_ms <= now_ms)
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|r| r.key.clone())
            .collect();
        for key in &expired {
            records.remove(key);
        }
        Ok(expired.len() as u64)
    }
}
