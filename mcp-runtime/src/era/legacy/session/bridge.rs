//! The session's requests to the client: when a handler asks for input, the core answers
//! `input_required`; here each question goes to the client as a real request
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`), the answers are awaited
//! and the handler runs again with them, as a modern client's retry would.

use std::sync::atomic::Ordering;

use serde_json::{json, Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::core::{Call, Core, Notifier, Reply, Resolved};
use crate::era::Inbound;
use crate::observe;
use crate::protocol::jsonrpc::{notification, request};
use crate::protocol::meta::Meta;
use crate::protocol::{Params, RequestId, RpcError};

use super::super::shape;
use super::{lock, Session};

impl Session {
    /// Run a core method; when the handler asks for input, ask the client and run it again
    /// with the answers, until it finishes.
    pub(super) async fn call_core(
        &self,
        core: &Core,
        id: &RequestId,
        (method, name, mut params, meta): (&str, Option<&str>, Params, Meta),
        target: Resolved,
        inbound: &Inbound,
    ) -> Reply {
        // Input is gathered here, by asking the client; a state or answers a handshake-era
        // client sent itself were never issued to it.
        params.remove("requestState");
        params.remove("inputResponses");
        // Input is only ever asked of a client that declared the capability it takes
        // (elicitation, sampling or roots; otherwise the core answers -32021). A session
        // without any of them runs once, so its params need no copy for another round.
        let may_ask = crate::core::input::INPUT_CAPABILITIES
            .iter()
            .any(|capability| self.capabilities.has(capability));
        let mut round = 0;
        let mut target = Some(target);
        loop {
            let ctx = self.context(core, id, method, name.map(str::to_owned), &meta, inbound);
            if round > 0 {
                ctx.rounds_in_process();
            }
            let (this_round, this_target) = if may_ask {
                (params.clone(), target.clone())
            } else {
                (std::mem::take(&mut params), target.take())
            };
            // Every round calls the target resolved when the request arrived.
            let Some(this_target) = this_target else {
                return Reply::Error(RpcError::internal(
                    "Internal error: input was asked of a client that declared no way to give it",
                ));
            };
            let reply = core
                .handle(Call {
                    ctx,
                    params: this_round,
                    target: this_target,
                })
                .await;
            let Reply::InputRequired { requests, state } = reply else {
                return reply;
            };
            if !may_ask {
                return Reply::Error(RpcError::internal(
                    "Internal error: input was asked of a client that declared no way to give it",
                ));
            }
            round += 1;
            if round > self.config.max_input_rounds {
                return Reply::Error(RpcError::internal(format!(
                    "Internal error: the handler was still asking for input after {} rounds",
                    self.config.max_input_rounds
                )));
            }
            observe::input_required(requests.len());
            let Some(notifier) = &inbound.notifier else {
                return Reply::Error(RpcError::internal(
                    "Internal error: this request has no channel to send requests to the client on",
                ));
            };
            let asks = requests.into_iter().map(|(key, ask)| async move {
                (key, self.ask(ask, notifier, &inbound.cancel).await)
            });
            let mut answers = Map::new();
            for (key, answer) in futures_util::future::join_all(asks).await {
                match answer {
                    Ok(answer) => {
                        answers.insert(key, answer);
                    }
                    Err(error) => return Reply::Error(error),
                }
            }
            params.insert("inputResponses".into(), Value::Object(answers));
            params.insert("requestState".into(), Value::String(state));
        }
    }

    /// Send one input request (`{method, params}`) to the client and wait for its answer.
    async fn ask(
        &self,
        ask: Value,
        notifier: &Notifier,
        cancel: &CancellationToken,
    ) -> Result<Value, RpcError> {
        let method = ask
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let params = shape::input_request(
            self.version,
            &method,
            ask.get("params").cloned().unwrap_or(json!({})),
        )?;
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed).into());
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id.clone(), tx);
        // Whatever happens next, the entry goes; an unanswered request is cancelled.
        let mut guard = Pending {
            session: self,
            id: id.clone(),
            notifier,
            answered: false,
            reason: None,
        };
        if !notifier.send_message(&request(&id, &method, params)) {
            guard.answered = true;
            return Err(RpcError::internal(format!(
                "Internal error: {method} could not be sent to the client (its connection is gone or too far behind)"
            )));
        }
        let timeout = self.config.client_request_timeout;
        let outcome = tokio::select! {
            answer = rx => answer.ok(),
            _ = tokio::time::sleep(timeout) => {
                guard.reason = Some("timed out");
                return Err(RpcError::internal(format!(
                    "The client did not answer {method} within {} s",
                    timeout.as_secs()
                ))
                .with_data(json!({ "method": method, "reason": "timeout" })));
            }
            _ = cancel.cancelled() => None,
            _ = self.ended.cancelled() => None,
        };
        // An abandoned request is cancelled towards the client by the guard.
        guard.answered = outcome.is_some();
        match outcome {
            Some(Ok(result)) => Ok(result),
            Some(Err(error)) => Err(RpcError::new(
                error.code,
                format!(
                    "The client answered {method} with an error: {}",
                    error.message
                ),
            )
            .with_data(json!({ "method": method, "clientError": error }))),
            None => Err(RpcError::internal(format!(
                "{method} was abandoned: the request was cancelled or the session ended"
            ))),
        }
    }
}

/// Removes a server-to-client request from the waiting map on every exit; one that was
/// never answered is cancelled towards the client, as the specification asks.
struct Pending<'a> {
    session: &'a Session,
    id: RequestId,
    notifier: &'a Notifier,
    answered: bool,
    reason: Option<&'static str>,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        lock(&self.session.waiting).remove(&self.id);
        if !self.answered || self.reason.is_some() {
            let reason = self
                .reason
                .unwrap_or("the request that needed it was cancelled");
            let cancelled = notification(
                "notifications/cancelled",
                json!({ "requestId": self.id, "reason": reason }),
            );
            let _ = self.notifier.send_withdrawal(&cancelled);
        }
    }
}
