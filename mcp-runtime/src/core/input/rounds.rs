//! The rounds of a multi round-trip request: the sealed `requestState` that carries
//! answers and kept values from one round to the next, what it is bound to, and how a
//! round ends (finished, `input_required`, or an error). Single-use tools record each
//! presented state as used in the server's store.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::clock::{millis, now_ms};
use crate::core::canonical::canonical_object;
use crate::core::RequestContext;
use crate::policy::seal::{random_token, Sealer, Unsealed};
use crate::protocol::Params;
use crate::protocol::RpcError;
use crate::store::Records;

use super::task::{waiting_for, InputNeed};
use super::{Presented, MAX_REQUEST_STATE_BYTES};

/// What `requestState` carries between rounds (sealed, never seen by the client).
#[derive(Debug, Serialize, Deserialize)]
struct Sealed {
    /// Unique per state: what a single-use tool records as used.
    id: String,
    /// Expiry, milliseconds since the Unix epoch.
    exp: u64,
    /// The keys of the questions this state's round asked: only their answers count.
    asked: Vec<String>,
    /// Rounds completed.
    round: u32,
    /// Answers used so far, by key.
    answers: Map<String, Value>,
    /// Values kept by the handler.
    kept: Map<String, Value>,
}

/// The client capabilities through which a handler's questions reach a client: a call
/// whose client declared none of them is never asked anything (the handler gets -32021).
pub(crate) const INPUT_CAPABILITIES: [&str; 3] = ["elicitation", "sampling", "roots"];

/// What a `requestState` is bound to: the sealed bytes open only for the same binding.
pub(crate) struct Binding(Vec<u8>);

impl Binding {
    /// The call's binding, made by `make` only when a round can need it: the request
    /// presents a state to open, or its client declared a way to answer questions (a state
    /// is sealed only when a question is asked). The arguments' canonical form costs a few
    /// hundred instructions that most calls need not spend.
    pub(crate) fn when_needed(
        ctx: &RequestContext,
        params: &Params,
        make: impl FnOnce() -> Binding,
    ) -> Option<Binding> {
        let presented = params.get("requestState").is_some_and(|s| !s.is_null());
        let capabilities = ctx.client_capabilities();
        let may_ask = INPUT_CAPABILITIES.iter().any(|c| capabilities.has(c));
        (presented || may_ask).then(make)
    }

    /// Bind to `method`, its `target` (tool or prompt name, resource URI), the arguments
    /// and the principal. Arguments are serialized canonically (keys sorted), so a client
    /// re-sending them in another order still matches.
    pub(crate) fn new(
        method: &str,
        target: &str,
        arguments: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Binding {
        let mut bytes = Vec::with_capacity(64);
        bytes.extend_from_slice(b"mrtr\0");
        for part in [method, target, principal.unwrap_or("")] {
            bytes.extend_from_slice(part.as_bytes());
            bytes.push(0);
        }
        canonical_object(arguments, &mut bytes);
        Binding(bytes)
    }

    /// Bind to the call's idempotency key too: every round of one call carries the same.
    pub(crate) fn with_idempotency_key(mut self, key: Option<&str>) -> Binding {
        if let Some(key) = key {
            self.0.extend_from_slice(b"\0idempotency\0");
            self.0.extend_from_slice(key.as_bytes());
        }
        self
    }
}

/// Seals and opens request state, and records single-use states as used; one per server.
#[derive(Clone)]
pub(crate) struct Rounds {
    sealer: Sealer,
    ttl: Duration,
    records: Records,
}

/// How one round ended, as the core reports it.
pub(crate) enum RoundEnd {
    /// The handler finished (or failed for its own reasons): use its outcome.
    Finished,
    /// Answer `input_required` with these requests and this state.
    InputRequired {
        requests: Map<String, Value>,
        state: String,
    },
    /// Fail with this error (a bad answer, a missing capability, an oversized state).
    Error(RpcError),
}

impl Rounds {
    pub(crate) fn new(sealer: Sealer, ttl: Duration, records: Records) -> Self {
        Rounds {
            sealer,
            ttl,
            records,
        }
    }

    /// The server's sealer (its key is shared by the instances behind one balancer).
    #[cfg(feature = "legacy")]
    pub(crate) fn sealer(&self) -> &Sealer {
        &self.sealer
    }

