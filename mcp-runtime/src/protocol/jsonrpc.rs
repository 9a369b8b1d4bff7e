//! JSON-RPC 2.0 framing: one message is one JSON object.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::RpcError;
use super::member::{member_name, MemberName};
use super::meta::Meta;
use super::params::{self, Params, Slot};

/// The methods of a `serde::de::Visitor` for the scalar JSON values (a boolean, a number,
/// and a string when `str` is named) that read one and answer `$value`, whatever it was.
macro_rules! scalars_answer {
    ($value:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
    ($value:expr, str) => {
        scalars_answer!($value);
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

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
        /// `params`, an object when present, without its `_meta`.
        params: Option<Params>,
        /// `params._meta`, when present.
        meta: Option<Meta>,
    },
    /// A notification: `method` without `id`.
    Notification {
        /// The method name.
        method: String,
        /// `params`, an object when present, without its `_meta`.
        params: Option<Params>,
        /// `params._meta`, when present.
        meta: Option<Meta>,
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
            Value::Array(_) => return Err(batch_refused()),
            _ => return Err(not_an_object()),
        };
        Envelope {
            jsonrpc_2_0: obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
            id: obj.remove("id"),
            method: obj.remove("method"),
            params: obj.remove("params").map(ParamsRead::from_value),
            result: obj.remove("result"),
            error: obj.remove("error"),
        }
        .into_message()
    }
}

impl Envelope {
    /// The method, when it is a string.
    pub fn method(&self) -> Option<&str> {
        self.method.as_ref().and_then(Value::as_str)
    }

    /// The params, when they are an object, without their `_meta`.
    pub fn params(&self) -> Option<&Params> {
        match &self.params {
            Some(ParamsRead::Object { members, .. }) => Some(members),
            _ => None,
        }
    }

    /// `params._meta`, when the params are an object that has it.
    pub fn meta(&self) -> Option<&Meta> {
        match &self.params {
            Some(ParamsRead::Object { meta, .. }) => meta.as_ref(),
            _ => None,
        }
    }

    /// The id, when it is a string or a number.
    pub fn id(&self) -> Option<RequestId> {
        RequestId::deserialize(self.id.as_ref()?).ok()
    }

    /// Check the envelope and classify the message.
    pub fn into_message(self) -> Result<Message, Malformed> {
        let Envelope {
            jsonrpc_2_0,
            id,
            method,
            params,
            result,
            error,
        } = self;
        let id = match id {
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
        if !jsonrpc_2_0 {
            return Err(Malformed {
                id,
                error: RpcError::invalid_request("The jsonrpc member must be \"2.0\""),
            });
        }
        let method = match method {
            Some(Value::String(m)) => m,
            Some(_) => {
                return Err(Malformed {
                    id,
                    error: RpcError::invalid_request("The method member must be a string"),
                })
            }
            None => {
                if let Some(result) = result {
                    return Ok(Message::Response {
                        id,
                        outcome: Ok(result),
                    });
                }
                if let Some(error) = error {
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
        let (params, meta) = match params {
            None | Some(ParamsRead::Null) => (None, None),
            Some(ParamsRead::Object { members, meta }) => (Some(members), meta),
            // A notification is never answered, not even when malformed: its params are
            // dropped and the receiver ignores what it cannot use.
            Some(ParamsRead::Other) if id.is_none() => (None, None),
            Some(ParamsRead::Other) => {
                return Err(Malformed {
                    id,
                    error: RpcError::invalid_params("params must be a JSON object"),
                })
            }
        };
        Ok(match id {
            Some(id) => Message::Request {
                id,
                method,
                params,
                meta,
            },
            None => Message::Notification {
                method,
                params,
                meta,
            },
        })
    }
}

fn batch_refused() -> Malformed {
    Malformed {
        id: None,
        error: RpcError::invalid_request(
            "Batches are not supported: send one JSON-RPC message per frame",
        ),
    }
}

fn not_an_object() -> Malformed {
    Malformed {
        id: None,
        error: RpcError::invalid_request("A JSON-RPC message must be a JSON object"),
    }
}

/// The members of a message object that JSON-RPC gives a meaning, as read, before the
/// envelope is checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    jsonrpc_2_0: bool,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<ParamsRead>,
    result: Option<Value>,
    error: Option<Value>,
}

/// `params` as read: an object's members with its `_meta` apart, or whether it was
/// `null` or some other value.
#[derive(Debug, Clone, PartialEq)]
enum ParamsRead {
    Object { members: Params, meta: Option<Meta> },
    Null,
    Other,
}

impl ParamsRead {
    fn from_value(value: Value) -> ParamsRead {
        match value {
            Value::Object(mut members) => {
                let meta = members.remove("_meta").map(Meta::from_value);
                ParamsRead::Object {
                    members: Params::from(members),
                    meta,
                }
            }
            Value::Null => ParamsRead::Null,
            _ => ParamsRead::Other,
        }
    }
}

impl<'de> Deserialize<'de> for ParamsRead {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ParamsVisitor;
        impl<'de> serde::de::Visitor<'de> for ParamsVisitor {
            type Value = ParamsRead;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the params of a message")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ParamsRead, A::Error> {
                let mut members = Params::new();
                let mut meta = None;
                // A repeated member keeps its last value, as a parsed JSON object does.
                while let Some(key) = map.next_key::<ParamsKey>()? {
                    match key {
                        ParamsKey::Meta => meta = Some(map.next_value::<Meta>()?),
                        ParamsKey::InPlace(place) => members.set_in_place(place, map.next_value()?),
                        ParamsKey::Other(key) => {
                            let value = map.next_value()?;
                            members.insert(key, value);
                        }
                    }
                }
                Ok(ParamsRead::Object { members, meta })
            }
            // Other values are refused or dropped, but read in full first, so malformed
            // text inside them is refused as elsewhere.
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ParamsRead, A::Error> {
                while seq.next_element::<Value>()?.is_some() {}
                Ok(ParamsRead::Other)
            }
            scalars_answer!(ParamsRead::Other, str);
            fn visit_unit<E>(self) -> Result<ParamsRead, E> {
                Ok(ParamsRead::Null)
            }
        }
        deserializer.deserialize_any(ParamsVisitor)
    }
}

/// A member name of `params`: `_meta`, `name` and `arguments` read without allocating.
enum ParamsKey {
    Meta,
    /// A member `Params` keeps in a place of its own.
    InPlace(Slot),
    Other(String),
}

impl ParamsKey {
    /// The key for `name`, when it needs no copy of the name.
    fn known(name: &str) -> Option<ParamsKey> {
        match (name, params::slot(name)) {
            ("_meta", _) => Some(ParamsKey::Meta),
            (_, Slot::Other) => None,
            (_, place) => Some(ParamsKey::InPlace(place)),
        }
    }
}

impl MemberName for ParamsKey {
    fn borrowed(name: &str) -> ParamsKey {
        ParamsKey::known(name).unwrap_or_else(|| ParamsKey::Other(name.to_owned()))
    }
    fn owned(name: String) -> ParamsKey {
        ParamsKey::known(&name).unwrap_or(ParamsKey::Other(name))
    }
}

impl<'de> Deserialize<'de> for ParamsKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        member_name(deserializer)
    }
}

