//! A core [`Reply`] in the 2026-07-28 wire shape, and the HTTP status of an error.

use serde_json::{Map, Value};

use crate::core::{Core, Reply};
use crate::protocol::{codes, RequestId, RpcError};

use super::answer::Answer;

/// Give a core reply the 2026-07-28 wire shape.
pub(crate) fn render(core: &Core, id: RequestId, reply: Reply) -> Answer {
    let info = core.info_json();
    match reply {
        Reply::Result { body, cache } => Answer::result(info, id, "complete", body, cache),
        Reply::Tool(result) => Answer::tool(info, id, result),
        Reply::Page {
            field,
            page,
            next_cursor,
            cache,
        } => Answer::page(info, id, (field, page), next_cursor, cache),
        Reply::InputRequired { requests, state } => {
            let mut body = Map::new();
            if !requests.is_empty() {
                body.insert("inputRequests".into(), Value::Object(requests));
            }
            body.insert("requestState".into(), Value::String(state));
            Answer::result(info, id, "input_required", body, None)
        }
        Reply::Task { body } => Answer::result(info, id, "task", body, None),
        Reply::Error(error) => {
            let status = status_of(&error);
            Answer::error(Some(&id), &error, status)
        }
        // 403: the transport adds its `insufficient_scope` challenge naming `scopes`.
        Reply::Refused { error, scopes } => Answer::refused(&id, &error, scopes),
    }
}

/// HTTP status for a JSON-RPC error from the core (a refusal for want of scopes is a
/// [`Reply::Refused`], 403).
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
