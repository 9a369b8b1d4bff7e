//! Where tasks live: the [`TaskStore`] trait and the record it keeps.
//!
//! A store keeps whole task records and replaces them by compare-and-swap on a version
//! number, so several server instances sharing one store (PostgreSQL) never lose each
//! other's updates: a writer that lost the race reloads the record and applies its change
//! again.

use std::future::Future;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A task's status, as the extension names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answers (`tasks/update`).
    InputRequired,
    /// Finished with a result (including tool results with `isError: true`).
    Completed,
    /// Failed with a JSON-RPC error.
    Failed,
    /// Cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// Everything the server keeps about one task: enough for any instance to answer
/// `tasks/get`, and to run the tool again from the top once the client has answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The unguessable id handed to the client.
    pub id: String,
    /// Subject of the principal that created it (`None`: anonymous); only it may see the
    /// task.
    pub owner: Option<String>,
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
    /// The request's `_meta` (protocol version, client capabilities and info).
    pub meta: Map<String, Value>,
    /// Answers the client gave so far (multi round-trip and `tasks/update`), by key.
    pub answers: Map<String, Value>,
    /// Values the handler kept (`ctx.keep`).
    pub kept: Map<String, Value>,
    /// Current status.
    pub status: TaskStatus,
    /// A message about the status, shown to users or models.
    pub status_message: Option<String>,
    /// Outstanding requests to the client, by key (status `input_required`).
    pub input_requests: Map<String, Value>,
    /// The tool's result (status `completed`).
    pub result: Option<Value>,
    /// The JSON-RPC error (status `failed`).
    pub error: Option<Value>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Last change, milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// Lifetime from creation (`None`: unlimited).
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval.
    pub poll_interval_ms: u64,
    /// The client asked to cancel it.
    pub cancel_requested: bool,
    /// The server instance running it now, if any.
    pub lease_owner: Option<String>,
    /// Until when that instance's claim holds unless renewed, milliseconds since the epoch.
    pub lease_until_ms: u64,
    /// Bumped by every replacement (compare-and-swap).
    pub version: u64,
}

impl TaskRecord {
    /// When the task expires (`u64::MAX` for never), milliseconds since the epoch.
    pub fn expires_at_ms(&self) -> u64 {
        self.ttl_ms
            .map_or(u64::MAX, |ttl| self.created_at_ms.saturating_add(ttl))
    }
}

/// A storage failure (the database is unreachable, a record does not decode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// Durable storage of task records. Implemented by [`SqliteStore`](super::SqliteStore)
/// (feature `sqlite`, on by default) and [`PostgresStore`](super::PostgresStore)
/// (feature `postgres`); implement it for another database the same way.
pub trait TaskStore: Send + Sync + 'static {
    /// Store a new record (version 1). Returns only once the record is durable: a `load`
    /// on any instance then finds it.
    fn insert(&self, task: &TaskRecord) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The record with this id, if any.
    fn load(&self, id: &str)
        -> impl Future<Output = Result<Option<TaskRecord>, StoreError>> + Send;

    /// Replace the record whose stored version is `task.version - 1` with `task`; `false`
    /// when the stored version differs (someone else changed it first) or it is gone.
    fn replace(&self, task: &TaskRecord) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Delete records that expired before `now_ms`; how many went.
    fn delete_expired(&self, now_ms: u64) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

/// Object-safe form stored by the server.
pub(crate) trait DynStore: Send + Sync {
    fn insert<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>>;
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;
    fn replace<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<bool, StoreError>>;
    fn delete_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<u64, StoreError>>;
}

impl<S: TaskStore> DynStore for S {
    fn insert<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(TaskStore::insert(self, task))
    }
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(TaskStore::load(self, id))
    }
    fn replace<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(TaskStore::replace(self, task))
    }
    fn delete_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(TaskStore::delete_expired(self, now_ms))
    }
}

/// The table every SQL store keeps records in: the id, the version compared on replace,
/// the expiry (for deleting expired tasks without reading them) and the record as JSON.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS mcp_tasks (
    id TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_tasks_expires ON mcp_tasks (expires_at);";

/// The record as stored: JSON text.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn encode(task: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(task).map_err(|e| StoreError(format!("cannot encode a task: {e}")))
}

/// A stored record read back.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn decode(text: &str) -> Result<TaskRecord, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError(format!("a stored task does not decode: {e}")))
}
