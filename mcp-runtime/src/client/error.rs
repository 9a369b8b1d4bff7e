//! How a client call fails, in the four layers the server's traces and metrics use too:
//! transport, jsonrpc, mcp, business.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::protocol::answers::{Stop, Unanswered};
use crate::protocol::codes;
use crate::protocol::typed::Untyped;

/// Why a [`Client`](super::Client) call did not give a result. Each variant belongs to one
/// [`Layer`]: see [`ClientError::layer`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ClientError {
    /// The connection failed: the process could not start or exited, the HTTP request
    /// failed, the server refused the caller (HTTP 401 or 403: `status` holds it), or it
    /// answered with another HTTP error status and no JSON-RPC error in the body. Layer:
    /// transport.
    Transport {
        /// What happened, for people.
        message: String,
        /// The HTTP status, when the server answered with one.
        status: Option<u16>,
    },
    /// The operation did not finish within its deadline (see
    /// [`ClientBuilder::timeout`](super::ClientBuilder::timeout)). The client cancelled the
    /// request (over stdio with `notifications/cancelled`, over HTTP by closing the
    /// response). Layer: transport.
    Timeout {
        /// The method that timed out.
        method: String,
        /// The deadline it had.
        after: Duration,
    },
    /// The client was closed with [`Client::close`](super::Client::close). Layer:
    /// transport.
    Closed,
    /// The server sent more than the client's [`Limits`](super::Limits) allow: a message
    /// too large, too many pages, rounds or questions. The client stopped reading there and
    /// kept no more than the limit. Layer: transport.
    LimitExceeded {
        /// The limit, named as the [`Limits`](super::Limits) method that sets it
        /// (`max_message_bytes`, `max_pages`, ...).
        limit: &'static str,
        /// Its value.
        value: u64,
        /// What went past it, for people.
        message: String,
    },
    /// A JSON-RPC error about the message itself: parse error (-32700), invalid request
    /// (-32600), method not found (-32601). Layer: jsonrpc.
    JsonRpc {
        /// The error code.
        code: i64,
        /// The server's message.
        message: String,
        /// The error's `data`, if any.
        data: Option<Value>,
    },
    /// The server sent something the protocol does not allow: not JSON, not a JSON-RPC
    /// message, a `resultType` this client does not know, or more `input_required` rounds
    /// than a client answers. Layer: jsonrpc.
    Malformed {
        /// What was wrong.
        message: String,
    },
    /// Any other JSON-RPC error: an MCP protocol error (invalid params such as an unknown
    /// tool, -32020 header mismatch, -32021 missing client capability, -32022 unsupported
    /// version, internal error) or one of the server's own codes. Layer: mcp.
    Mcp {
        /// The error code.
        code: i64,
        /// The server's message.
        message: String,
        /// The error's `data`, if any.
        data: Option<Value>,
    },
    /// The server asked a question (`method`: `elicitation/create`,
    /// `sampling/createMessage` or `roots/list`) this client has no handler for (see
    /// [`ClientBuilder::on_elicit`](super::ClientBuilder::on_elicit) and its siblings).
    /// `params` is what it asked. Layer: mcp.
    InputUnanswered {
        /// The method of the question.
        method: String,
        /// The question's params.
        params: Value,
    },
    /// The tool's result is not what the caller asked to read it as
    /// ([`Client::call_tool_as`](super::Client::call_tool_as)): it has no
    /// `structuredContent`, or its `structuredContent` does not deserialize into the type.
    /// Layer: mcp.
    UnexpectedResult {
        /// What was expected and what was wrong, with the deserializer's error.
        message: String,
        /// The whole `CallToolResult`.
        result: Value,
    },
    /// The tool ran and reported failure: the whole `CallToolResult`, with
    /// `isError: true` (only [`Client::call_tool`](super::Client::call_tool) and
    /// [`Client::call_tool_as`](super::Client::call_tool_as) give it). Layer: business.
    Business(Value),
}

/// The four layers an error can come from, named as the server's traces and metrics name
/// them (`error_layer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// The connection: process, socket, HTTP status, timeout.
    Transport,
    /// The JSON-RPC message itself.
    JsonRpc,
    /// The MCP protocol: params, capabilities, versions, headers, the server's own codes.
    Mcp,
    /// The tool's own failure (`isError: true`).
    Business,
}

