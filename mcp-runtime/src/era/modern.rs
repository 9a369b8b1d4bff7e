//! The 2026-07-28 adapter: per-request `_meta` admission and result rendering.

use serde_json::{Map, Value};
use tracing::Instrument as _;

use crate::core::{Call, ClientCapabilities, ContextParts, Core, Reply, RequestContext};
use crate::observe::{self, Outcome};
use crate::protocol::jsonrpc::{error_response, result_response};
use crate::protocol::{codes, meta, Implementation, LogLevel, RequestId, RpcError};

pub use super::Inbound;

/// A response ready for a transport, with the HTTP status the specification asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The JSON-RPC response.
    pub message: Value,
    /// HTTP status (200, or 400/404 for the errors the specification maps).
    pub status: u16,
}

impl Answer {
    /// An error answer.
    pub fn error(id: Option<&RequestId>, error: &RpcError, status: u16) -> Self {
        Answer {
            message: error_response(id, error),
            status,
        }
    }
}

/// The admitted `_meta` of one request.
pub(crate) struct Admission {
    pub(crate) protocol_version: String,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) client_info: Option<Implementation>,
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) progress_token: Option<Value>,
    pub(crate) meta: Map<String, Value>,
}

/// Read and check the per-request `_meta`. Errors carry their HTTP status.
pub(crate) fn admit(
    core: &Core,
    method: &str,
    params: &mut Map<String, Value>,
) -> Result<Admission, (RpcError, u16)> {
    let meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => meta,
        Some(_) => return Err((RpcError::invalid_params("params._meta must be an object"), 400)),
        None => {
            return Err((
                missing_meta(core, method, "params._meta is missing; every request carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in it"),
                400,
            ))
        }
    };
    let version = match meta.get(meta::PROTOCOL_VERSION) {
        Some(Value::String(v)) => v.clone(),
        Some(_) => {
            return Err((
                RpcError::invalid_params(format!(
                    "_meta[\"{}\"] must be a string",
                    meta::PROTOCOL_VERSION
                )),
                400,
            ))
        }
        None => {
            return Err((
                missing_meta(
                    core,
                    method,
                    &format!("_meta[\"{}\"] is missing", meta::PROTOCOL_VERSION),
                ),
                400,
            ))
        }
    };
    if !core.supported_versions().contains(&version.as_str()) {
        return Err((
            RpcError::unsupported_version(core.supported_versions(), &version),
            400,
        ));
    }
    if !core.serves(method) {
        return Err((RpcError::method_not_found(method), 404));
    }
    let capabilities = match meta.get(meta::CLIENT_CAPABILITIES) {
        Some(Value::Object(caps)) => ClientCapabilities::new(caps.clone()),
        Some(_) => {
            return Err((
                RpcError::invalid_params(format!(
                    "_meta[\"{}\"] must be an object",
                    meta::CLIENT_CAPABILITIES
                )),
                400,
            ))
        }
        None => {
            return Err((
                RpcError::invalid_params(format!(
                    "_meta[\"{}\"] is missing (send {{}} when the client declares none)",
                    meta::CLIENT_CAPABILITIES
                )),
                400,
            ))
        }
    };
    let client_info = match meta.get(meta::CLIENT_INFO) {
        None => None,
        Some(value) => match serde_json::from_value::<Implementation>(value.clone()) {
            Ok(info) => Some(info),
            Err(e) => {
                return Err((
                    RpcError::invalid_params(format!(
                        "_meta[\"{}\"] is malformed: {e}",
                        meta::CLIENT_INFO
                    )),
                    400,
                ))
            }
        },
    };
    let log_level = match meta.get(meta::LOG_LEVEL) {
        None => None,
        Some(value) => match value.as_str().and_then(LogLevel::parse) {
            Some(level) => Some(level),
            None => {
                return Err((
                    RpcError::invalid_params(format!(
                        "_meta[\"{}\"] must be one of debug, info, notice, warning, error, critical, alert, emergency",
                        meta::LOG_LEVEL
                    )),
                    200,
                ))
            }
        },
    };
    let progress_token = match meta.get(meta::PROGRESS_TOKEN) {
        None => None,
        Some(token @ (Value::String(_) | Value::Number(_))) => Some(token.clone()),
        Some(_) => {
            return Err((
                RpcError::invalid_params("_meta.progressToken must be a string or an integer"),
                200,
            ))
        }
    };
    Ok(Admission {
        protocol_version: version,
        capabilities,
        client_info,
        log_level,
        progress_token,
        meta,
    })
}

fn missing_meta(core: &Core, method: &str, detail: &str) -> RpcError {
    if method == "initialize" {
        // A handshake-era client: say which revisions we speak, since it cannot fall forward.
        RpcError::invalid_params(format!(
            "This server does not use the initialize handshake; it speaks protocol version(s) {} with per-request _meta",
            core.supported_versions().join(", ")
        ))
        .with_data(serde_json::json!({ "supported": core.supported_versions() }))
    } else if cfg!(feature = "legacy") {
        RpcError::invalid_params(format!(
            "{detail} (a handshake-era client sends initialize first)"
        ))
    } else {
        RpcError::invalid_params(detail.to_owned())
    }
}

