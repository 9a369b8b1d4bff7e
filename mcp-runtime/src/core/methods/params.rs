//! Reading a method's params and shaping its reply: the checks and messages the method
//! families share.

use serde_json::{json, Map, Value};

use crate::protocol::Params;
use crate::protocol::RpcError;

use super::super::dispatch::{CacheHints, Reply};
use super::super::Resolved;

/// -32602 for a tool or prompt name that is not served, with the name in `data`.
pub(crate) fn unknown_name(kind: &str, name: &str) -> Reply {
    Reply::Error(
        RpcError::invalid_params(format!("Unknown {kind}: {name}"))
            .with_data(json!({ "name": name })),
    )
}

/// What the catalog serves under the request's target (`found`, as resolved when it
/// arrived), or the reply: -32602 with `need` when the params name no target, "Unknown
/// {kind}" when they name one that is not served.
pub(crate) fn served<'t, T>(
    found: Option<&'t T>,
    params: &Params,
    target: &Resolved,
    (kind, need): (&str, &str),
) -> Result<&'t T, Reply> {
    match (found, params.target(target.method())) {
        (Some(found), _) => Ok(found),
        (None, Some(name)) => Err(unknown_name(kind, name)),
        (None, None) => Err(Reply::Error(RpcError::invalid_params(need.to_owned()))),
    }
}

/// `params[key]` as a string, or -32602 with `need` (what the method wants there).
pub(crate) fn string_param(params: &Params, key: &str, need: &str) -> Result<String, Reply> {
    match params.get(key) {
        Some(Value::String(value)) => Ok(value.clone()),
        _ => Err(Reply::Error(RpcError::invalid_params(need.to_owned()))),
    }
}

/// Take `params[key]` out as a string (moved, not copied), or -32602 with `need`.
pub(crate) fn take_string_param(
    params: &mut Params,
    key: &str,
    need: &str,
) -> Result<String, Reply> {
    match params.remove(key) {
        Some(Value::String(value)) => Ok(value),
        _ => Err(Reply::Error(RpcError::invalid_params(need.to_owned()))),
    }
}

/// Take `params.arguments` as an object (absent or null is empty), or -32602 with `need`.
pub(crate) fn arguments_param(
    params: &mut Params,
    need: &str,
) -> Result<Map<String, Value>, Reply> {
    match params.remove("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(args)) => Ok(args),
        Some(_) => Err(Reply::Error(RpcError::invalid_params(need.to_owned()))),
    }
}

/// A handler's result as a complete reply; `what` names it if it cannot be serialized.
pub(crate) fn complete_reply<T: serde::Serialize>(
    result: T,
    what: &str,
    cache: Option<CacheHints>,
) -> Reply {
    match serde_json::to_value(result) {
        Ok(Value::Object(body)) => Reply::Result { body, cache },
        _ => Reply::Error(RpcError::internal(format!(
            "Internal error: the {what} could not be serialized"
        ))),
    }
}
