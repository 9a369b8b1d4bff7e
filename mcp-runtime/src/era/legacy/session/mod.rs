//! One handshake-era connection: what `initialize` settled, the session-wide log level and
//! resource subscriptions, and the server's requests to the client awaiting answers.
//!
//! The requests to the client that a handler's input questions become are in [`bridge`];
//! resource subscriptions and forwarded notifications in [`subscriptions`].

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::core::{ClientCapabilities, ContextParts, Core, Reply, RequestContext, Resolved};
use crate::era::{Inbound, Started};
use crate::observe;
use crate::policy::auth::Principal;
use crate::protocol::jsonrpc::{error_response, result_response, Message};
use crate::protocol::meta::Meta;
use crate::protocol::method::Method;
use crate::protocol::{version, Implementation, LogLevel, Params, RequestId, RpcError};

use super::answer::{Response, ToolResponse};
use super::{shape, LegacyConfig};

mod bridge;
mod subscriptions;

/// A server-to-client request awaiting its answer.
type Waiting = oneshot::Sender<Result<Value, RpcError>>;

/// One handshake-era session.
pub(crate) struct Session {
    /// The negotiated revision.
    pub(crate) version: &'static str,
    capabilities: ClientCapabilities,
    client_info: Option<Arc<Implementation>>,
    /// The subject of the principal that opened the session; only it may use the session.
    owner: Option<String>,
    log_level: Mutex<Option<LogLevel>>,
    subscriptions: Mutex<BTreeSet<String>>,
    waiting: Mutex<HashMap<RequestId, Waiting>>,
    next_id: AtomicU64,
    /// Cancelled when the session ends (DELETE, expiry, end of the stdio stream).
    pub(crate) ended: CancellationToken,
    config: Arc<LegacyConfig>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock only means a task panicked mid-update; the data stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a portable session id carries: the negotiated session, so any instance that
/// shares the seal key can open it (sealed: the client can neither read nor change it).
#[derive(Serialize, Deserialize)]
pub(crate) struct Portable {
    version: String,
    capabilities: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_info: Option<Implementation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
    /// When the session was opened (ms since the epoch).
    opened_ms: u64,
}

impl Session {
    fn open(
        config: &Arc<LegacyConfig>,
        version: &'static str,
        capabilities: ClientCapabilities,
        client_info: Option<Arc<Implementation>>,
        owner: Option<String>,
    ) -> Arc<Session> {
        Arc::new(Session {
            version,
            capabilities,
            client_info,
            owner,
            log_level: Mutex::new(None),
            subscriptions: Mutex::default(),
            waiting: Mutex::default(),
            next_id: AtomicU64::new(1),
            ended: CancellationToken::new(),
            config: config.clone(),
        })
    }

    /// This session as a portable id would carry it.
    pub(crate) fn portable(&self, opened_ms: u64) -> Portable {
        Portable {
            version: self.version.to_owned(),
            capabilities: self.capabilities.as_map().clone(),
            client_info: self.client_info.as_deref().cloned(),
            owner: self.owner.clone(),
            opened_ms,
        }
    }

    /// Open the session a portable id describes on this instance (another one answered
    /// its `initialize`), if its revision is still spoken here; with its age in ms.
    pub(crate) fn restore(
        config: &Arc<LegacyConfig>,
        portable: Portable,
    ) -> Option<(Arc<Session>, u64)> {
        let version = config
            .versions
            .iter()
            .copied()
            .find(|v| *v == portable.version)?;
        Some((
            Session::open(
                config,
                version,
                ClientCapabilities::new(portable.capabilities),
                portable.client_info.map(Arc::new),
                portable.owner,
            ),
            portable.opened_ms,
        ))
    }