/// Serve one request end to end in the modern era.
pub async fn handle_request(
    core: &Core,
    id: RequestId,
    method: String,
    params: Option<Map<String, Value>>,
    inbound: Inbound,
) -> Answer {
    let started = std::time::Instant::now();
    let mut params = params.unwrap_or_default();
    let name = crate::era::target_of(&params);
    let span = observe::request_span(core, inbound.transport, &method, name.as_deref(), &id);
    observe::continue_trace(&span, params.get("_meta"));
    async move {
        let admission = match admit(core, &method, &mut params) {
            Ok(a) => a,
            Err((error, status)) => {
                let outcome = Outcome::of_error(&error);
                observe::finish(outcome, Some(&error));
                observe::count(core, &method, name.as_deref(), outcome, started);
                return Answer::error(Some(&id), &error, status);
            }
        };
        tracing::Span::current().record("protocol_version", admission.protocol_version.as_str());
        let ctx = context(core, &id, method, name, admission, inbound);
        let (method, name) = (ctx.method(), ctx.name());
        let reply = core
            .handle(Call {
                ctx: ctx.clone(),
                params,
            })
            .await;
        // Nothing may follow the response for this request.
        if let Some(notifier) = ctx.notifier() {
            notifier.close();
        }
        let outcome = observe::finish_reply(&reply);
        observe::count(core, method, name, outcome, started);
        render(core, &id, reply)
    }
    .instrument(span)
    .await
}

pub(crate) fn context(
    core: &Core,
    id: &RequestId,
    method: String,
    name: Option<String>,
    admission: Admission,
    inbound: Inbound,
) -> RequestContext {
    RequestContext::new(
        ContextParts {
            request_id: id.clone(),
            method,
            name,
            protocol_version: admission.protocol_version,
            client_capabilities: admission.capabilities,
            client_info: admission.client_info,
            meta: admission.meta,
            transport: inbound.transport,
            log_level: admission.log_level,
            progress_token: admission.progress_token,
            notifier: inbound.notifier,
            cancel: inbound.cancel,
            stop: inbound.stop,
            principal: inbound.principal,
            server: core.handle_to_server(),
        },
        core.states.clone(),
    )
}

/// Admit a `subscriptions/listen` request and open its subscription, or the error answer.
pub fn listen(
    core: &Core,
    id: &RequestId,
    params: Option<Map<String, Value>>,
    principal: Option<&crate::Principal>,
) -> Result<crate::core::Subscription, Answer> {
    let mut params = params.unwrap_or_default();
    let admission = admit(core, "subscriptions/listen", &mut params)
        .map_err(|(error, status)| Answer::error(Some(id), &error, status))?;
    let takes_tasks = admission
        .capabilities
        .has_extension(crate::tasks::EXTENSION);
    core.listen(id, &params, takes_tasks, principal)
        .map_err(|error| Answer::error(Some(id), &error, status_of(&error)))
}

/// Whether a request may produce notifications worth a streamed (SSE) response: the
/// client asked for progress or log messages.
pub fn wants_stream(params: Option<&Map<String, Value>>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(meta::PROGRESS_TOKEN) || m.contains_key(meta::LOG_LEVEL))
}

/// Give a core reply the 2026-07-28 wire shape.
pub(crate) fn render(core: &Core, id: &RequestId, reply: Reply) -> Answer {
    match reply {
        Reply::Complete { mut body, cache } => {
            body.insert("resultType".into(), Value::String("complete".into()));
            if let Some(cache) = cache {
                body.insert("ttlMs".into(), Value::from(cache.ttl_ms()));
                body.insert(
                    "cacheScope".into(),
                    serde_json::to_value(cache.scope).unwrap_or(Value::Null),
                );
            }
            add_server_info(core, &mut body);
            Answer {
                message: result_response(id, Value::Object(body)),
                status: 200,
            }
        }
        Reply::InputRequired { requests, state } => {
            let mut body = Map::new();
            body.insert("resultType".into(), Value::String("input_required".into()));
            if !requests.is_empty() {
                body.insert("inputRequests".into(), Value::Object(requests));
            }
            body.insert("requestState".into(), Value::String(state));
            add_server_info(core, &mut body);
            Answer {
                message: result_response(id, Value::Object(body)),
                status: 200,
            }
        }
        Reply::Task { mut body } => {
            body.insert("resultType".into(), Value::String("task".into()));
            add_server_info(core, &mut body);
            Answer {
                message: result_response(id, Value::Object(body)),
                status: 200,
            }
        }
        Reply::Error(error) => {
            let status = status_of(&error);
            Answer::error(Some(id), &error, status)
        }
    }
}

/// `_meta["io.modelcontextprotocol/serverInfo"]` on a result, beside any `_meta` the
/// handler set.
fn add_server_info(core: &Core, body: &mut Map<String, Value>) {
    let meta = body
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(
            crate::protocol::meta::SERVER_INFO.into(),
            core.info_value().clone(),
        );
    }
}

/// HTTP status for a JSON-RPC error from the core.
pub fn status_of(error: &RpcError) -> u16 {
    match error.code {
        codes::METHOD_NOT_FOUND => 404,
        codes::HEADER_MISMATCH
        | codes::MISSING_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION => 400,
        codes::PARSE_ERROR | codes::INVALID_REQUEST => 400,
        codes::RATE_LIMITED => 429,
        codes::SHUTTING_DOWN => 503,
        _ => 200,
    }
}
