//! Driving a task: storing it when a call becomes one, running its handler in the
//! background under a lease that is renewed while it runs, and folding the outcome (or a
//! shutdown, or a cancellation) into the stored record.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{base, store_failed, TaskLink, TaskRuntime};
use crate::clock::{millis, now_ms};
use crate::core::input::InputNeed;
use crate::core::RequestContext;
use crate::protocol::{CallToolResult, RpcError};
use crate::store::{TaskRecord, TaskStatus};

/// What an outcome makes of a task.
#[derive(Clone)]
struct Settled {
    status: TaskStatus,
    message: Option<String>,
    result: Option<Value>,
    error: Option<Value>,
    input_requests: Map<String, Value>,
    answers: Map<String, Value>,
    kept: Map<String, Value>,
}

impl TaskRuntime {
    /// Create the task of a running call and return its `CreateTaskResult` body. When
    /// `outcome` is given the handler already ended: the task is stored settled and no
    /// worker runs. Otherwise `future` goes on in the background.
    pub(crate) async fn escalate(
        self: &Arc<Self>,
        link: &Arc<TaskLink>,
        ctx: RequestContext,
        tool: &str,
        arguments: Map<String, Value>,
        run: Escalation,
    ) -> Result<Map<String, Value>, RpcError> {
        // Becoming a task by running long counts as asking to: from now on its progress
        // is its status message, not notifications on a stream that has ended.
        link.started.store(true, Ordering::SeqCst);
        let mut task = self.record(&ctx, tool, arguments)?;
        task.status_message = link
            .early_status
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let _ = link.id.set(task.id.clone());
        match run {
            Escalation::Ended(outcome) => {
                let settled = settle(&ctx, outcome, false);
                apply(&mut task, settled);
                task.lease_owner = None;
                self.insert(&task).await.map_err(store_failed)?;
            }
            Escalation::Running(future) => {
                let (answers, kept) = crate::core::input::task_state(&ctx);
                task.answers = answers;
                task.kept = kept;
                // Durable before the handle goes out: tasks/get on any instance finds it.
                self.insert(&task).await.map_err(store_failed)?;
                self.clone().spawn(task.id.clone(), ctx, future);
            }
        }
        // A CreateTaskResult is the bare task (the adapter adds `resultType: "task"`).
        Ok(base(&task))
    }

    /// Drive `future` (a task's handler) here, renewing the lease, until it ends or is
    /// cancelled; then store what it came to.
    pub(super) fn spawn(
        self: Arc<Self>,
        id: String,
        ctx: RequestContext,
        mut future: BoxFuture<'static, Result<CallToolResult, RpcError>>,
    ) {
        let cancel = CancellationToken::new();
        self.local().insert(id.clone(), cancel.clone());
        let workers = self.workers.clone();
        workers.spawn(async move {
            let renew_every = (self.config.lease / 3).max(Duration::from_millis(50));
            let mut renew = tokio::time::interval(renew_every);
            renew.tick().await;
            let outcome = loop {
                tokio::select! {
                    outcome = &mut future => break Some(outcome),
                    _ = cancel.cancelled() => break None,
                    _ = renew.tick() => {
                        match self.renew(&id).await {
                            Lease::Held => {}
                            Lease::CancelRequested => break None,
                            Lease::Lost => {
                                // Another instance judged this one dead and failed the task.
                                tracing::warn!(task = %id, "lost the lease of a running task; stopping it");
                                drop(future);
                                ctx.cancel_now();
                                self.local().remove(&id);
                                return;
                            }
                        }
                    }
                }
            };
            drop(future);
            let settled = match outcome {
                Some(outcome) => settle(&ctx, outcome, false),
                None if self.stopping.load(Ordering::Acquire) => {
                    ctx.cancel_now();
                    shut_down(&ctx)
                }
                None => {
                    // Dropping the handler stopped it; work it spawned sees the token.
                    ctx.cancel_now();
                    settle(&ctx, Err(RpcError::internal("cancelled")), true)
                }
            };
            let instance = self.instance.clone();
            let stored = self
                .modify(&id, |task| {
                    if task.status.is_terminal() || task.lease_owner.as_deref() != Some(&instance) {
                        return false;
                    }
                    apply(task, settled.clone());
                    task.lease_owner = None;
                    true
                })
                .await;
            if let Err(e) = stored {
                tracing::error!(task = %id, "could not store a task's outcome: {e}");
            }
            self.local().remove(&id);
        });
    }

