//! The task runtime: creating tasks durably, answering `tasks/*` from the store, and
//! noticing tasks whose server instance died. Driving a task's handler in the background
//! is in `run`; the link between a running call and its task in `link`. The stored shape
//! of a task is [`TaskRecord`], in the store.

mod link;
mod run;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::RequestContext;
use crate::clock::{iso8601, millis, now_ms};
use crate::protocol::{CallToolResult, RpcError};
use crate::store::{Records, StoreError};
use crate::store::{TaskRecord, TaskStatus};

pub(crate) use link::TaskLink;
pub(crate) use run::Escalation;

/// How tasks are kept and run (see the `Server` builder methods).
#[derive(Debug, Clone)]
pub(crate) struct TaskConfig {
    /// How long a task stays readable after creation (`None`: until deleted).
    pub(crate) ttl: Option<Duration>,
    /// The polling interval suggested to clients.
    pub(crate) poll_interval: Duration,
    /// How long an instance's claim on a running task lasts unless renewed (the server's
    /// lease, shared with idempotent calls).
    pub(crate) lease: Duration,
    /// A task-capable call still running after this long becomes a task.
    pub(crate) task_after: Duration,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            lease: Duration::from_secs(15),
            task_after: Duration::from_secs(1),
        }
    }
}

/// The tasks of one server: its store, settings, and the tasks this instance runs.
pub(crate) struct TaskRuntime {
    records: Records,
    pub(crate) config: TaskConfig,
    /// This process, as lease owner.
    instance: String,
    /// Tasks running here, with their cancellation.
    local: Mutex<HashMap<String, CancellationToken>>,
    /// The workers running here, so shutdown can wait for them.
    workers: tokio_util::task::TaskTracker,
    /// Set when shutdown stops the workers: their tasks fail rather than read as
    /// cancelled by the client.
    stopping: AtomicBool,
}

/// A task's key in the store.
fn key(id: &str) -> String {
    format!("task:{id}")
}

fn unknown(id: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "Unknown task: {id} (it never existed, has expired, or belongs to someone else)"
    ))
    .with_data(json!({ "taskId": id }))
}

pub(super) fn store_failed(e: StoreError) -> RpcError {
    tracing::error!("{e}");
    RpcError::internal("Internal error: the task store is unavailable; try again shortly")
}

impl TaskRuntime {
    pub(crate) fn new(records: Records, config: TaskConfig, instance: String) -> TaskRuntime {
        TaskRuntime {
            records,
            config,
            instance,
            local: Mutex::default(),
            workers: tokio_util::task::TaskTracker::new(),
            stopping: AtomicBool::new(false),
        }
    }

