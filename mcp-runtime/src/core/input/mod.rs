//! Asking the client for input mid-call (multi round-trip requests).
//!
//! A handler calls `ctx.elicit(..)`, `ctx.sample(..)` or `ctx.roots(..)`. When the answer is
//! in the request (in `inputResponses`, or carried over from an earlier round inside the
//! sealed `requestState`), the call returns it. Otherwise the request is recorded as
//! pending and the call returns [`InputRequired`]; the handler ends with `?`, and the core
//! answers `resultType: "input_required"` with every pending request and a sealed
//! `requestState`. The client asks its user or model, then sends the same request again
//! with the answers, and the handler runs again from the top, this time getting them.
//!
//! Nothing is stored on the server between rounds: the answers of earlier rounds and the
//! values a handler keeps (`ctx.keep`) travel in `requestState`, sealed with the server's
//! key and bound to the method, target, arguments, principal and an expiry. Any instance
//! holding the same key can continue the call.
//!
//! Sealing stops forgery, not replay. For a single-use tool (`destructive`, or
//! `#[tool(once)]`) the state a round presents is recorded in the server's store as used
//! before the handler runs, so the same state (a replayed confirmation) is refused on
//! every instance sharing the store (S-130); and its answers count only for the questions
//! the state says were asked, so a request without the state (a replay that dropped it)
//! confirms nothing. Other tools take answers without a state too, as a server that keeps
//! no state would.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::protocol::{
    ElicitAction, ElicitResult, ListRootsResult, Role, Root, RpcError, SamplingMessage,
    SamplingRequest, SamplingResult,
};

use crate::core::RequestContext;

mod form;
mod rounds;
mod task;

pub(crate) use form::form_schema;
#[cfg(feature = "legacy")]
pub(crate) use rounds::INPUT_CAPABILITIES;
pub(crate) use rounds::{Binding, RoundEnd, Rounds};
pub(crate) use task::{open_task, task_end, task_state, InputNeed};

/// Largest sealed `requestState` accepted or produced, in bytes.
pub const MAX_REQUEST_STATE_BYTES: usize = 64 * 1024;

/// The input side of one request: answers available, requests made, values kept.
#[derive(Debug, Default)]
pub(crate) struct Exchange {
    /// This request may answer `input_required` (set by the core for the three methods).
    pub(crate) open: bool,
    /// Answers by key: earlier rounds' (from the sealed state) overlaid with this request's.
    answers: Map<String, Value>,
    /// Keys whose answers the handler used this round (carried into the next state).
    used: BTreeSet<String>,
    /// Values the handler keeps across rounds.
    kept: Map<String, Value>,
    /// Requests to send back, by key.
    pending: Map<String, Value>,
    /// Capabilities the handler needed and the client did not declare.
    missing: Map<String, Value>,
    /// An answer that does not parse: the request fails with this.
    invalid: Option<RpcError>,
    /// Rounds completed before this request.
    round: u32,
    /// The state this request presented, to record as used before a single-use handler runs.
    presented: Option<Presented>,
    /// The rounds of this call are driven inside the server (the handshake era asks the
    /// client itself): its states never reach a client, so they cannot be replayed.
    in_process: bool,
}

/// A presented state's identity: its id and expiry.
#[derive(Debug, Clone)]
struct Presented {
    id: String,
    exp: u64,
}

/// Why a handler cannot finish yet (or cannot ask at all). End the handler with `?`.
///
/// It converts into [`ToolError`](crate::ToolError), [`RpcError`], `String` and any error
/// type with a `From<std::error::Error>` impl (`anyhow::Error`, `Box<dyn Error>`), so `?`
/// works in most handlers. Whatever the handler's error type, the server answers from what was
/// asked: `input_required` with the pending requests, -32021 when the client lacks a
/// needed capability, -32602 when an answer does not parse.
#[derive(Debug, Clone)]
pub struct InputRequired {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Pending(String),
    Missing(Value),
    Invalid(RpcError),
    NotHere(String),
}