impl Layer {
    /// The layer's label: `transport`, `jsonrpc`, `mcp` or `business`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Transport => "transport",
            Layer::JsonRpc => "jsonrpc",
            Layer::Mcp => "mcp",
            Layer::Business => "business",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ClientError {
    /// The layer this error belongs to.
    pub fn layer(&self) -> Layer {
        match self {
            ClientError::Transport { .. }
            | ClientError::Timeout { .. }
            | ClientError::Closed
            | ClientError::LimitExceeded { .. } => Layer::Transport,
            ClientError::JsonRpc { .. } | ClientError::Malformed { .. } => Layer::JsonRpc,
            ClientError::Mcp { .. }
            | ClientError::InputUnanswered { .. }
            | ClientError::UnexpectedResult { .. } => Layer::Mcp,
            ClientError::Business(_) => Layer::Business,
        }
    }

    /// The JSON-RPC error code, for errors the server sent as one.
    pub fn code(&self) -> Option<i64> {
        match self {
            ClientError::JsonRpc { code, .. } | ClientError::Mcp { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The error of a JSON-RPC error response's `error` member, in its layer.
    pub(crate) fn from_rpc(error: &Value) -> ClientError {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let data = error.get("data").cloned();
        match code {
            codes::PARSE_ERROR | codes::INVALID_REQUEST | codes::METHOD_NOT_FOUND => {
                ClientError::JsonRpc {
                    code,
                    message,
                    data,
                }
            }
            _ => ClientError::Mcp {
                code,
                message,
                data,
            },
        }
    }

    pub(crate) fn transport(message: impl Into<String>) -> ClientError {
        ClientError::Transport {
            message: message.into(),
            status: None,
        }
    }

    pub(crate) fn limit(
        limit: &'static str,
        value: usize,
        message: impl Into<String>,
    ) -> ClientError {
        ClientError::LimitExceeded {
            limit,
            value: u64::try_from(value).unwrap_or(u64::MAX),
            message: message.into(),
        }
    }

    pub(crate) fn malformed(message: impl Into<String>) -> ClientError {
        ClientError::Malformed {
            message: message.into(),
        }
    }

    /// Why the rounds of `method` stopped short of a final result, within `limits`.
    pub(crate) fn stopped(stop: Stop, method: &str, limits: &super::Limits) -> ClientError {
        match stop {
            Stop::Unanswered(unanswered) => unanswered.into(),
            Stop::TooManyQuestions(asked) => ClientError::limit(
                "max_questions",
                limits.questions,
                format!(
                    "the server asked {asked} questions in one round; none was put to a handler"
                ),
            ),
            Stop::TooManyRounds(rounds) => ClientError::limit(
                "max_rounds",
                rounds,
                format!("the server still asked for input after {rounds} rounds of {method}"),
            ),
            Stop::UnknownResult(kind) => ClientError::malformed(format!(
                "a result of type {kind:?}, which this client did not ask for"
            )),
            Stop::Malformed => ClientError::malformed(
                "an input_required result whose inputRequests is not an object",
            ),
        }
    }

    /// Why `result`, the result of the tool `name`, is not a `T`.
    pub(crate) fn untyped<T>(untyped: Untyped, name: &str, result: Value) -> ClientError {
        let wanted = std::any::type_name::<T>();
        let message = match untyped {
            Untyped::ToolError => return ClientError::Business(result),
            Untyped::NoStructuredContent => {
                format!("{name} returned no structured content to read as a {wanted}")
            }
            Untyped::NotThisType(error) => {
                format!("the structured content {name} returned is not a {wanted}: {error}")
            }
        };
        ClientError::UnexpectedResult { message, result }
    }
}

impl From<Unanswered> for ClientError {
    fn from(unanswered: Unanswered) -> ClientError {
        ClientError::InputUnanswered {
            method: unanswered.method,
            params: unanswered.params,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Transport {
                message,
                status: Some(status),
            } => write!(f, "transport error (HTTP {status}): {message}"),
            ClientError::Transport { message, .. } => write!(f, "transport error: {message}"),
            ClientError::Timeout { method, after } => {
                write!(f, "{method}: not done within its deadline of {after:?}")
            }
            ClientError::LimitExceeded {
                limit,
                value,
                message,
            } => write!(f, "transport error: {message} (limit {limit} = {value})"),
            ClientError::Closed => f.write_str("the client is closed"),
            ClientError::JsonRpc { code, message, .. } => {
                write!(f, "JSON-RPC error {code}: {message}")
            }
            ClientError::Malformed { message } => {
                write!(f, "the server broke the protocol: {message}")
            }
            ClientError::Mcp { code, message, .. } => write!(f, "MCP error {code}: {message}"),
            ClientError::InputUnanswered { method, .. } => write!(
                f,
                "the server asked {method}, and this client has no handler for it"
            ),
            ClientError::UnexpectedResult { message, .. } => f.write_str(message),
            ClientError::Business(result) => {
                let text = result
                    .pointer("/content/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or("(no text)");
                write!(f, "the tool reported an error: {text}")
            }
        }
    }
}

impl std::error::Error for ClientError {}
