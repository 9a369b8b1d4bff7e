//! What a test client answers when the server asks it something: the handlers given to
//! `on_elicit`, `on_sample` and `on_roots`, shared by every era and transport. The model
//! of the rounds themselves (what an `input_required` result asks, how the next round is
//! built) is `protocol::exchange`, shared with the network client.

use std::sync::Arc;

use serde_json::{Map, Value};

/// How many rounds of one call the test clients answer before they give up, so a server
/// that keeps asking cannot hold a test forever.
pub(crate) const MAX_ROUNDS: usize = 32;
use crate::protocol::exchange::{self, Question, Round};

/// One handler: the question's `params` in, the answer's result out.
pub(crate) type Handler = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// The handlers a client was given.
#[derive(Clone, Default)]
pub(crate) struct Answers {
    elicit: Option<Handler>,
    sample: Option<Handler>,
    roots: Option<Handler>,
}

impl Answers {
    pub(crate) fn set_elicit(&mut self, handler: Handler) {
        self.elicit = Some(handler);
    }

    pub(crate) fn set_sample(&mut self, handler: Handler) {
        self.sample = Some(handler);
    }

    pub(crate) fn set_roots(&mut self, handler: Handler) {
        self.roots = Some(handler);
    }

    /// Whether the client answers at all (a client without handlers hands every
    /// `input_required` result back, for tests of the rounds themselves).
    pub(crate) fn any(&self) -> bool {
        self.elicit.is_some() || self.sample.is_some() || self.roots.is_some()
    }

    fn handler(&self, question: Question) -> Option<&Handler> {
        match question {
            Question::Elicit => self.elicit.as_ref(),
            Question::Sample => self.sample.as_ref(),
            Question::Roots => self.roots.as_ref(),
        }
    }

    /// The handler for a server request method, if the client has one.
    pub(crate) fn for_method(&self, method: &str) -> Option<&Handler> {
        Question::of_method(method).and_then(|question| self.handler(question))
    }

    /// `capabilities` with the capability of each handler added where it is not declared
    /// already: a client that can answer says so, as a real one does.
    pub(crate) fn declare(&self, capabilities: Option<&Value>) -> Value {
        let answered = [Question::Elicit, Question::Sample, Question::Roots]
            .into_iter()
            .filter(|question| self.handler(*question).is_some());
        exchange::declare(capabilities, answered)
    }

    /// The `inputResponses` for an `input_required` result's `inputRequests`, or `None`
    /// when a question has no handler (or is not a `{method, params}` object).
    pub(crate) fn respond(&self, requests: &Map<String, Value>) -> Option<Map<String, Value>> {
        requests
            .iter()
            .map(|(key, request)| {
                let (method, params) = exchange::asked(request);
                let handler = self.for_method(method?)?;
                Some((key.clone(), handler(params)))
            })
            .collect()
    }

    /// The params of the next round of a call, when this client answers `result`: the
    /// call's `params` plus `inputResponses` and the echoed `requestState`. `None` when the
    /// result is final, or asks something the client has no handler for.
    pub(crate) fn next_round(&self, params: &Value, result: &Value) -> Option<Value> {
        if !self.any() {
            return None;
        }
        let Round::InputRequired { requests, state } = exchange::round(result) else {
            return None;
        };
        if result.get("inputRequests").is_some_and(|r| !r.is_object()) {
            return None;
        }
        let responses = match requests {
            Some(requests) => self.respond(requests)?,
            None => Map::new(),
        };
        Some(exchange::next_round(params, responses, state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answering() -> Answers {
        let mut answers = Answers::default();
        answers.set_elicit(Arc::new(
            |params| json!({"action": "accept", "content": {"asked": params["message"]}}),
        ));
        answers
    }

    #[test]
    fn a_round_carries_the_answers_and_the_state() {
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {"ok": {"method": "elicitation/create", "params": {"message": "Sure?"}}},
            "requestState": "sealed",
        });
        let next = answering()
            .next_round(&json!({"name": "t", "arguments": {}}), &result)
            .unwrap();
        assert_eq!(
            next,
            json!({
                "name": "t",
                "arguments": {},
                "inputResponses": {"ok": {"action": "accept", "content": {"asked": "Sure?"}}},
                "requestState": "sealed",
            })
        );
    }

    #[test]
    fn a_question_without_a_handler_ends_the_answering() {
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {"llm": {"method": "sampling/createMessage", "params": {}}},
        });
        assert_eq!(answering().next_round(&json!({}), &result), None);
        assert_eq!(
            Answers::default().next_round(&json!({}), &json!({"resultType": "input_required"})),
            None
        );
    }

    #[test]
    fn final_results_are_not_answered() {
        assert_eq!(
            answering().next_round(&json!({}), &json!({"content": []})),
            None
        );
    }

    #[test]
    fn handlers_declare_their_capabilities_without_overriding_declared_ones() {
        let declared = answering().declare(Some(&json!({"elicitation": {"url": {}}})));
        assert_eq!(declared, json!({"elicitation": {"url": {}}}));
        assert_eq!(answering().declare(None), json!({"elicitation": {}}));
    }
}
