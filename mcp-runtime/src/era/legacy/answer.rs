//! A handshake-era response ready for a transport. A `tools/call` result that the
//! session's revision takes as the handler made it is written to the wire with its own
//! `Serialize`, without the JSON tree the reshaping of other results goes through.

use serde_json::Value;

use crate::protocol::jsonrpc::result_response;
use crate::protocol::{CallToolResult, RequestId};

/// A JSON-RPC response of a handshake-era session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Response {
    /// A response built as a JSON tree (errors, and results the revision reshapes).
    Tree(Value),
    /// A `tools/call` result already in the revision's shape.
    Tool(Box<ToolResponse>),
    /// An error refusing the caller for want of `scopes`, which an HTTP transport names
    /// in its 403's `insufficient_scope` challenge.
    Refused {
        /// The error response.
        message: Value,
        /// Every scope the refused action needs.
        scopes: Vec<String>,
    },
}

/// `{"jsonrpc": "2.0", "id": …, "result": …}` written from a tool's result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolResponse {
    pub(crate) id: RequestId,
    pub(crate) result: CallToolResult,
}

impl Response {
    /// The response as it goes on the wire.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let written = match self {
            Response::Tree(message) | Response::Refused { message, .. } => {
                serde_json::to_vec(message)
            }
            Response::Tool(tool) => tool.write(),
        };
        written.unwrap_or_else(|e| {
            // Only a map with non-string keys fails here, and a `Map` has none.
            tracing::error!("could not serialize a response: {e}");
            Vec::new()
        })
    }

    /// The scopes this response refuses its caller for want of (empty for any other).
    pub(crate) fn challenge_scopes(&self) -> &[String] {
        match self {
            Response::Refused { scopes, .. } => scopes,
            Response::Tree(_) | Response::Tool(_) => &[],
        }
    }

    /// The response as a JSON tree (a batch's answers are one array of them).
    pub(crate) fn into_message(self) -> Value {
        match self {
            Response::Tree(message) | Response::Refused { message, .. } => message,
            Response::Tool(tool) => {
                let ToolResponse { id, result } = *tool;
                match serde_json::to_value(&result) {
                    Ok(result) => result_response(&id, result),
                    Err(e) => crate::protocol::jsonrpc::error_response(
                        Some(&id),
                        &crate::protocol::RpcError::internal(format!(
                            "Internal error: the tool result could not be serialized: {e}"
                        )),
                    ),
                }
            }
        }
    }
}

impl ToolResponse {
    /// The response's bytes, the envelope's member names written as they are.
    fn write(&self) -> serde_json::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut out, &self.id)?;
        out.extend_from_slice(br#","result":"#);
        self.result.write_json(&mut out)?;
        out.push(b'}');
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map};

    use super::*;
    use crate::core::Reply;
    use crate::era::legacy::shape;
    use crate::protocol::Content;

    /// The message the reshaping of a JSON map gives the same result.
    fn through_a_tree(version: &str, id: &RequestId, result: CallToolResult) -> Value {
        let body = Reply::tool_body(result).unwrap();
        result_response(
            id,
            Value::Object(shape::result(version, "tools/call", body)),
        )
    }

    #[test]
    fn a_tool_result_written_directly_is_the_reshaped_message() {
        let mut meta = Map::new();
        meta.insert("k".into(), json!(1));
        let results = [
            CallToolResult::success(vec![Content::text("5")]),
            CallToolResult::structured(json!({"sum": 5})),
            CallToolResult::structured(json!(5)),
            CallToolResult::error("no"),
            CallToolResult {
                content: vec![Content::image(b"png", "image/png"), Content::text("t")],
                structured_content: Some(json!({"a": [1, 2]}).into()),
                is_error: false,
                meta: Some(meta),
            },
            CallToolResult::success(vec![Content::link("artifact://a", "export")]),
        ];
        let id = RequestId::Number(7.into());
        let mut written = 0;
        for version in crate::protocol::version::LEGACY_VERSIONS {
            for result in &results {
                let expected = through_a_tree(version, &id, result.clone());
                match shape::tool_result(version, result.clone()) {
                    Ok(shaped) => {
                        let response = Response::Tool(Box::new(ToolResponse {
                            id: id.clone(),
                            result: shaped,
                        }));
                        let sent: Value = serde_json::from_slice(&response.to_bytes()).unwrap();
                        assert_eq!(sent, expected, "{version}: {result:?}");
                        assert_eq!(response.into_message(), expected);
                        written += 1;
                    }
                    // Only a link for a revision before links is rewritten through the tree.
                    Err(_) => assert!(
                        *version < "2025-06-18"
                            && result
                                .content
                                .iter()
                                .any(|b| matches!(b, Content::ResourceLink(_)))
                    ),
                }
            }
        }
        assert!(written > results.len() * 2);
    }
}
