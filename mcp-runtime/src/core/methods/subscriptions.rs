//! `subscriptions/listen`: a long-lived request on which the server announces list changes
//! and resource updates, filtered to what the client asked for.
//!
//! The subscription id is the listen request's JSON-RPC id. The first message is the
//! acknowledgement naming the subset the server honours; every later notification carries
//! the id in `_meta`. Transports own the stream's lifetime: they end it when the client
//! cancels or disconnects, or when the server shuts down (then with a closing result).

use serde_json::{json, Map, Value};
use tokio::sync::broadcast;

use crate::protocol::jsonrpc::{notification, result_response};
use crate::protocol::meta::SUBSCRIPTION_ID;
use crate::protocol::{RequestId, RpcError};
use crate::registry::uri::MAX_URI_BYTES;

use super::super::dispatch::Core;
use super::super::live::Change;

/// Most URIs one listen request may subscribe to.
pub const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

#[derive(Debug, Clone, Default, PartialEq)]
struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

/// One open subscription.
pub struct Subscription {
    id: RequestId,
    filter: Filter,
    changes: broadcast::Receiver<Change>,
    /// Notifications decided but not yet handed out (a lag can produce several).
    queue: std::collections::VecDeque<Value>,
}

impl Core {
    /// Open a subscription for the listen request `id` with these params (`_meta` removed).
    pub fn listen(
        &self,
        id: &RequestId,
        params: &Map<String, Value>,
    ) -> Result<Subscription, RpcError> {
        let Some(Value::Object(asked)) = params.get("notifications") else {
            return Err(RpcError::invalid_params(
                "subscriptions/listen needs params.notifications, an object such as {\"toolsListChanged\": true}",
            ));
        };
        let flag = |key: &str| -> Result<bool, RpcError> {
            match asked.get(key) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(RpcError::invalid_params(format!(
                    "notifications.{key} must be a boolean"
                ))),
            }
        };
        let uris = match asked.get("resourceSubscriptions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                if items.len() > MAX_RESOURCE_SUBSCRIPTIONS {
                    return Err(RpcError::invalid_params(format!(
                        "notifications.resourceSubscriptions lists {} URIs; at most {MAX_RESOURCE_SUBSCRIPTIONS} are accepted",
                        items.len()
                    )));
                }
                items
                    .iter()
                    .map(|item| match item.as_str() {
                        Some(uri) if uri.len() <= MAX_URI_BYTES => Ok(uri.to_owned()),
                        _ => Err(RpcError::invalid_params(
                            "notifications.resourceSubscriptions must be an array of URI strings",
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "notifications.resourceSubscriptions must be an array of URI strings",
                ))
            }
        };
        // Honour only what this server can send.
        let served = self.live.load().served;
        let filter = Filter {
            tools: flag("toolsListChanged")? && served.tools,
            prompts: flag("promptsListChanged")? && served.prompts,
            resources: flag("resourcesListChanged")? && served.resources,
            uris: if served.resources { uris } else { Vec::new() },
        };
        Ok(Subscription {
            id: id.clone(),
            filter,
            changes: self.live.subscribe(),
            queue: Default::default(),
        })
    }
}

impl Subscription {
    /// The subscription (and listen request) id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    fn meta(&self) -> Value {
        let mut meta = Map::new();
        meta.insert(SUBSCRIPTION_ID.into(), json!(self.id));
        Value::Object(meta)
    }

    fn notification(&self, method: &str, mut params: Map<String, Value>) -> Value {
        params.insert("_meta".into(), self.meta());
        notification(method, Value::Object(params))
    }

    /// `notifications/subscriptions/acknowledged`, the first message of the stream.
    pub fn acknowledgement(&self) -> Value {
        let mut honoured = Map::new();
        for (on, key) in [
            (self.filter.tools, "toolsListChanged"),
            (self.filter.prompts, "promptsListChanged"),
            (self.filter.resources, "resourcesListChanged"),
        ] {
            if on {
                honoured.insert(key.into(), Value::Bool(true));
            }
        }
        if !self.filter.uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(self.filter.uris));
        }
        let mut params = Map::new();
        params.insert("notifications".into(), Value::Object(honoured));
        self.notification("notifications/subscriptions/acknowledged", params)
    }

    /// The response that ends the subscription gracefully.
    pub fn closing_result(&self) -> Value {
        result_response(
            &self.id,
            json!({"resultType": "complete", "_meta": self.meta()}),
        )
    }

    /// `notifications/cancelled` naming the listen request, which follows the closing
    /// result on stdio when the server tears the subscription down.
    pub fn cancellation(&self, reason: &str) -> Value {
        let mut params = Map::new();
        params.insert("requestId".into(), json!(self.id));
        params.insert("reason".into(), json!(reason));
        self.notification("notifications/cancelled", params)
    }

    /// The next notification for this subscription; `None` once the server is gone.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(next) = self.queue.pop_front() {
                return Some(next);
            }
            match self.changes.recv().await {
                Ok(change) => {
                    if let Some(message) = self.render(&change) {
                        return Some(message);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    // Changes were missed: announce everything subscribed, which is never
                    // wrong (clients re-list or re-read).
                    tracing::debug!(missed, subscription = %self.id, "listener lagged behind");
                    for change in [Change::Tools, Change::Prompts, Change::Resources] {
                        if let Some(message) = self.render(&change) {
                            self.queue.push_back(message);
                        }
                    }
                    for uri in self.filter.uris.clone() {
                        if let Some(message) = self.render(&Change::ResourceUpdated(uri)) {
                            self.queue.push_back(message);
                        }
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    fn render(&self, change: &Change) -> Option<Value> {
        match change {
            Change::Tools if self.filter.tools => {
                Some(self.notification("notifications/tools/list_changed", Map::new()))
            }
            Change::Prompts if self.filter.prompts => {
                Some(self.notification("notifications/prompts/list_changed", Map::new()))
            }
            Change::Resources if self.filter.resources => {
                Some(self.notification("notifications/resources/list_changed", Map::new()))
            }
            Change::ResourceUpdated(uri) if self.covers(uri) => {
                let mut params = Map::new();
                params.insert("uri".into(), Value::String(uri.clone()));
                Some(self.notification("notifications/resources/updated", params))
            }
            _ => None,
        }
    }

    fn covers(&self, uri: &str) -> bool {
        self.filter.uris.iter().any(|sub| covers(sub, uri))
    }
}

/// Whether a subscription to `subscribed` covers an update of `uri`: the same URI, or one
/// below it in the path hierarchy.
pub(crate) fn covers(subscribed: &str, uri: &str) -> bool {
    uri == subscribed
        || uri
            .strip_prefix(subscribed)
            .is_some_and(|rest| subscribed.ends_with('/') || rest.starts_with('/'))
}
