//! Requests in progress on one connection or session, and how to stop each: the task
//! running it and its cancellation token. `notifications/cancelled` looks the request up
//! here; a task removes itself before sending its response, so a cancellation arriving
//! after that finds nothing to abort and the response is never cut short.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use crate::protocol::RequestId;

/// The running requests, by id. Cheap to clone (shared).
#[derive(Clone, Default)]
pub(crate) struct InFlight(Arc<Mutex<HashMap<RequestId, (AbortHandle, CancellationToken)>>>);

impl InFlight {
    fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, (AbortHandle, CancellationToken)>> {
        // A poisoned map only means a task panicked while holding it; the map is valid.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Register request `id` as run by the task `spawn` starts. The registry is held while
    /// spawning, so the task cannot finish (and look itself up) before it is registered.
    pub(crate) fn spawn(
        &self,
        id: RequestId,
        cancel: CancellationToken,
        spawn: impl FnOnce() -> AbortHandle,
    ) {
        let mut running = self.lock();
        let task = spawn();
        running.insert(id, (task, cancel));
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

    /// Stop the request named by `notifications/cancelled` params. Unknown or finished
    /// requests are ignored, as the specification allows.
    pub(crate) fn cancel(&self, params: Option<&Map<String, Value>>) {
        let id = params
            .and_then(|p| p.get("requestId"))
            .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
        let reason = params
            .and_then(|p| p.get("reason"))
            .and_then(Value::as_str)
            .unwrap_or("none given");
        if let Some(id) = id {
            if let Some((task, cancel)) = self.lock().remove(&id) {
                cancel.cancel();
                task.abort();
                tracing::debug!(request_id = %id, reason, "request cancelled by the client");
            }
        }
    }

    /// Stop every request (the session ended).
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn cancel_all(&self) {
        for (_, (task, cancel)) in self.lock().drain() {
            cancel.cancel();
            task.abort();
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
        running.spawn(id.clone(), cancel.clone(), || {
            tokio::spawn(std::future::pending::<()>()).abort_handle()
        });
        assert!(!running.is_empty());
        let params = json!({"requestId": 7, "reason": "changed my mind"});
        running.cancel(params.as_object());
        assert!(cancel.is_cancelled());
        assert!(
            !running.finish(&id),
            "a cancelled request's response is not sent"
        );
        // Unknown and malformed names are ignored.
        running.cancel(json!({"requestId": 8}).as_object());
        running.cancel(json!({"requestId": {}}).as_object());
        running.cancel(None);
    }
}
