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
use crate::protocol::Params;
use crate::protocol::{RequestId, RpcError};
use crate::registry::uri::MAX_URI_BYTES;

use super::super::dispatch::Core;
use super::super::live::Change;

/// Most URIs one listen request may subscribe to.
pub const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

/// Most tasks one listen request may watch.
pub const MAX_TASK_SUBSCRIPTIONS: usize = 256;

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
    /// Tasks watched for `notifications/tasks`.
    tasks: Option<TaskWatch>,
}

/// The tasks a subscription watches: polled in the store (so a task another instance
/// runs is seen too), announced whenever their version changes, until they end.
struct TaskWatch {
    runtime: std::sync::Arc<crate::core::tasks::TaskRuntime>,
    owner: Option<String>,
    ids: Vec<String>,
    /// Version last announced, by task.
    seen: std::collections::HashMap<String, u64>,
    tick: tokio::time::Interval,
}

impl Core {
    /// Open a subscription for the listen request `id` with these params (`_meta` removed).
    pub fn listen(
        &self,
        id: &RequestId,
        params: &Params,
        takes_tasks: bool,
        principal: Option<&crate::policy::principal::Principal>,
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
        let task_ids = match asked.get("taskIds") {
            None | Some(Value::Null) => Vec::new(),
            Some(_) if !takes_tasks => return Err(crate::protocol::extensions::missing_tasks()),
            Some(Value::Array(items)) if items.len() <= MAX_TASK_SUBSCRIPTIONS => items
                .iter()
                .map(|item| match item.as_str() {
                    Some(id) if id.len() <= 256 => Ok(id.to_owned()),
                    _ => Err(RpcError::invalid_params(
                        "notifications.taskIds must be an array of task id strings",
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => {
                return Err(RpcError::invalid_params(format!(
                    "notifications.taskIds must be an array of at most {MAX_TASK_SUBSCRIPTIONS} task id strings"
                )))
            }
        };
        let tasks = match (&self.tasks, task_ids.is_empty()) {
            (Some(runtime), false) => {
                let mut tick = tokio::time::interval(runtime.config.poll_interval);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                Some(TaskWatch {
                    runtime: runtime.clone(),
                    owner: principal.map(|p| p.subject.clone()),
                    ids: task_ids,
                    seen: Default::default(),
                    tick,
                })
            }
            _ => None,
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
            tasks,
        })
    }
}

impl Subscription {
    /// The subscription (and listen request) id.
    // Public through the testing kit only.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
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
        if let Some(watch) = &self.tasks {
            honoured.insert("taskIds".into(), json!(watch.ids));
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
            let change = match &mut self.tasks {
                Some(watch) if !watch.ids.is_empty() => tokio::select! {
                    change = self.changes.recv() => change,
                    _ = watch.tick.tick() => {
                        let updates = watch.poll().await;
                        for task in updates {
                            let message = self.notification("notifications/tasks", task);
                            self.queue.push_back(message);
                        }
                        continue;
                    }
                },
                _ => self.changes.recv().await,
            };
            match change {
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

impl TaskWatch {
    /// The watched tasks that changed since last time, as `DetailedTask`s; tasks that
    /// ended (or are gone) are watched no more.
    async fn poll(&mut self) -> Vec<Map<String, Value>> {
        let mut updates = Vec::new();
        let mut done = Vec::new();
        for id in &self.ids {
            match self.runtime.visible(id, self.owner.as_deref()).await {
                Ok(task) => {
                    if self.seen.get(id) != Some(&task.version) {
                        self.seen.insert(id.clone(), task.version);
                        updates.push(crate::core::tasks::detailed(&task));
                    }
                    if task.status.is_terminal() {
                        done.push(id.clone());
                    }
                }
                Err(_) => done.push(id.clone()),
            }
        }
        self.ids.retain(|id| !done.contains(id));
        updates
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