/// What one frame of JSON text holds.
#[derive(Debug, Clone, PartialEq)]
// Nearly every frame is an object, so boxing its envelope would cost an allocation per
// message to save bytes only in the rare batch or scalar.
#[allow(clippy::large_enum_variant)]
pub enum Frame {
    /// A JSON object: a message's envelope.
    Object(Envelope),
    /// A JSON array: a batch (2025-03-26), its items as they came.
    Batch(Vec<Value>),
    /// Any other JSON value.
    Scalar,
}

impl Frame {
    /// Parse one frame of JSON text straight into a message: the same verdicts as
    /// `serde_json::from_slice::<Value>` then [`Message::from_value`], without building
    /// the envelope as a JSON object first.
    pub fn parse(bytes: &[u8]) -> Result<Frame, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The message, with a batch refused (outside the 2025-03-26 revision).
    pub fn into_message(self) -> Result<Message, Malformed> {
        match self {
            Frame::Object(envelope) => envelope.into_message(),
            Frame::Batch(_) => Err(batch_refused()),
            Frame::Scalar => Err(not_an_object()),
        }
    }

    /// The envelope, when the frame is a JSON object.
    pub fn envelope(&self) -> Option<&Envelope> {
        match self {
            Frame::Object(envelope) => Some(envelope),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FrameVisitor)
    }
}

struct FrameVisitor;

impl<'de> serde::de::Visitor<'de> for FrameVisitor {
    type Value = Frame;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Frame, A::Error> {
        let mut members = Envelope {
            jsonrpc_2_0: false,
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
        };
        // A repeated member keeps its last value, as a parsed JSON object does.
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Jsonrpc => members.jsonrpc_2_0 = map.next_value::<IsVersion2>()?.0,
                Key::Id => members.id = Some(map.next_value()?),
                Key::Method => members.method = Some(map.next_value()?),
                Key::Params => members.params = Some(map.next_value()?),
                Key::Result => members.result = Some(map.next_value()?),
                Key::Error => members.error = Some(map.next_value()?),
                // Read in full, so malformed text anywhere is refused as before.
                Key::Other => drop(map.next_value::<Value>()?),
            }
        }
        Ok(Frame::Object(members))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Frame, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Frame::Batch(items))
    }

    scalars_answer!(Frame::Scalar, str);

    fn visit_unit<E>(self) -> Result<Frame, E> {
        Ok(Frame::Scalar)
    }
}

/// Whether a `jsonrpc` member is the string `"2.0"`, read without keeping it: a string is
/// compared where it lies in the input; any other value is read in full (as a JSON value,
/// so malformed text inside it is refused as elsewhere) and is not the version.
struct IsVersion2(bool);

impl<'de> Deserialize<'de> for IsVersion2 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct VersionVisitor;
        impl<'de> serde::de::Visitor<'de> for VersionVisitor {
            type Value = bool;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the JSON-RPC version")
            }
            fn visit_str<E>(self, version: &str) -> Result<bool, E> {
                Ok(version == "2.0")
            }
            scalars_answer!(false);
            fn visit_unit<E>(self) -> Result<bool, E> {
                Ok(false)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
                while seq.next_element::<Value>()?.is_some() {}
                Ok(false)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
                while map.next_entry::<String, Value>()?.is_some() {}
                Ok(false)
            }
        }
        deserializer.deserialize_any(VersionVisitor).map(IsVersion2)
    }
}

/// A member name of the envelope, read without allocating.
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl MemberName for Key {
    fn borrowed(name: &str) -> Key {
        match name {
            "jsonrpc" => Key::Jsonrpc,
            "id" => Key::Id,
            "method" => Key::Method,
            "params" => Key::Params,
            "result" => Key::Result,
            "error" => Key::Error,
            _ => Key::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        member_name(deserializer)
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
        // S-003: the id a response carries back keeps its JSON type: 7 and "7" differ.
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
            // S-002: only a JSON-RPC 2.0 message is accepted ("1.0" is an invalid request).
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