    /// Answer an `initialize` request: the new session and the `InitializeResult`.
    pub(crate) fn initialize(
        core: &Core,
        config: &Arc<LegacyConfig>,
        params: Option<&Params>,
        principal: Option<&Principal>,
    ) -> Result<(Arc<Session>, Value), RpcError> {
        let params = params.ok_or_else(|| {
            RpcError::invalid_params(
                "initialize needs params {protocolVersion, capabilities, clientInfo}",
            )
        })?;
        let requested = match params.get("protocolVersion") {
            Some(Value::String(v)) => v.as_str(),
            _ => {
                return Err(RpcError::invalid_params(
                    "initialize needs params.protocolVersion, the revision the client speaks",
                ))
            }
        };
        let capabilities = match params.get("capabilities") {
            Some(Value::Object(caps)) => ClientCapabilities::new(caps.clone()),
            None | Some(Value::Null) => ClientCapabilities::default(),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "initialize params.capabilities must be an object",
                ))
            }
        };
        let client_info = match params.get("clientInfo") {
            None | Some(Value::Null) => None,
            Some(info) => Some(
                serde_json::from_value::<Implementation>(info.clone()).map_err(|e| {
                    RpcError::invalid_params(format!(
                        "initialize params.clientInfo must be {{name, version}}: {e}"
                    ))
                })?,
            ),
        };
        let Some(version) = config.negotiate(requested) else {
            let supported = core.supported_versions();
            return Err(RpcError::invalid_params(format!(
                "This server does not accept the initialize handshake; it speaks protocol version(s) {} with per-request _meta",
                supported.join(", ")
            ))
            .with_data(json!({ "supported": supported })));
        };
        let session = Session::open(
            config,
            version,
            capabilities,
            client_info.map(Arc::new),
            principal.map(|p| p.subject.clone()),
        );
        let mut result = Map::new();
        result.insert("protocolVersion".into(), Value::String(version.into()));
        result.insert(
            "capabilities".into(),
            shape::capabilities(version, core.capabilities()),
        );
        result.insert(
            "serverInfo".into(),
            shape::server_info(version, core.info()),
        );
        if let Some(instructions) = &core.instructions {
            result.insert("instructions".into(), Value::String(instructions.clone()));
        }
        tracing::info!(
            requested,
            negotiated = version,
            client = session
                .client_info
                .as_ref()
                .map(|c| c.name.as_str())
                .unwrap_or(""),
            "handshake-era session opened"
        );
        Ok((session, Value::Object(result)))
    }

    /// Whether `principal` may use this session: the one that opened it.
    pub(crate) fn admits(&self, principal: Option<&Principal>) -> bool {
        self.owner.as_deref() == principal.map(|p| p.subject.as_str())
    }

    /// Serve one request of this session, its target looked up as it arrives; the
    /// JSON-RPC response.
    pub(crate) async fn handle_request(
        self: &Arc<Self>,
        core: &Core,
        id: RequestId,
        method: String,
        params: Option<Params>,
        meta: Option<Meta>,
        inbound: Inbound,
    ) -> Response {
        let target = core.resolve(&method, params.as_ref());
        self.handle_resolved(core, id, (method, params, meta), target, inbound)
            .await
    }

    /// Serve one request of this session; `target` is its method and target as resolved
    /// when it arrived.
    async fn handle_resolved(
        self: &Arc<Self>,
        core: &Core,
        id: RequestId,
        (method, params, meta): (String, Option<Params>, Option<Meta>),
        target: Resolved,
        inbound: Inbound,
    ) -> Response {
        let request = (method.as_str(), params, meta.as_ref());
        let Started {
            params,
            name,
            span,
            counted,
        } = crate::era::start(core, &inbound, &id, request, &target);
        span.record("mcp.protocol.version", self.version);
        async move {
            // A `_meta` that is no object is ignored, as older revisions define no use for it.
            let meta = meta.filter(Meta::is_object).unwrap_or_default();
            let reply = match target.method() {
                Some(Method::Initialize) => Reply::Error(RpcError::invalid_request(
                    "This session is already initialized; send initialize once per session",
                )),
                Some(Method::Ping) => empty(),
                Some(Method::SetLevel) => self.set_level(&params),
                Some(Method::ResourcesSubscribe) => {
                    let ctx = self.context(core, &id, &method, None, &meta, &inbound);
                    self.subscribe(core, &params, &target, &ctx)
                }
                Some(Method::ResourcesUnsubscribe) => self.unsubscribe(core, &params),
                // The stateless revision's own methods do not exist in a session.
                Some(method_of) if method_of.stateless_only() => {
                    Reply::Error(RpcError::method_not_found(&method))
                }
                _ => {
                    let request = (method.as_str(), name.as_deref(), params, meta);
                    self.call_core(core, &id, request, target, &inbound).await
                }
            };
            if let Some(notifier) = &inbound.notifier {
                notifier.close();
            }
            let ended = observe::finish_reply(&reply);
            counted.count(core, &method, ended);
            self.render(&id, &method, reply)
        }
        .instrument(span)
        .await
    }

    /// A JSON-RPC batch, which only 2025-03-26 has. Notifications and answers are taken at
    /// once (`cancel` gets the params of each `notifications/cancelled`); the returned
    /// future runs the requests together and gives the responses, errors for malformed
    /// members first (empty when the batch held no request). Refused whole in other
    /// revisions, or when empty.
    pub(crate) fn batch(
        self: &Arc<Self>,
        core: &Arc<Core>,
        items: Vec<Value>,
        inbound: impl Fn() -> Inbound,
        mut cancel: impl FnMut(Option<&Params>),
    ) -> Result<impl std::future::Future<Output = Vec<Value>> + Send + 'static, RpcError> {
        if self.version != version::BATCH_VERSION {
            return Err(RpcError::invalid_request(format!(
                "Batches are not part of protocol version {}; send one message at a time",
                self.version
            )));
        }
        if items.is_empty() {
            return Err(RpcError::invalid_request(
                "An empty batch is not a valid JSON-RPC message",
            ));
        }
        let mut answers = Vec::new();
        let mut pending = Vec::new();
        for item in items {
            match Message::from_value(item) {
                Err(malformed) => {
                    answers.push(error_response(malformed.id.as_ref(), &malformed.error))
                }
                Ok(Message::Notification { method, params, .. }) => {
                    if method == "notifications/cancelled" {
                        cancel(params.as_ref());
                    }
                    self.handle_notification(&method);
                }
                Ok(Message::Response { id, outcome }) => self.handle_response(id, outcome),
                Ok(Message::Request { id, method, .. }) if method == "initialize" => {
                    answers.push(error_response(
                        Some(&id),
                        &RpcError::invalid_request("initialize cannot be part of a batch"),
                    ))
                }
                Ok(Message::Request {
                    id,
                    method,
                    params,
                    meta,
                }) => {
                    let (session, core, inbound) = (self.clone(), core.clone(), inbound());
                    pending.push(async move {
                        session
                            .handle_request(&core, id, method, params, meta, inbound)
                            .await
                            .into_message()
                    });
                }
            }
        }
        Ok(async move {
            answers.extend(futures_util::future::join_all(pending).await);
            answers
        })
    }

    /// Take a notification from the client.
    pub(crate) fn handle_notification(&self, method: &str) {
        match method {
            "notifications/initialized" => {
                tracing::debug!(version = self.version, "the client finished the handshake")
            }
            "notifications/roots/list_changed" => {
                tracing::debug!(
                    "the client's roots changed; handlers ask again when they need them"
                )
            }
            // Cancellation is the transport's (it owns the tasks); progress and the rest
            // need no action.
            _ => {}
        }
    }

    /// Take the client's answer to one of the server's requests.
    pub(crate) fn handle_response(&self, id: Option<RequestId>, outcome: Result<Value, RpcError>) {
        let Some(id) = id else {
            tracing::debug!("ignoring a response without an id");
            return;
        };
        match lock(&self.waiting).remove(&id) {
            Some(waiting) => {
                let _ = waiting.send(outcome);
            }
            None => tracing::debug!(request_id = %id, "ignoring an answer to no pending request"),
        }
    }

    /// Give a reply this session's wire shape.
    pub(crate) fn render(&self, id: &RequestId, method: &str, reply: Reply) -> Response {
        let body = match reply {
            Reply::Result { body, .. } => Ok(body),
            // Written from the handler's result when the revision takes it as it is.
            Reply::Tool(result) => match shape::tool_result(self.version, result) {
                Ok(result) => {
                    return Response::Tool(Box::new(ToolResponse {
                        id: id.clone(),
                        result,
                    }))
                }
                Err(result) => Reply::tool_body(result),
            },
            // Older revisions reshape list entries, so the page is copied as a tree.
            Reply::Page {
                field,
                page,
                next_cursor,
                ..
            } => Ok(Reply::page_body(field, &page, next_cursor)),
            // The bridge turns input requests into requests to the client, and no task is
            // made for a handshake-era request; either escaping is a bug.
            Reply::InputRequired { .. } | Reply::Task { .. } => Err(RpcError::internal(
                "Internal error: unanswered input request",
            )),
            Reply::Error(error) => Err(error),
            Reply::Refused { error, scopes } => {
                return Response::Refused {
                    message: error_response(Some(id), &shape::error(error)),
                    scopes,
                }
            }
        };
        Response::Tree(match body {
            Ok(body) => {
                let body = shape::result(self.version, method, body);
                result_response(id, Value::Object(body))
            }
            Err(error) => error_response(Some(id), &shape::error(error)),
        })
    }

    fn context(
        &self,
        core: &Core,
        id: &RequestId,
        method: &str,
        name: Option<String>,
        meta: &Meta,
        inbound: &Inbound,
    ) -> RequestContext {
        let progress_token = meta
            .progress_token()
            .filter(|t| t.is_string() || t.is_number())
            .cloned();
        RequestContext::new(
            ContextParts {
                request_id: id.clone(),
                method: method.to_owned(),
                name,
                protocol_version: self.version,
                client_capabilities: self.capabilities.clone(),
                client_info: self.client_info.clone(),
                meta: meta.clone(),
                transport: inbound.transport,
                log_level: *lock(&self.log_level),
                progress_token,
                notifier: inbound.notifier.clone(),
                cancel: inbound.cancel.clone(),
                stop: inbound.stop.clone(),
                principal: inbound.principal.clone(),
                server: core.server_handle(),
            },
            core.states.clone(),
        )
    }

    fn set_level(&self, params: &Params) -> Reply {
        match params
            .get("level")
            .and_then(Value::as_str)
            .and_then(LogLevel::parse)
        {
            Some(level) => {
                *lock(&self.log_level) = Some(level);
                empty()
            }
            None => Reply::Error(RpcError::invalid_params(
                "logging/setLevel needs params.level: one of debug, info, notice, warning, error, critical, alert, emergency",
            )),
        }
    }
}

/// The empty result of a method that only changes the session.
pub(super) fn empty() -> Reply {
    Reply::Result {
        body: Map::new(),
        cache: None,
    }
}