impl InputRequired {
    /// The JSON-RPC error this stands for when it cannot become an `input_required` result.
    pub fn to_rpc_error(&self) -> RpcError {
        match &self.kind {
            Kind::Pending(key) => RpcError::internal(format!(
                "Input `{key}` is required; the server answers input_required"
            )),
            Kind::Missing(required) => RpcError::missing_capability(required.clone()),
            Kind::Invalid(error) => error.clone(),
            Kind::NotHere(method) => RpcError::internal(format!(
                "Internal error: a {method} handler asked the client for input, which only tools/call, resources/read and prompts/get may do"
            )),
        }
    }
}

impl std::fmt::Display for InputRequired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Pending(key) => write!(f, "waiting for the client's answer to `{key}`"),
            Kind::Missing(required) => {
                write!(f, "the client did not declare the capability {required}")
            }
            Kind::Invalid(error) => f.write_str(&error.message),
            Kind::NotHere(method) => write!(
                f,
                "{method} cannot ask the client for input (only tools/call, resources/read and prompts/get can)"
            ),
        }
    }
}

impl std::error::Error for InputRequired {}

// Handlers returning `Result<T, String>` can use `?` too; the message is only seen if the
// server cannot turn the question into `input_required`.
impl From<InputRequired> for String {
    fn from(input: InputRequired) -> Self {
        input.to_string()
    }
}

impl From<InputRequired> for RpcError {
    fn from(input: InputRequired) -> Self {
        input.to_rpc_error()
    }
}

/// The user's answer to a form (or URL) elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form; for URL mode, agreed to open the page.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the request.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The submitted value, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(value) => Some(value),
            _ => None,
        }
    }

    /// Whether the user accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Elicitation::Accepted(_))
    }
}

