//! Requests in progress on one connection or session, and how to stop each: the task
//! running it, its cancellation token and its notification channel.
//! `notifications/cancelled` looks the request up here; a task removes itself before
//! sending its response, so a cancellation arriving after that finds nothing to abort and
//! the response is never cut short.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use crate::core::Notifier;
use crate::protocol::Params;
use crate::protocol::RequestId;

/// How to stop one running request.
struct Running {
    task: AbortHandle,
    cancel: CancellationToken,
    /// Its progress and log channel, shut on cancellation: work the handler spawned may
    /// still hold a `Progress` or `Log`, and nothing more may be sent for the request.
    notifier: Option<Notifier>,
}

impl Running {
    fn stop(self) {
        // Cancelling waits for a send in progress, so nothing of the request follows.
        if let Some(notifier) = &self.notifier {
            notifier.cancel();
        }
        self.cancel.cancel();
        self.task.abort();
    }
}

/// The running requests, by id. Cheap to clone (shared).
#[derive(Clone, Default)]
pub(crate) struct InFlight(Arc<Mutex<HashMap<RequestId, Running>>>);

impl InFlight {
    fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, Running>> {
        // A poisoned map only means a task panicked while holding it; the map is valid.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Register request `id` as run by the task `spawn` starts, sending its notifications
    /// through `notifier`. The registry is held while spawning, so the task cannot finish
    /// (and look itself up) before it is registered.
    pub(crate) fn spawn(
        &self,
        id: RequestId,
        cancel: CancellationToken,
        notifier: Option<Notifier>,
        spawn: impl FnOnce() -> AbortHandle,
    ) {
        let mut running = self.lock();
        let task = spawn();
        running.insert(
            id,
            Running {
                task,
                cancel,
                notifier,
            },
        );
    }

    /// Whether a request with this id is running: a second request reusing the id would
    /// make the two indistinguishable (and one answer would be lost), so it is refused.
    pub(crate) fn contains(&self, id: &RequestId) -> bool {
        self.lock().contains_key(id)
    }

    /// The error for a request reusing the id of one in progress.
    pub(crate) fn duplicate(id: &RequestId) -> crate::protocol::RpcError {
        crate::protocol::RpcError::invalid_request(format!(
            "Request id {id} is already in use by a request in progress; give each request its own id"
        ))
    }

    /// The request finished: `true` when it was still registered (not cancelled), so its
    /// response is still wanted.
    pub(crate) fn finish(&self, id: &RequestId) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Stop the request named by `notifications/cancelled` params: its task, its token and
    /// its notifications. Unknown or finished requests are ignored, as the specification
    /// allows.
    pub(crate) fn cancel(&self, params: Option<&Params>) {
        let id = params
            .and_then(|p| p.get("requestId"))
            .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
        let reason = params
            .and_then(|p| p.get("reason"))
            .and_then(Value::as_str)
            .unwrap_or("none given");
        if let Some(id) = id {
            let running = self.lock().remove(&id);
            if let Some(running) = running {
                running.stop();
                tracing::debug!(request_id = %id, reason, "request cancelled by the client");
            }
        }
    }

    /// Stop every request (the session ended).
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn cancel_all(&self) {
        let all: Vec<Running> = self.lock().drain().map(|(_, running)| running).collect();
        for running in all {
            running.stop();
        }
    }

    /// Whether no request is running.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_cancelled_request_is_stopped_and_its_response_unwanted() {
        let running = InFlight::default();
        let cancel = CancellationToken::new();
        let id = RequestId::Number(7.into());
        let (tx, mut rx) = tokio::sync::mpsc::channel(8);
        let notifier = Notifier::new(tx);
        running.spawn(id.clone(), cancel.clone(), Some(notifier.clone()), || {
            tokio::spawn(std::future::pending::<()>()).abort_handle()
        });
        assert!(!running.is_empty());
        assert!(notifier.send_message(&json!({"before": "cancel"})));
        let params = Params::from_value(json!({"requestId": 7, "reason": "changed my mind"}));
        running.cancel(params.as_ref());
        assert!(cancel.is_cancelled());
        // S-068: whoever still holds the request's channel can send nothing more.
        assert!(!notifier.send_message(&json!({"after": "cancel"})));
        assert!(rx.try_recv().is_ok());
        assert!(rx.try_recv().is_err());
        // S-145: the handler finished after the cancellation came: its response is dropped.
        assert!(
            !running.finish(&id),
            "a cancelled request's response is not sent"
        );
        // S-145: unknown ids (such as one already answered) and malformed ones are ignored.
        running.cancel(Params::from_value(json!({"requestId": 8})).as_ref());
        running.cancel(Params::from_value(json!({"requestId": {}})).as_ref());
        running.cancel(None);
    }
}
