//! Long-running tools: the `io.modelcontextprotocol/tasks` extension.
//!
//! A `#[tool(task)]` called by a client that declares the extension may answer with a
//! task handle (`resultType: "task"`) instead of its result; the client polls `tasks/get`,
//! answers questions with `tasks/update` and stops the work with `tasks/cancel`. The
//! handler is the same async function: it becomes a task when it calls
//! [`RequestContext::start_task`](crate::RequestContext::start_task), or when it runs
//! longer than the server's `task_after`.
//!
//! This module holds the extension's name and a task's stored shape; the runtime that
//! drives tasks is part of the core. Tasks are written to the server's
//! [store](crate::store) before their handle is returned, so any server instance sharing the store can answer for them, and with a
//! durable store they survive a restart.

mod record;

pub(crate) use record::{TaskRecord, TaskStatus};

/// The extension's identifier, as declared in capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// -32021 naming the extension: a request that needs it came from a client that did not
/// declare it.
pub(crate) fn missing_extension() -> crate::protocol::RpcError {
    let mut extensions = serde_json::Map::new();
    extensions.insert(EXTENSION.into(), serde_json::json!({}));
    crate::protocol::RpcError::missing_capability(serde_json::json!({ "extensions": extensions }))
}