    /// Read `inputResponses` and `requestState` out of `params` into `ctx`. Errors are
    /// -32602 with a message saying what to fix. For a `single_use` call, answers count
    /// only for the questions the presented state asked.
    pub(crate) fn open(
        &self,
        ctx: &RequestContext,
        params: &mut Params,
        binding: Option<&Binding>,
        single_use: bool,
    ) -> Result<(), RpcError> {
        let responses = match params.remove("inputResponses") {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "inputResponses must be an object mapping each input request key to the client's answer",
                ))
            }
        };
        if let Some((key, _)) = responses.iter().find(|(_, v)| !v.is_object()) {
            return Err(RpcError::invalid_params(format!(
                "inputResponses.{key} must be an object (an ElicitResult, CreateMessageResult or ListRootsResult)"
            ))
            .with_data(json!({ "key": key })));
        }
        let mut sealed = Sealed {
            id: String::new(),
            exp: 0,
            asked: Vec::new(),
            round: 0,
            answers: Map::new(),
            kept: Map::new(),
        };
        let mut presented = None;
        match params.remove("requestState") {
            None | Some(Value::Null) => {}
            Some(Value::String(token)) => {
                // Made whenever a state is presented (`Binding::when_needed`).
                let Some(binding) = binding else {
                    return Err(RpcError::internal(
                        "Internal error: a request state was presented to a call without its binding",
                    ));
                };
                sealed = self.unseal(&token, binding)?;
                presented = Some(Presented {
                    id: std::mem::take(&mut sealed.id),
                    exp: sealed.exp,
                });
            }
            Some(_) => return Err(RpcError::invalid_params("requestState must be a string")),
        }
        let mut answers = sealed.answers;
        // This request's answers win over carried ones: a client may answer again after
        // being asked again. For a single-use call, an answer to a question the state does
        // not record as asked is ignored (S-135), so a confirmation cannot be skipped, or
        // replayed without its state.
        answers.extend(
            responses
                .into_iter()
                .filter(|(key, _)| !single_use || sealed.asked.contains(key)),
        );
        let mut exchange = ctx.exchange();
        exchange.open = true;
        exchange.answers = answers;
        exchange.kept = sealed.kept;
        exchange.round = sealed.round;
        exchange.presented = presented;
        Ok(())
    }

    fn unseal(&self, token: &str, binding: &Binding) -> Result<Sealed, RpcError> {
        let refused = |reason: &str| {
            RpcError::invalid_params(format!(
                "Invalid requestState: {reason}. Send the request again without requestState and inputResponses to start over."
            ))
            .with_data(json!({ "reason": reason }))
        };
        if token.len() > MAX_REQUEST_STATE_BYTES {
            return Err(refused("it is larger than this server ever issues"));
        }
        let plain = self
            .sealer
            .open_with(&binding.0, token, MAX_REQUEST_STATE_BYTES)
            .map_err(|why| match why {
                Unsealed::OtherKey => refused(self.sealer.other_key()),
                _ => refused("it was altered, was issued by another server, or belongs to a different request or user"),
            })?;
        let sealed: Sealed = serde_json::from_slice(&plain)
            .map_err(|_| refused("it was altered or was issued by another server"))?;
        if now_ms() >= sealed.exp {
            return Err(refused("it has expired"));
        }
        Ok(sealed)
    }

    /// Record the state this request presented as used, or refuse it when it already was
    /// (S-130): called before a single-use handler runs, so a replayed round never reaches
    /// it. The record lives as long as the state would, on every instance sharing the
    /// store. States of rounds driven inside the server, and requests without a state,
    /// have nothing to record.
    pub(crate) async fn consume(&self, ctx: &RequestContext) -> Result<(), RpcError> {
        let presented = {
            let exchange = ctx.exchange();
            match &exchange.presented {
                Some(presented) if !exchange.in_process => presented.clone(),
                _ => return Ok(()),
            }
        };
        let key = format!("used:{}", presented.id);
        match self.records.insert(&key, &json!({}), presented.exp).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(RpcError::invalid_params(
                "Invalid requestState: it was already used, and the call it continued has run. Send the request again without requestState and inputResponses to start over.",
            )
            .with_data(json!({ "reason": "it was already used" }))),
            Err(e) => {
                tracing::error!("cannot record a used requestState: {e}");
                Err(RpcError::internal(
                    "Internal error: the server cannot check that this requestState was not used before (its store is unavailable); try again shortly",
                ))
            }
        }
    }

    /// After the handler: decide the outcome. `failed` says whether the handler ended in
    /// failure (an error, or an `isError` tool result); input requests only count then, so
    /// a handler that recovers from a missing answer finishes normally.
    pub(crate) fn close(
        &self,
        ctx: &RequestContext,
        binding: Option<&Binding>,
        failed: bool,
    ) -> RoundEnd {
        let mut exchange = ctx.exchange();
        match waiting_for(&mut exchange, failed) {
            InputNeed::Finished => return RoundEnd::Finished,
            InputNeed::Error(error) => return RoundEnd::Error(error),
            InputNeed::Input(pending) => exchange.pending = pending,
        }
        // A question is put only to a client that declared a way to answer it, and such a
        // call has its binding (`Binding::when_needed`).
        let Some(binding) = binding else {
            return RoundEnd::Error(RpcError::internal(
                "Internal error: input was asked of a client that declared no way to give it",
            ));
        };
        let answers: Map<String, Value> = exchange
            .answers
            .iter()
            .filter(|(k, _)| exchange.used.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let state = random_token(16).and_then(|id| {
            let sealed = Sealed {
                id,
                exp: now_ms().saturating_add(millis(self.ttl)),
                asked: exchange.pending.keys().cloned().collect(),
                round: exchange.round.saturating_add(1),
                answers,
                kept: exchange.kept.clone(),
            };
            serde_json::to_vec(&sealed)
                .map_err(|e| e.to_string())
                .and_then(|plain| self.sealer.seal_with(&binding.0, &plain))
        });
        match state {
            Ok(state) if state.len() <= MAX_REQUEST_STATE_BYTES => RoundEnd::InputRequired {
                requests: std::mem::take(&mut exchange.pending),
                state,
            },
            Ok(_) => RoundEnd::Error(RpcError::internal(format!(
                "Internal error: the answers and kept values of this call exceed the {} KiB request state limit",
                MAX_REQUEST_STATE_BYTES / 1024
            ))),
            Err(e) => RoundEnd::Error(RpcError::internal(format!(
                "Internal error: the request state could not be sealed: {e}"
            ))),
        }
    }
}