impl RequestContext {
    /// Ask the user to fill in a form shaped like `T` (a struct of strings, numbers,
    /// booleans and unit-variant enums), or return their answer when it is in the request.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Delete the order?
    ///     confirm: bool,
    /// }
    ///
    /// /// Deletes an order after the user confirms.
    /// #[tool(destructive)]
    /// async fn delete_order(id: u64, ctx: RequestContext) -> Result<String, ToolError> {
    ///     let answer = ctx.elicit::<Confirm>("confirm", &format!("Delete order {id}?"))?;
    ///     match answer {
    ///         Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!("Order {id} deleted.")),
    ///         _ => Ok(format!("Order {id} kept.")),
    ///     }
    /// }
    /// ```
    ///
    /// `key` names the question; it must be the same on every round. Needs the client's
    /// `elicitation` capability (form mode): without it the call fails with -32021. Never
    /// ask for passwords, keys or payment data this way; use [`RequestContext::elicit_url`].
    pub fn elicit<T: DeserializeOwned + JsonSchema + 'static>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Elicitation<T>, InputRequired> {
        let caps = self.client_capabilities();
        // `elicitation: {}` means form mode only, as older clients declared it.
        let declared = caps.declares(&["elicitation", "form"])
            || caps
                .as_map()
                .get("elicitation")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty);
        let ask = || {
            let schema = form_schema::<T>().map_err(|problem| InputRequired {
                kind: Kind::Invalid(RpcError::internal(format!(
                    "Internal error: the form for `{key}` cannot be sent: {problem}"
                ))),
            })?;
            Ok(json!({
                "method": "elicitation/create",
                "params": {"mode": "form", "message": message, "requestedSchema": schema},
            }))
        };
        let answer = self.answer(key, declared, json!({"elicitation": {"form": {}}}), ask)?;
        let result: ElicitResult =
            self.parse_answer(key, answer, "an ElicitResult ({action, content?})")?;
        decide(result.action, || {
            let content = Value::Object(result.content.unwrap_or_default());
            serde_json::from_value::<T>(content).map_err(|e| {
                self.invalid(
                    RpcError::invalid_params(format!(
                        "inputResponses.{key}: the submitted form does not match the requested schema: {e}"
                    ))
                    .with_data(json!({ "key": key })),
                )
            })
        })
    }

    /// Ask the user to open `url` (for sign-ins, payments, anything sensitive), or return
    /// their answer when it is in the request. `Accepted` only means the user agreed to
    /// open the page: check on your side whether the out-of-band step finished. Needs the
    /// client's `elicitation.url` capability.
    ///
    /// `url` is a page for a person to open, so it must be an absolute `https` URL with a
    /// host, or plain `http` to this machine only (`localhost`, 127.0.0.0/8, `[::1]`, for
    /// development), and carry no credentials (`user:password@`). Anything else is the
    /// handler's mistake, caught on every round before anything else is looked at: the
    /// question never reaches the client and this returns the error the call fails with
    /// (-32603 naming the question and the URL), as a form type that cannot be a form does
    /// for [`RequestContext::elicit`].
    pub fn elicit_url(
        &self,
        key: &str,
        message: &str,
        url: &str,
    ) -> Result<Elicitation<()>, InputRequired> {
        if let Err(problem) = crate::protocol::checks::user_url(url) {
            return Err(InputRequired {
                kind: Kind::Invalid(RpcError::internal(format!(
                    "Internal error: the URL question `{key}` cannot be sent: {problem}"
                ))),
            });
        }
        let declared = self.client_capabilities().declares(&["elicitation", "url"]);
        let ask = || {
            Ok(json!({
                "method": "elicitation/create",
                "params": {"mode": "url", "message": message, "url": url},
            }))
        };
        let answer = self.answer(key, declared, json!({"elicitation": {"url": {}}}), ask)?;
        let result: ElicitResult = self.parse_answer(key, answer, "an ElicitResult ({action})")?;
        decide(result.action, || Ok(()))
    }

    /// Ask the client's model for a completion, or return its answer when it is in the
    /// request. Needs the client's `sampling` capability (and `sampling.tools` when the
    /// request offers tools).
    pub fn sample(
        &self,
        key: &str,
        request: SamplingRequest,
    ) -> Result<SamplingResult, InputRequired> {
        let caps = self.client_capabilities();
        let with_tools = request.tools.is_some() || request.tool_choice.is_some();
        let (declared, required) = if with_tools {
            (
                caps.declares(&["sampling", "tools"]),
                json!({"sampling": {"tools": {}}}),
            )
        } else {
            (caps.has("sampling"), json!({"sampling": {}}))
        };
        let ask = || {
            check_tool_turns(&request.messages).map_err(|problem| InputRequired {
                kind: Kind::Invalid(RpcError::internal(format!(
                    "Internal error: the sampling request `{key}` cannot be sent: {problem}"
                ))),
            })?;
            Ok(json!({
                "method": "sampling/createMessage",
                "params": serde_json::to_value(&request).unwrap_or(Value::Null),
            }))
        };
        let answer = self.answer(key, declared, required, ask)?;
        self.parse_answer(
            key,
            answer,
            "a CreateMessageResult ({role, content, model})",
        )
    }

    /// Ask the client for its roots (`roots/list`), or return them when they are in the
    /// request. Needs the client's `roots` capability.
    pub fn roots(&self, key: &str) -> Result<Vec<Root>, InputRequired> {
        let declared = self.client_capabilities().has("roots");
        let ask = || Ok(json!({"method": "roots/list", "params": {}}));
        let answer = self.answer(key, declared, json!({"roots": {}}), ask)?;
        let result: ListRootsResult =
            self.parse_answer(key, answer, "a ListRootsResult ({roots})")?;
        Ok(result.roots)
    }

    /// Keep `value` under `key` for the next rounds of this call: it travels, sealed, in
    /// `requestState` and comes back through [`RequestContext::kept`].
    pub fn keep<T: Serialize>(&self, key: &str, value: &T) {
        if let Ok(value) = serde_json::to_value(value) {
            self.exchange().kept.insert(key.to_owned(), value);
        }
    }

    /// A value kept in an earlier round of this call (`None` on the first round, or when
    /// it does not deserialize as `T`).
    pub fn kept<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let value = self.exchange().kept.get(key).cloned()?;
        serde_json::from_value(value).ok()
    }

    /// How many rounds of this call came before this one (0 on the first request).
    pub fn round(&self) -> u32 {
        self.exchange().round
    }

    /// Whether this call depends on the client's input: it carries answers or earlier
    /// rounds, or its handler asked for input (or needed a capability the client lacks).
    /// Such a result answers one conversation with the user, not the call's arguments, so
    /// the response cache neither serves nor keeps it.
    pub(crate) fn took_input(&self) -> bool {
        let exchange = self.exchange();
        exchange.round > 0
            || !exchange.answers.is_empty()
            || !exchange.used.is_empty()
            || !exchange.pending.is_empty()
            || !exchange.missing.is_empty()
            || exchange.invalid.is_some()
    }

    /// The rounds of this call are driven inside the server (the handshake era asks the
    /// client itself), so its request states never reach a client.
    #[cfg(feature = "legacy")]
    pub(crate) fn rounds_in_process(&self) {
        self.exchange().in_process = true;
    }

    /// The raw answer for `key`, or record what is needed and stop.
    fn answer(
        &self,
        key: &str,
        declared: bool,
        required: Value,
        ask: impl FnOnce() -> Result<Value, InputRequired>,
    ) -> Result<Value, InputRequired> {
        let mut exchange = self.exchange();
        if !exchange.open {
            return Err(InputRequired {
                kind: Kind::NotHere(self.method().to_owned()),
            });
        }
        if let Some(answer) = exchange.answers.get(key).cloned() {
            exchange.used.insert(key.to_owned());
            return Ok(answer);
        }
        if !declared {
            merge(&mut exchange.missing, &required);
            return Err(InputRequired {
                kind: Kind::Missing(required),
            });
        }
        drop(exchange);
        let request = ask()?;
        self.exchange().pending.insert(key.to_owned(), request);
        Err(InputRequired {
            kind: Kind::Pending(key.to_owned()),
        })
    }

    fn parse_answer<T: DeserializeOwned>(
        &self,
        key: &str,
        answer: Value,
        expected: &str,
    ) -> Result<T, InputRequired> {
        serde_json::from_value(answer).map_err(|e| {
            self.invalid(
                RpcError::invalid_params(format!("inputResponses.{key} must be {expected}: {e}"))
                    .with_data(json!({ "key": key })),
            )
        })
    }

    fn invalid(&self, error: RpcError) -> InputRequired {
        self.exchange().invalid.get_or_insert_with(|| error.clone());
        InputRequired {
            kind: Kind::Invalid(error),
        }
    }
}

