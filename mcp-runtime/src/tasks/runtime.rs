//! Running tasks: creating them durably, driving their handlers in the background under a
//! lease, folding outcomes into the store, answering `tasks/*`, and noticing tasks whose
//! server instance died.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::record::{TaskRecord, TaskStatus};
use crate::clock::{millis, now_ms};
use crate::core::input::RunEnd;
use crate::core::RequestContext;
use crate::protocol::{CallToolResult, RpcError};
use crate::store::{Records, StoreError};

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

/// ISO 8601 in UTC with milliseconds, from milliseconds since the epoch.
pub(crate) fn iso8601(ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + Duration::from_millis(ms);
    humantime::format_rfc3339_millis(at).to_string()
}

/// The link between a running call and its task: how the handler asks to become one,
/// and how its status messages reach the store.
pub(crate) struct TaskLink {
    runtime: Arc<TaskRuntime>,
    started: AtomicBool,
    notify: Notify,
    id: OnceLock<String>,
    /// A status message set before the task was stored; it goes into the new record.
    early_status: Mutex<Option<String>>,
}

impl TaskLink {
    pub(crate) fn new(runtime: Arc<TaskRuntime>) -> Arc<TaskLink> {
        Arc::new(TaskLink {
            runtime,
            started: AtomicBool::new(false),
            notify: Notify::new(),
            id: OnceLock::new(),
            early_status: Mutex::new(None),
        })
    }

    /// A link for a call that already is a task (a re-run after `tasks/update`).
    fn running(runtime: Arc<TaskRuntime>, id: String) -> Arc<TaskLink> {
        let link = TaskLink::new(runtime);
        link.started.store(true, Ordering::SeqCst);
        let _ = link.id.set(id);
        link
    }

    /// The handler asked to continue as a task.
    pub(crate) fn start(&self) {
        if !self.started.swap(true, Ordering::SeqCst) {
            self.notify.notify_one();
        }
    }

    pub(crate) fn is_started(&self) -> bool {
        self.started.load(Ordering::SeqCst)
    }

    /// Completes once the handler asked to become a task.
    pub(crate) async fn started(&self) {
        let wait = self.notify.notified();
        if self.is_started() {
            return;
        }
        wait.await;
    }

    pub(crate) fn id(&self) -> Option<&str> {
        self.id.get().map(String::as_str)
    }

    /// Set the task's status message (in the background; the handler does not wait).
    pub(crate) fn set_status(&self, message: String) {
        let Some(id) = self.id().map(str::to_owned) else {
            // Not stored yet: the record is made with it.
            *self.early_status.lock().unwrap_or_else(|p| p.into_inner()) = Some(message);
            return;
        };
        let runtime = self.runtime.clone();
        tokio::spawn(async move {
            let result = runtime
                .modify(&id, |task| {
                    if task.status.is_terminal() {
                        return false;
                    }
                    task.status_message = Some(message.clone());
                    true
                })
                .await;
            if let Err(e) = result {
                tracing::warn!(task = %id, "could not record a task's status message: {e}");
            }
        });
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

fn store_failed(e: StoreError) -> RpcError {
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
    fn spawn(
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
    let error = crate::core::lifecycle::shut_down("the task");
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
        RunEnd::Input(requests) => {
            settled.status = TaskStatus::InputRequired;
            settled.message = Some("Waiting for the client's input".into());
            settled.input_requests = requests;
        }
        RunEnd::Error(error) => fail(&mut settled, error),
        RunEnd::Finished => match outcome {
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

/// The `Task` fields of a record.
fn base(task: &TaskRecord) -> Map<String, Value> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601(1_796_083_200_000), "2026-12-01T00:00:00.000Z");
    }
}
