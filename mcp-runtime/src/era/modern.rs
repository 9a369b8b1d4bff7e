//! The 2026-07-28 adapter: per-request `_meta` admission and result rendering.

use serde_json::{Map, Value};
use tracing::Instrument as _;

use crate::core::{Call, ClientCapabilities, ContextParts, Core, Reply, RequestContext, Transport};
use crate::observe;
use crate::protocol::jsonrpc::{error_response, result_response};
use crate::protocol::{codes, meta, Implementation, RequestId, RpcError};

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
    Ok(Admission {
        protocol_version: version,
        capabilities,
        client_info,
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
    transport: Transport,
) -> Answer {
    let mut params = params.unwrap_or_default();
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let span = observe::request_span(transport, &method, name.as_deref(), &id);
    async move {
        let admission = match admit(core, &method, &mut params) {
            Ok(a) => a,
            Err((error, status)) => {
                observe::finish(&error_layer_of(&error), Some(&error));
                return Answer::error(Some(&id), &error, status);
            }
        };
        tracing::Span::current().record("protocol_version", admission.protocol_version.as_str());
        let ctx = RequestContext::new(
            ContextParts {
                request_id: id.clone(),
                method,
                name,
                protocol_version: admission.protocol_version,
                client_capabilities: admission.capabilities,
                client_info: admission.client_info,
                meta: admission.meta,
                transport,
            },
            core.states.clone(),
        );
        let reply = core.handle(Call { ctx, params }).await;
        render(core, &id, reply)
    }
    .instrument(span)
    .await
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
            let meta = body
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(
                    crate::protocol::meta::SERVER_INFO.into(),
                    serde_json::to_value(core.info()).unwrap_or(Value::Null),
                );
            }
            let is_error = body.get("isError") == Some(&Value::Bool(true));
            observe::finish(if is_error { "business" } else { "" }, None);
            Answer {
                message: result_response(id, Value::Object(body)),
                status: 200,
            }
        }
        Reply::Error(error) => {
            let status = status_of(&error);
            observe::finish(&error_layer_of(&error), Some(&error));
            Answer::error(Some(id), &error, status)
        }
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
        _ => 200,
    }
}

fn error_layer_of(error: &RpcError) -> String {
    match error.code {
        -32700..=-32600 => "jsonrpc".into(),
        _ => "mcp".into(),
    }
}
