//! JSON-RPC 2.0 framing: one message is one JSON object.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::RpcError;

/// A request id: a string or a number, echoed verbatim (its JSON type is preserved).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id, kept as the JSON number it arrived as.
    Number(serde_json::Number),
    /// A string id.
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A classified inbound message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: has `method` and a non-null `id`.
    Request {
        /// The id to echo.
        id: RequestId,
        /// The method name.
        method: String,
        /// `params`, an object when present.
        params: Option<Map<String, Value>>,
    },
    /// A notification: `method` without `id`.
    Notification {
        /// The method name.
        method: String,
        /// `params`, an object when present.
        params: Option<Map<String, Value>>,
    },
    /// A response: the client answering a request the server sent (handshake era only).
    Response {
        /// The id it answers, if readable.
        id: Option<RequestId>,
        /// The `result`, or the `error` object (an unreadable error becomes -32603).
        outcome: Result<Value, RpcError>,
    },
}

/// Why an inbound value is not a JSON-RPC message, with the id when one could be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    /// The id, if the value carried a readable one.
    pub id: Option<RequestId>,
    /// The error to answer with.
    pub error: RpcError,
}

impl Message {
    /// Classify a parsed JSON value, checking the JSON-RPC 2.0 envelope.
    pub fn from_value(value: Value) -> Result<Message, Malformed> {
        let mut obj = match value {
            Value::Object(obj) => obj,
            Value::Array(_) => {
                return Err(Malformed {
                    id: None,
                    error: RpcError::invalid_request(
                        "Batches are not supported: send one JSON-RPC message per frame",
                    ),
                })
            }
            _ => {
                return Err(Malformed {
                    id: None,
                    error: RpcError::invalid_request("A JSON-RPC message must be a JSON object"),
                })
            }
        };
        let id = match obj.remove("id") {
            None => None,
            Some(Value::Null) => {
                return Err(Malformed {
                    id: None,
                    error: RpcError::invalid_request("The request id must not be null"),
                })
            }
            Some(v) => match serde_json::from_value::<RequestId>(v) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err(Malformed {
                        id: None,
                        error: RpcError::invalid_request(
                            "The request id must be a string or a number",
                        ),
                    })
                }
            },
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(Malformed {
                id,
                error: RpcError::invalid_request("The jsonrpc member must be \"2.0\""),
            });
        }
        let method = match obj.remove("method") {
            Some(Value::String(m)) => m,
            Some(_) => {
                return Err(Malformed {
                    id,
                    error: RpcError::invalid_request("The method member must be a string"),
                })
            }
            None => {
                if let Some(result) = obj.remove("result") {
                    return Ok(Message::Response {
                        id,
                        outcome: Ok(result),
                    });
                }
                if let Some(error) = obj.remove("error") {
                    let error = serde_json::from_value::<RpcError>(error).unwrap_or_else(|_| {
                        RpcError::internal("The client answered with a malformed error object")
                    });
                    return Ok(Message::Response {
                        id,
                        outcome: Err(error),
                    });
                }
                return Err(Malformed {
                    id,
                    error: RpcError::invalid_request("The message has no method"),
                });
            }
        };
        let params = match obj.remove("params") {
            None | Some(Value::Null) => None,
            Some(Value::Object(p)) => Some(p),
            // A notification is never answered, not even when malformed: its params are
            // dropped and the receiver ignores what it cannot use.
            Some(_) if id.is_none() => None,
            Some(_) => {
                return Err(Malformed {
                    id,
                    error: RpcError::invalid_params("params must be a JSON object"),
                })
            }
        };
        Ok(match id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method, params },
        })
    }
}

/// A JSON-RPC message object: `jsonrpc` and the given members. Values are moved in;
/// `json!` would serialize each interpolated value into a copy of itself.
fn message<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("jsonrpc".to_owned(), Value::String("2.0".to_owned()));
    for (key, value) in members {
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}

impl RequestId {
    fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::Number(n.clone()),
            RequestId::String(s) => Value::String(s.clone()),
        }
    }
}

/// Serialize a success response.
pub fn result_response(id: &RequestId, result: Value) -> Value {
    message([("id", id.to_value()), ("result", result)])
}

/// Serialize an error response; `id` is omitted when it could not be read.
pub fn error_response(id: Option<&RequestId>, error: &RpcError) -> Value {
    let error = serde_json::to_value(error).unwrap_or(Value::Null);
    match id {
        Some(id) => message([("id", id.to_value()), ("error", error)]),
        None => message([("error", error)]),
    }
}

/// Serialize a request (the server asking the client, in the handshake era).
pub fn request(id: &RequestId, method: &str, params: Value) -> Value {
    message([
        ("id", id.to_value()),
        ("method", Value::String(method.to_owned())),
        ("params", params),
    ])
}

/// Serialize a notification.
pub fn notification(method: &str, params: Value) -> Value {
    message([
        ("method", Value::String(method.to_owned())),
        ("params", params),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_ids_keep_their_json_type() {
        let m = Message::from_value(json!({"jsonrpc":"2.0","id":7,"method":"x"})).unwrap();
        let Message::Request { id, .. } = m else {
            panic!("not a request")
        };
        assert_eq!(serde_json::to_value(&id).unwrap(), json!(7));
        let m = Message::from_value(json!({"jsonrpc":"2.0","id":"7","method":"x"})).unwrap();
        let Message::Request { id, .. } = m else {
            panic!("not a request")
        };
        assert_eq!(serde_json::to_value(&id).unwrap(), json!("7"));
    }

    #[test]
    fn envelope_errors_are_invalid_request() {
        for bad in [
            json!([1]),
            json!(3),
            json!({"jsonrpc":"1.0","id":1,"method":"x"}),
            json!({"jsonrpc":"2.0","id":null,"method":"x"}),
            json!({"jsonrpc":"2.0","id":{},"method":"x"}),
        ] {
            let err = Message::from_value(bad).unwrap_err();
            assert_eq!(err.error.code, -32600);
        }
        let err = Message::from_value(json!({"jsonrpc":"2.0","id":1,"method":"x","params":[1]}))
            .unwrap_err();
        assert_eq!(err.error.code, -32602);
        assert!(err.id.is_some());
    }

    #[test]
    fn notifications_and_responses_are_told_apart() {
        assert!(matches!(
            Message::from_value(json!({"jsonrpc":"2.0","method":"n"})).unwrap(),
            Message::Notification { .. }
        ));
        assert!(matches!(
            Message::from_value(json!({"jsonrpc":"2.0","id":1,"result":{}})).unwrap(),
            Message::Response { .. }
        ));
    }
}
