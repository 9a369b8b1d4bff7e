//! The request/answer model every client of this crate shares: the in-process test
//! clients (feature `testing`) and the network [`Client`](crate::client::Client) (feature
//! `client`). What a 2026-07-28 request carries in `_meta`, how a result says it needs
//! input (`resultType: "input_required"`), how the next round of a call is built from the
//! answers, and which client capability each question needs.
//!
//! Only the model lives here; who answers (a sync closure in a test, an async handler in
//! a host) and how the messages travel is the caller's business.

use serde_json::{json, Map, Value};

use super::meta;

/// What a server may ask of a client: in 2026-07-28 inside an `input_required` result, in
/// the handshake era as a request of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Question {
    /// `elicitation/create`: ask the user.
    Elicit,
    /// `sampling/createMessage`: ask the host's model.
    Sample,
    /// `roots/list`: the host's roots.
    Roots,
}

impl Question {
    /// The question a server request method asks, if it is one.
    pub(crate) fn of_method(method: &str) -> Option<Question> {
        match method {
            "elicitation/create" => Some(Question::Elicit),
            "sampling/createMessage" => Some(Question::Sample),
            "roots/list" => Some(Question::Roots),
            _ => None,
        }
    }

    /// The client capability a client declares when it answers this question.
    pub(crate) fn capability(self) -> &'static str {
        match self {
            Question::Elicit => "elicitation",
            Question::Sample => "sampling",
            Question::Roots => "roots",
        }
    }
}

/// `capabilities` (a `ClientCapabilities` object, or none) with the capability of each
/// question the client answers added where it is not declared already: a client that can
/// answer says so, and what the caller declared wins.
pub(crate) fn declare(
    capabilities: Option<&Value>,
    answered: impl IntoIterator<Item = Question>,
) -> Value {
    let mut declared = match capabilities {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    };
    for question in answered {
        declared
            .entry(question.capability())
            .or_insert_with(|| json!({}));
    }
    Value::Object(declared)
}

/// The `_meta` a 2026-07-28 client puts on every request: its protocol version, client
/// capabilities and client info.
pub(crate) fn modern_meta(version: &str, capabilities: Value, client_info: Value) -> Value {
    json!({
        meta::PROTOCOL_VERSION: version,
        meta::CLIENT_CAPABILITIES: capabilities,
        meta::CLIENT_INFO: client_info,
    })
}

/// `params` (an object; anything else counts as empty) with the keys of `defaults` added to
/// its `_meta` where the caller put none (say, next to its own `progressToken`): the
/// caller's win.
pub(crate) fn with_meta(params: Value, defaults: Value) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let (Value::Object(meta), Value::Object(defaults)) = (meta, defaults) {
        for (key, value) in defaults {
            meta.entry(key).or_insert(value);
        }
    }
    Value::Object(params)
}

/// What a result asks of the client.
pub(crate) enum Round<'a> {
    /// A final result (`complete`, or no `resultType` at all, as handshake-era servers
    /// answer).
    Final,
    /// An `InputRequiredResult`: answer each of `requests` (by key) and call again with the
    /// answers and `state`.
    InputRequired {
        requests: Option<&'a Map<String, Value>>,
        state: Option<&'a Value>,
    },
    /// A `resultType` this client does not know (an extension's, not advertised): not a
    /// result it may use. Only `Client` reports the type by name (hence the allowance
    /// when the `client` feature is off).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Unknown(&'a str),
}

/// Read what `result` asks of the client.
pub(crate) fn round(result: &Value) -> Round<'_> {
    match result.get("resultType").and_then(Value::as_str) {
        None | Some("complete") => Round::Final,
        Some("input_required") => Round::InputRequired {
            requests: result.get("inputRequests").and_then(Value::as_object),
            state: result.get("requestState"),
        },
        Some(other) => Round::Unknown(other),
    }
}

/// One question of an `inputRequests` map: what is asked and with which params.
pub(crate) fn asked(request: &Value) -> (Option<&str>, &Value) {
    (
        request.get("method").and_then(Value::as_str),
        request.get("params").unwrap_or(&Value::Null),
    )
}

/// The params of the next round of a call: the call's `params` (its `_meta` included)
/// plus the `inputResponses` and the echoed `requestState`; the previous round's answers
/// do not carry over.
pub(crate) fn next_round(
    params: &Value,
    responses: Map<String, Value>,
    state: Option<&Value>,
) -> Value {
    let mut next = match params {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    next.remove("inputResponses");
    next.remove("requestState");
    if !responses.is_empty() {
        next.insert("inputResponses".into(), Value::Object(responses));
    }
    if let Some(state) = state {
        next.insert("requestState".into(), state.clone());
    }
    Value::Object(next)
}

/// A header value as a client writes it (`Mcp-Name`, `Mcp-Param-*`): as it is when it is
/// plain visible ASCII (inner spaces and tabs allowed), else Base64 between the
/// `=?base64?` and `?=` markers.
pub(crate) fn header_encoding(text: &str) -> String {
    use base64::Engine as _;
    let plain = !text.is_empty()
        && text.trim_matches([' ', '\t']) == text
        && text.chars().all(|c| c == '\t' || (' '..='~').contains(&c))
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    if plain {
        text.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        format!("=?base64?{encoded}?=")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_carries_the_answers_and_the_state_but_not_the_last_ones() {
        let params = json!({"name": "t", "inputResponses": {"old": 1}, "requestState": "s0"});
        let mut answers = Map::new();
        answers.insert("ok".into(), json!({"action": "accept"}));
        let next = next_round(&params, answers, Some(&json!("s1")));
        assert_eq!(
            next,
            json!({"name": "t", "inputResponses": {"ok": {"action": "accept"}}, "requestState": "s1"})
        );
        let next = next_round(&params, Map::new(), None);
        assert_eq!(next, json!({"name": "t"}));
    }

    #[test]
    fn results_without_a_result_type_are_final_and_unknown_types_are_named() {
        assert!(matches!(round(&json!({"content": []})), Round::Final));
        assert!(matches!(
            round(&json!({"resultType": "input_required"})),
            Round::InputRequired {
                requests: None,
                state: None
            }
        ));
        assert!(matches!(
            round(&json!({"resultType": "task"})),
            Round::Unknown("task")
        ));
    }

    #[test]
    fn the_callers_meta_wins() {
        let params = with_meta(
            json!({"_meta": {"progressToken": 1, meta::PROTOCOL_VERSION: "x"}}),
            modern_meta("2026-07-28", json!({}), json!({"name": "c"})),
        );
        assert_eq!(params["_meta"]["progressToken"], 1);
        assert_eq!(params["_meta"][meta::PROTOCOL_VERSION], "x");
        assert_eq!(params["_meta"][meta::CLIENT_INFO]["name"], "c");
    }

    #[test]
    fn header_values_outside_visible_ascii_are_base64() {
        assert_eq!(header_encoding("us-west1"), "us-west1");
        assert_eq!(
            header_encoding("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_encoding(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            header_encoding("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }
}
