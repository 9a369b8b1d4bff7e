//! The session's resource subscriptions and the notifications it forwards: list changes,
//! and updates of the resources it subscribes to.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::core::live::Change;
use crate::core::methods::subscriptions::{covers, MAX_RESOURCE_SUBSCRIPTIONS};
use crate::core::{Core, FrameSink, Reply, RequestContext, Resolved};
use crate::protocol::jsonrpc::notification;
use crate::protocol::{Params, RpcError};
use crate::registry::uri::MAX_URI_BYTES;

use super::{empty, lock, Session};

impl Session {
    fn subscription_uri(core: &Core, params: &Params) -> Result<String, Reply> {
        if !core.serves("resources/read") {
            return Err(Reply::Error(RpcError::method_not_found(
                "resources/subscribe",
            )));
        }
        match params.get("uri") {
            Some(Value::String(uri)) if uri.len() <= MAX_URI_BYTES => Ok(uri.clone()),
            Some(Value::String(_)) => Err(Reply::Error(RpcError::invalid_params(format!(
                "The URI is longer than {MAX_URI_BYTES} bytes"
            )))),
            _ => Err(Reply::Error(RpcError::invalid_params(
                "params.uri must be the resource's URI as a string",
            ))),
        }
    }

    /// Subscribe to a resource the caller may read: one it may not see does not exist for
    /// it, here as in `resources/read`.
    pub(super) fn subscribe(
        &self,
        core: &Core,
        params: &Params,
        target: &Resolved,
        ctx: &RequestContext,
    ) -> Reply {
        let uri = match Self::subscription_uri(core, params) {
            Ok(uri) => uri,
            Err(reply) => return reply,
        };
        let seen = target
            .resource()
            .is_some_and(|(resource, _)| core.sees(ctx, &resource.listed()));
        if !seen {
            return Reply::Error(RpcError::resource_not_found(&uri));
        }
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.len() >= MAX_RESOURCE_SUBSCRIPTIONS && !subscriptions.contains(&uri) {
            return Reply::Error(RpcError::invalid_params(format!(
                "This session already subscribes to {MAX_RESOURCE_SUBSCRIPTIONS} resources; unsubscribe from some first"
            )));
        }
        subscriptions.insert(uri);
        empty()
    }

    pub(super) fn unsubscribe(&self, core: &Core, params: &Params) -> Reply {
        match Self::subscription_uri(core, params) {
            Ok(uri) => {
                lock(&self.subscriptions).remove(&uri);
                empty()
            }
            Err(reply) => reply,
        }
    }

    /// Send list changes and updates of subscribed resources to `sink` until the session
    /// ends or the server goes away.
    pub(crate) fn forward_changes(
        self: Arc<Self>,
        core: &Core,
        sink: Arc<dyn FrameSink>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        // Subscribed now, not when the task first runs: a change made by the session's
        // first request, which may run before that task does, is not missed.
        let mut changes = core.live.subscribe();
        async move {
            loop {
                let change = tokio::select! {
                    _ = self.ended.cancelled() => return,
                    change = changes.recv() => change,
                };
                let messages = match change {
                    Ok(change) => self.announce(&change).into_iter().collect::<Vec<_>>(),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Changes were missed: announce everything, which is never wrong.
                        let mut all: Vec<Value> =
                            [Change::Tools, Change::Prompts, Change::Resources]
                                .iter()
                                .filter_map(|c| self.announce(c))
                                .collect();
                        let uris: Vec<String> = lock(&self.subscriptions).iter().cloned().collect();
                        all.extend(
                            uris.into_iter()
                                .filter_map(|u| self.announce(&Change::ResourceUpdated(u))),
                        );
                        all
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                for message in messages {
                    if let Ok(bytes) = serde_json::to_vec(&message) {
                        if !sink.offer(bytes) {
                            tracing::debug!("dropped a session notification: the client is behind");
                        }
                    }
                }
            }
        }
    }

    fn announce(&self, change: &Change) -> Option<Value> {
        let method = match change {
            Change::Tools => "notifications/tools/list_changed",
            Change::Prompts => "notifications/prompts/list_changed",
            Change::Resources => "notifications/resources/list_changed",
            Change::ResourceUpdated(uri) => {
                let subscribed = lock(&self.subscriptions).iter().any(|s| covers(s, uri));
                return subscribed.then(|| {
                    notification("notifications/resources/updated", json!({ "uri": uri }))
                });
            }
        };
        Some(notification(method, json!({})))
    }
}
