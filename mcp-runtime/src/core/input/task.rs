//! Input for tasks: a task's handler runs again with the answers given through
//! `tasks/update`; these carry its answers and kept values between runs and say what a
//! run waits for.

use serde_json::{Map, Value};

use crate::core::RequestContext;
use crate::protocol::RpcError;

use super::Exchange;

/// How a handler run ended, as far as input goes (a call's round, or a task's run).
pub(crate) enum InputNeed {
    /// Use the handler's own outcome.
    Finished,
    /// The task waits for the client's answers to these requests.
    Input(Map<String, Value>),
    /// Fail the task with this error (a bad answer, a missing capability).
    Error(RpcError),
}

/// The answers and kept values a task carries to its next run.
pub(crate) fn task_state(ctx: &RequestContext) -> (Map<String, Value>, Map<String, Value>) {
    let exchange = ctx.exchange();
    (exchange.answers.clone(), exchange.kept.clone())
}

/// After a task's handler run: what it waits for, or the error it ends with.
pub(crate) fn task_end(ctx: &RequestContext, failed: bool) -> InputNeed {
    waiting_for(&mut ctx.exchange(), failed)
}

/// After a handler run (of a call's round or a task's): the error it ends with (a bad
/// answer, a missing capability), the requests it waits for, or neither. Input requests
/// only count when the handler failed, so one that recovers from a missing answer
/// finishes normally.
pub(super) fn waiting_for(exchange: &mut Exchange, failed: bool) -> InputNeed {
    if !failed {
        return InputNeed::Finished;
    }
    if let Some(error) = exchange.invalid.take() {
        return InputNeed::Error(error);
    }
    if !exchange.missing.is_empty() {
        return InputNeed::Error(RpcError::missing_capability(Value::Object(std::mem::take(
            &mut exchange.missing,
        ))));
    }
    if exchange.pending.is_empty() {
        return InputNeed::Finished;
    }
    InputNeed::Input(std::mem::take(&mut exchange.pending))
}

/// Open a task's run: its answers so far and kept values.
pub(crate) fn open_task(
    ctx: &RequestContext,
    answers: Map<String, Value>,
    kept: Map<String, Value>,
) {
    let mut exchange = ctx.exchange();
    exchange.open = true;
    exchange.answers = answers;
    exchange.kept = kept;
}
