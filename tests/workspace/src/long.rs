// ANCHOR: uses
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
// ANCHOR_END: uses

/// Counts what task handlers saw.
#[derive(Default)]
pub struct TaskProbe {
    /// Handler runs started.
    pub runs: AtomicUsize,
    /// Cancellations observed.
    pub cancelled: AtomicUsize,
}

/// Never a task.
#[tool]
pub async fn plain() -> &'static str {
    "plain"
}

/// Takes `ms` milliseconds; a task when that is long enough.
#[tool(task)]
pub async fn takes(ms: u64, probe: State<Arc<TaskProbe>>) -> String {
    probe.runs.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    format!("took {ms} ms")
}

/// A task at once, whose tool fails (an `isError` result).
#[tool(task)]
pub async fn task_tool_error(ctx: RequestContext) -> Result<String, ToolError> {
    ctx.start_task();
    Err(ToolError::new("the report has no rows"))
}

/// A task at once, failing with a JSON-RPC error.
#[tool(task)]
pub async fn task_rpc_error(ctx: RequestContext) -> Result<String, RpcError> {
    ctx.start_task();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    Err(RpcError::internal("the backend is down"))
}

/// A yes/no answer.
#[derive(Deserialize, JsonSchema)]
pub struct Approval {
    /// Approve?
    pub ok: bool,
}

/// A task asking two questions at once.
#[tool(task)]
pub async fn task_asks(
    ctx: RequestContext,
    probe: State<Arc<TaskProbe>>,
) -> Result<String, ToolError> {
    probe.runs.fetch_add(1, Ordering::SeqCst);
    ctx.start_task();
    let first = ctx.elicit::<Approval>("first", "First?");
    let second = ctx.elicit::<Approval>("second", "Second?");
    let (first, second) = (first?, second?);
    Ok(format!(
        "first {}, second {}",
        first.accepted().is_some_and(|a| a.ok),
        second.accepted().is_some_and(|a| a.ok)
    ))
}

/// A name.
#[derive(Deserialize, JsonSchema)]
pub struct Name {
    /// The name.
    pub name: String,
}

// ANCHOR: ask_then_task
/// Asks for a name synchronously, then goes on as a task.
#[tool(task = required)]
pub async fn ask_then_task(ctx: RequestContext) -> Result<String, ToolError> {
    let name = ctx.elicit::<Name>("name", "Name?")?;
    let name = name.accepted().map(|n| n.name).unwrap_or_default();
    ctx.start_task();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    Ok(format!("hello {name}"))
}
// ANCHOR_END: ask_then_task

/// A task that runs until cancelled.
#[tool(task)]
pub async fn until_cancelled(
    ctx: RequestContext,
    cancel: Cancellation,
    probe: State<Arc<TaskProbe>>,
) -> &'static str {
    ctx.start_task();
    let watcher = {
        let (probe, cancel) = (probe.0.clone(), cancel.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            probe.cancelled.fetch_add(1, Ordering::SeqCst);
        })
    };
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    watcher.abort();
    "never cancelled"
}

/// A task reporting progress, then waiting a little.
#[tool(task)]
pub async fn reports(ctx: RequestContext, progress: Progress) -> &'static str {
    ctx.start_task();
    progress.report_with(3.0, Some(10.0), "Copying files");
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    "done"
}

/// A task that reports progress and logs at every step: as a task it has no stream of its
/// own, so neither may become a notification.
#[tool(task)]
pub async fn busy_task(ctx: RequestContext, progress: Progress, log: Log) -> &'static str {
    ctx.start_task();
    for step in 1..=5_u32 {
        progress.report_with(f64::from(step), Some(5.0), "Working");
        log.info(format!("step {step}"));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    "done"
}

/// The long-running tools alone, with a probe.
pub fn server(probe: Arc<TaskProbe>) -> Server {
    Server::new("long", "1.0.0")
        .only_module(module_path!())
        .state(probe)
        .task_after(std::time::Duration::from_millis(150))
        .task_poll_interval(std::time::Duration::from_millis(50))
}