    /// Shutdown: let tasks running here finish within `grace`, then stop the rest (they
    /// fail, saying the server shut down) and wait until their outcomes are stored.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        self.workers.close();
        if tokio::time::timeout(grace, self.workers.wait())
            .await
            .is_ok()
        {
            return;
        }
        self.stopping.store(true, Ordering::Release);
        let running: Vec<CancellationToken> = self.local().values().cloned().collect();
        tracing::warn!(
            tasks = running.len(),
            "tasks still running after the shutdown grace period; failing them"
        );
        for cancel in running {
            cancel.cancel();
        }
        // Storing an outcome is one write; a store that does not answer in time leaves
        // the task to the lease sweep of another instance.
        let _ = tokio::time::timeout(Duration::from_secs(5), self.workers.wait()).await;
    }

    fn local(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.local.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Load, change and store a task until the change lands (compare-and-swap). `change`
    /// returns whether it changed anything; the task as stored (or found) comes back.
    pub(crate) async fn modify(
        &self,
        id: &str,
        mut change: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, StoreError> {
        self.records
            .modify(&key(id), |task: &mut TaskRecord, _| {
                if !change(task) {
                    return false;
                }
                task.updated_at_ms = now_ms().max(task.updated_at_ms);
                task.version = task.version.saturating_add(1);
                true
            })
            .await
    }

    /// Store a new task; durable when this returns.
    async fn insert(&self, task: &TaskRecord) -> Result<(), StoreError> {
        if self
            .records
            .insert(&key(&task.id), task, task.expires_at_ms())
            .await?
        {
            Ok(())
        } else {
            Err(StoreError(format!("task id {} is already taken", task.id)))
        }
    }

    /// A new record for a call of `tool`, owned by this instance while it runs.
    fn record(
        &self,
        ctx: &RequestContext,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> Result<TaskRecord, RpcError> {
        let id = crate::policy::seal::random_token(24).map_err(|e| {
            RpcError::internal(format!("Internal error: no task id could be made: {e}"))
        })?;
        let now = now_ms();
        let mut meta = ctx.meta().clone();
        meta.remove(crate::protocol::meta::PROGRESS_TOKEN);
        Ok(TaskRecord {
            id,
            owner: ctx.principal().map(|p| p.subject.clone()),
            tool: tool.to_owned(),
            arguments,
            meta,
            answers: Map::new(),
            kept: Map::new(),
            status: TaskStatus::Working,
            status_message: None,
            input_requests: Map::new(),
            result: None,
            error: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms: self.config.ttl.map(millis),
            poll_interval_ms: millis(self.config.poll_interval).max(1),
            cancel_requested: false,
            lease_owner: Some(self.instance.clone()),
            lease_until_ms: now.saturating_add(millis(self.config.lease)),
            version: 1,
        })
    }

    /// The task `id` as `principal` may see it, with a dead instance's task failed first.
    pub(crate) async fn visible(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Result<TaskRecord, RpcError> {
        let task = self
            .records
            .load::<TaskRecord>(&key(id))
            .await
            .map_err(store_failed)?
            .map(|loaded| loaded.value);
        let task = match task {
            Some(task) if task.owner.as_deref() == principal && task.expires_at_ms() > now_ms() => {
                task
            }
            _ => return Err(unknown(id)),
        };
        let orphaned = task.status == TaskStatus::Working
            && task.lease_until_ms < now_ms()
            && !self.local().contains_key(id);
        if !orphaned {
            return Ok(task);
        }
        let now = now_ms();
        let failed = self
            .modify(id, |task| {
                if task.status != TaskStatus::Working || task.lease_until_ms >= now {
                    return false;
                }
                let error = RpcError::internal(
                    "The server instance running this task stopped before it finished",
                );
                task.status = TaskStatus::Failed;
                task.status_message = Some(error.message.clone());
                task.error = serde_json::to_value(&error).ok();
                task.lease_owner = None;
                true
            })
            .await
            .map_err(store_failed)?;
        failed.ok_or_else(|| unknown(id))
    }

    /// `tasks/get`: the task as a `DetailedTask`.
    pub(crate) async fn get(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Result<Map<String, Value>, RpcError> {
        Ok(detailed(&self.visible(id, principal).await?))
    }

    /// `tasks/update`: record the answers to outstanding requests (others are ignored);
    /// once none is outstanding, run the handler again here with every answer.
    pub(crate) async fn update(
        self: &Arc<Self>,
        id: &str,
        responses: Map<String, Value>,
        ctx_of: impl FnOnce(
            &TaskRecord,
            Arc<TaskLink>,
        ) -> Option<(
            RequestContext,
            BoxFuture<'static, Result<CallToolResult, RpcError>>,
        )>,
        principal: Option<&str>,
    ) -> Result<(), RpcError> {
        self.visible(id, principal).await?;
        let instance = self.instance.clone();
        let lease_until = now_ms().saturating_add(millis(self.config.lease));
        let mut resume = false;
        let stored = self
            .modify(id, |task| {
                resume = false;
                if task.status != TaskStatus::InputRequired {
                    return false;
                }
                let mut changed = false;
                for (key, answer) in &responses {
                    if task.input_requests.remove(key).is_some() {
                        task.answers.insert(key.clone(), answer.clone());
                        changed = true;
                    }
                }
                if changed && task.input_requests.is_empty() {
                    task.status = TaskStatus::Working;
                    task.status_message = None;
                    task.lease_owner = Some(instance.clone());
                    task.lease_until_ms = lease_until;
                    resume = true;
                }
                changed
            })
            .await
            .map_err(store_failed)?;
        if let (true, Some(task)) = (resume, stored) {
            let link = TaskLink::running(self.clone(), task.id.clone());
            match ctx_of(&task, link) {
                Some((ctx, future)) => self.clone().spawn(task.id.clone(), ctx, future),
                None => {
                    let tool = task.tool.clone();
                    let _ = self
                        .modify(id, |task| {
                            task.status = TaskStatus::Failed;
                            let error = RpcError::internal(format!(
                                "The tool {tool} is no longer served, so the task cannot go on"
                            ));
                            task.status_message = Some(error.message.clone());
                            task.error = serde_json::to_value(&error).ok();
                            task.lease_owner = None;
                            true
                        })
                        .await;
                }
            }
        }
        Ok(())
    }

    /// `tasks/cancel`: a running task here stops now; one running elsewhere stops at its
    /// next lease renewal; one waiting for input is cancelled at once.
    pub(crate) async fn cancel(&self, id: &str, principal: Option<&str>) -> Result<(), RpcError> {
        self.visible(id, principal).await?;
        let now = now_ms();
        self.modify(id, |task| {
            if task.status.is_terminal() || task.cancel_requested {
                return false;
            }
            task.cancel_requested = true;
            let running = task.status == TaskStatus::Working && task.lease_until_ms >= now;
            if !running {
                task.status = TaskStatus::Cancelled;
                task.status_message = Some("Cancelled by the client".into());
                task.input_requests.clear();
                task.lease_owner = None;
            }
            true
        })
        .await
        .map_err(store_failed)?;
        if let Some(token) = self.local().get(id) {
            token.cancel();
        }
        Ok(())
    }
}

/// The `Task` fields of a record.
pub(super) fn base(task: &TaskRecord) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("taskId".into(), json!(task.id));
    body.insert("status".into(), json!(task.status.as_str()));
    if let Some(message) = &task.status_message {
        body.insert("statusMessage".into(), json!(message));
    }
    body.insert("createdAt".into(), json!(iso8601(task.created_at_ms)));
    body.insert("lastUpdatedAt".into(), json!(iso8601(task.updated_at_ms)));
    body.insert("ttlMs".into(), json!(task.ttl_ms));
    body.insert("pollIntervalMs".into(), json!(task.poll_interval_ms));
    body
}

/// A `DetailedTask`: the task plus its status's payload.
pub(crate) fn detailed(task: &TaskRecord) -> Map<String, Value> {
    let mut body = base(task);
    match task.status {
        TaskStatus::InputRequired => {
            body.insert(
                "inputRequests".into(),
                Value::Object(task.input_requests.clone()),
            );
        }
        TaskStatus::Completed => {
            body.insert(
                "result".into(),
                task.result.clone().unwrap_or_else(|| json!({})),
            );
        }
        TaskStatus::Failed => {
            body.insert(
                "error".into(),
                task.error
                    .clone()
                    .unwrap_or_else(|| json!({"code": -32603, "message": "Internal error"})),
            );
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    body
}
