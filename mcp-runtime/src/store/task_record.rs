//! What the server keeps about one task of the `io.modelcontextprotocol/tasks` extension,
//! as a record of the server's store (under `task:<id>`, replaced by compare-and-swap, so
//! instances sharing the store never lose each other's updates).
//!
//! A task is written to the store before its handle is returned, so any server instance
//! sharing the store can answer for it, and with a durable store it survives a restart.
//! The runtime that creates and drives tasks is the core's (`core::tasks`); this is only
//! the shape it stores.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A task's status, as the extension names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TaskStatus {
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
    pub(crate) fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The wire name.
    pub(crate) fn as_str(self) -> &'static str {
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
pub(crate) struct TaskRecord {
    /// The unguessable id handed to the client.
    pub(crate) id: String,
    /// Subject of the principal that created it (`None`: anonymous); only it may see the
    /// task.
    pub(crate) owner: Option<String>,
    /// The tool called.
    pub(crate) tool: String,
    /// Its arguments.
    pub(crate) arguments: Map<String, Value>,
    /// The request's `_meta` (protocol version, client capabilities and info).
    pub(crate) meta: Map<String, Value>,
    /// Answers the client gave so far (multi round-trip and `tasks/update`), by key.
    pub(crate) answers: Map<String, Value>,
    /// Values the handler kept (`ctx.keep`).
    pub(crate) kept: Map<String, Value>,
    /// Current status.
    pub(crate) status: TaskStatus,
    /// A message about the status, shown to users or models.
    pub(crate) status_message: Option<String>,
    /// Outstanding requests to the client, by key (status `input_required`).
    pub(crate) input_requests: Map<String, Value>,
    /// The tool's result (status `completed`).
    pub(crate) result: Option<Value>,
    /// The JSON-RPC error (status `failed`).
    pub(crate) error: Option<Value>,
    /// Creation time, milliseconds since the Unix epoch.
    pub(crate) created_at_ms: u64,
    /// Last change, milliseconds since the Unix epoch.
    pub(crate) updated_at_ms: u64,
    /// Lifetime from creation (`None`: unlimited).
    pub(crate) ttl_ms: Option<u64>,
    /// Suggested polling interval.
    pub(crate) poll_interval_ms: u64,
    /// The client asked to cancel it.
    pub(crate) cancel_requested: bool,
    /// The server instance running it now, if any.
    pub(crate) lease_owner: Option<String>,
    /// Until when that instance's claim holds unless renewed, milliseconds since the epoch.
    pub(crate) lease_until_ms: u64,
    /// Bumped by every change, so watchers notice one.
    pub(crate) version: u64,
}

impl TaskRecord {
    /// When the task expires (`u64::MAX` for never), milliseconds since the epoch.
    pub(crate) fn expires_at_ms(&self) -> u64 {
        self.ttl_ms
            .map_or(u64::MAX, |ttl| self.created_at_ms.saturating_add(ttl))
    }
}
