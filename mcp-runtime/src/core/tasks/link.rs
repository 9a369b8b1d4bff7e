//! The link between a running call and its task: how the handler asks to become one, and
//! how its status messages reach the store.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::Notify;

use super::TaskRuntime;

/// The link between a running call and its task: how the handler asks to become one,
/// and how its status messages reach the store.
pub(crate) struct TaskLink {
    runtime: Arc<TaskRuntime>,
    pub(super) started: AtomicBool,
    pub(super) notify: Notify,
    pub(super) id: OnceLock<String>,
    /// A status message set before the task was stored; it goes into the new record.
    pub(super) early_status: Mutex<Option<String>>,
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
    pub(super) fn running(runtime: Arc<TaskRuntime>, id: String) -> Arc<TaskLink> {
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