/// The answer for `action`; `accepted` produces the value of an accepted one.
fn decide<T>(
    action: ElicitAction,
    accepted: impl FnOnce() -> Result<T, InputRequired>,
) -> Result<Elicitation<T>, InputRequired> {
    Ok(match action {
        ElicitAction::Accept => Elicitation::Accepted(accepted()?),
        ElicitAction::Decline => Elicitation::Declined,
        ElicitAction::Cancel => Elicitation::Cancelled,
    })
}

/// Merge capability objects (`{"elicitation": {"form": {}}}` into what is already missing).
fn merge(into: &mut Map<String, Value>, add: &Value) {
    if let Value::Object(add) = add {
        for (name, value) in add {
            match (into.get_mut(name), value) {
                (Some(Value::Object(existing)), Value::Object(_)) => merge(existing, value),
                _ => {
                    into.insert(name.clone(), value.clone());
                }
            }
        }
    }
}

/// The tool-use turns of a sampling conversation, as the protocol shapes them: a user
/// message carrying tool results carries nothing else, and an assistant message that uses
/// tools is followed at once by the user's message answering each use by its id, and
/// nothing more. A handler continuing a tool loop builds these messages itself; one that
/// gets them wrong is told before the client sees the request.
fn check_tool_turns(messages: &[SamplingMessage]) -> Result<(), String> {
    let blocks = |message: &SamplingMessage| -> Vec<Value> {
        match &message.content {
            Value::Array(blocks) => blocks.clone(),
            block => vec![block.clone()],
        }
    };
    let kind = |block: &Value| block.get("type").and_then(Value::as_str).map(str::to_owned);
    let ids = |blocks: &[Value], of: &str, field: &str| -> Vec<String> {
        blocks
            .iter()
            .filter(|b| kind(b).as_deref() == Some(of))
            .filter_map(|b| b.get(field).and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    for (i, message) in messages.iter().enumerate() {
        let here = blocks(message);
        let results = here
            .iter()
            .filter(|b| kind(b).as_deref() == Some("tool_result"))
            .count();
        if results > 0 && (message.role != Role::User || results != here.len()) {
            return Err(format!(
                "message {i} carries tool_result blocks with other content or as the assistant; tool results go alone in a user message"
            ));
        }
        let uses = ids(&here, "tool_use", "id");
        if uses.is_empty() {
            continue;
        }
        let answered = match messages.get(i + 1) {
            Some(next) if next.role == Role::User => ids(&blocks(next), "tool_result", "toolUseId"),
            _ => Vec::new(),
        };
        if let Some(open) = uses.iter().find(|id| !answered.contains(id)) {
            return Err(format!(
                "message {i} uses tool {open:?}, but the next message is no user message with its tool_result (toolUseId {open:?})"
            ));
        }
        if let Some(extra) = answered.iter().find(|id| !uses.contains(id)) {
            return Err(format!(
                "message {} answers tool use {extra:?}, which message {i} did not make",
                i + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_tool_turns_follow_the_protocol() {
        // S-307, S-308, S-309: results alone, every use answered at once, by id.
        let message = |role: Role, content: Value| SamplingMessage { role, content };
        let text = |t: &str| json!({"type": "text", "text": t});
        let uses = |id: &str| json!({"type": "tool_use", "id": id, "name": "weather", "input": {}});
        let result =
            |id: &str| json!({"type": "tool_result", "toolUseId": id, "content": [text("sunny")]});
        let good = [
            message(Role::User, text("Weather in Bern and Basel?")),
            message(Role::Assistant, json!([uses("a"), uses("b")])),
            message(Role::User, json!([result("b"), result("a")])),
            message(Role::Assistant, text("Sunny in both.")),
        ];
        assert_eq!(check_tool_turns(&good), Ok(()));
        let cases = [
            (
                vec![message(Role::User, json!([result("a"), text("and?")]))],
                "tool results go alone",
            ),
            (
                vec![message(Role::Assistant, result("a"))],
                "tool results go alone",
            ),
            (
                vec![message(Role::Assistant, uses("a"))],
                "next message is no user message",
            ),
            (
                vec![
                    message(Role::Assistant, json!([uses("a"), uses("b")])),
                    message(Role::User, result("a")),
                ],
                "uses tool \"b\"",
            ),
            (
                vec![
                    message(Role::Assistant, uses("a")),
                    message(Role::User, text("sunny")),
                ],
                "uses tool \"a\"",
            ),
            (
                vec![
                    message(Role::Assistant, uses("a")),
                    message(Role::User, json!([result("a"), result("z")])),
                ],
                "answers tool use \"z\"",
            ),
        ];
        for (messages, expected) in cases {
            let problem = check_tool_turns(&messages).unwrap_err();
            assert!(problem.contains(expected), "{problem}");
        }
    }

    #[test]
    fn sampling_messages_have_a_role_and_content() {
        // S-310: the only roles are user and assistant, and content is always written.
        let request = SamplingRequest::new(10).user("hi").assistant("hello");
        let sent = serde_json::to_value(&request).unwrap();
        assert_eq!(sent["maxTokens"], 10, "S-311");
        for message in sent["messages"].as_array().unwrap() {
            assert!(["user", "assistant"].contains(&message["role"].as_str().unwrap()));
            assert!(message["content"].is_object(), "{message}");
        }
        let refused: Result<SamplingMessage, _> =
            serde_json::from_value(json!({"role": "system", "content": text_block()}));
        assert!(refused.is_err());
    }

    fn text_block() -> Value {
        json!({"type": "text", "text": "x"})
    }

    #[test]
    fn capability_objects_merge() {
        let mut missing = Map::new();
        merge(&mut missing, &json!({"elicitation": {"form": {}}}));
        merge(&mut missing, &json!({"elicitation": {"url": {}}}));
        merge(&mut missing, &json!({"sampling": {}}));
        assert_eq!(
            Value::Object(missing),
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}})
        );
    }
}