    async fn renew(&self, id: &str) -> Lease {
        let instance = self.instance.clone();
        let until = now_ms().saturating_add(millis(self.config.lease));
        let mut cancel = false;
        let mut held = false;
        let stored = self
            .modify(id, |task| {
                held = task.lease_owner.as_deref() == Some(&instance) && !task.status.is_terminal();
                cancel = task.cancel_requested;
                if !held {
                    return false;
                }
                task.lease_until_ms = until;
                true
            })
            .await;
        match stored {
            Err(e) => {
                // The store is down: keep working; the next renewal tries again.
                tracing::warn!(task = %id, "could not renew a task's lease: {e}");
                Lease::Held
            }
            Ok(_) if !held => Lease::Lost,
            Ok(_) if cancel => Lease::CancelRequested,
            Ok(_) => Lease::Held,
        }
    }
}

enum Lease {
    Held,
    CancelRequested,
    Lost,
}

/// How a call turns into a task.
pub(crate) enum Escalation {
    /// The handler already ended, with this outcome.
    Ended(Result<CallToolResult, RpcError>),
    /// It is still running.
    Running(BoxFuture<'static, Result<CallToolResult, RpcError>>),
}

/// What a handler's outcome makes of its task.
/// A task stopped by the server's shutdown: failed, saying so, so no client waits on it.
fn shut_down(ctx: &RequestContext) -> Settled {
    let (answers, kept) = crate::core::input::task_state(ctx);
    let error = crate::core::lifecycle::shut_down(&"the task");
    Settled {
        status: TaskStatus::Failed,
        message: Some(error.message.clone()),
        result: None,
        error: serde_json::to_value(&error).ok(),
        input_requests: Map::new(),
        answers,
        kept,
    }
}

fn settle(
    ctx: &RequestContext,
    outcome: Result<CallToolResult, RpcError>,
    cancelled: bool,
) -> Settled {
    let (answers, kept) = crate::core::input::task_state(ctx);
    let mut settled = Settled {
        status: TaskStatus::Completed,
        message: None,
        result: None,
        error: None,
        input_requests: Map::new(),
        answers,
        kept,
    };
    if cancelled {
        settled.status = TaskStatus::Cancelled;
        settled.message = Some("Cancelled by the client".into());
        return settled;
    }
    let failed = !matches!(&outcome, Ok(result) if !result.is_error);
    let fail = |settled: &mut Settled, error: RpcError| {
        settled.status = TaskStatus::Failed;
        settled.message = Some(format!("The tool failed: {}", error.message));
        settled.error = serde_json::to_value(&error).ok();
    };
    match crate::core::input::task_end(ctx, failed) {
        InputNeed::Input(requests) => {
            settled.status = TaskStatus::InputRequired;
            settled.message = Some("Waiting for the client's input".into());
            settled.input_requests = requests;
        }
        InputNeed::Error(error) => fail(&mut settled, error),
        InputNeed::Finished => match outcome {
            Ok(result) => match serde_json::to_value(&result) {
                Ok(value) => settled.result = Some(value),
                Err(e) => fail(
                    &mut settled,
                    RpcError::internal(format!(
                        "Internal error: the tool result could not be serialized: {e}"
                    )),
                ),
            },
            Err(error) => fail(&mut settled, error),
        },
    }
    settled
}

fn apply(task: &mut TaskRecord, settled: Settled) {
    // Waiting for input, the handler's own word on what it waits for beats the default.
    let keep = settled.status == TaskStatus::InputRequired && task.status_message.is_some();
    task.status = settled.status;
    if !keep {
        task.status_message = settled.message;
    }
    task.result = settled.result;
    task.error = settled.error;
    task.input_requests = settled.input_requests;
    task.answers.extend(settled.answers);
    task.kept = settled.kept;
}
