//! The steps every handler call goes through, whatever its method: the declared scopes and
//! the `Authorize` hook, the caller's limits (rate, concurrency, time), panic isolation,
//! shutdown, the check of what a tool or prompt returned, and the end of a multi
//! round-trip round.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::policy::auth::{Action, DeclaredScopes};
use crate::policy::limits::{Called, Limiter};
use crate::protocol::{checks, CallToolResult, GetPromptResult, RpcError};

use super::dispatch::{Core, Reply};
use super::RequestContext;

impl Core {
    /// End an MRTR-capable request: `input_required` (or the error an answer caused) when
    /// the handler failed for want of input, else the handler's own reply.
    pub(crate) fn finish_round(
        &self,
        ctx: &RequestContext,
        binding: Option<&super::input::Binding>,
        failed: bool,
        reply: impl FnOnce() -> Reply,
    ) -> Reply {
        match self.rounds.close(ctx, binding, failed) {
            super::input::RoundEnd::Finished => reply(),
            super::input::RoundEnd::InputRequired { requests, state } => {
                Reply::InputRequired { requests, state }
            }
            super::input::RoundEnd::Error(error) => Reply::Error(error),
        }
    }

    /// Check the declared scopes, then run the `Authorize` hook; a refusal becomes the
    /// reply.
    pub(crate) async fn check(
        &self,
        ctx: &RequestContext,
        action: &Action<'_>,
        (kind, target): (&str, &str),
    ) -> Result<(), Reply> {
        let verdict =
            match DeclaredScopes::check_principal(ctx.principal(), action.required_scopes()) {
                Ok(()) => match &self.authorize {
                    Some(hook) => hook.check(ctx, action).await,
                    None => Ok(()),
                },
                refused => refused,
            };
        match verdict {
            Ok(()) => Ok(()),
            Err(denied) => {
                tracing::info!(kind, target = %target, reason = %denied, "request refused");
                let error = denied.to_error(kind, target);
                let scopes = denied.into_scopes();
                Err(if scopes.is_empty() {
                    Reply::Error(error)
                } else {
                    Reply::Refused { error, scopes }
                })
            }
        }
    }

    /// Run a handler within the caller's limits: rate, concurrency, time. A panic or a
    /// timeout fails this call only; a timeout also fires the call's cancellation.
    pub(crate) async fn run<T>(
        &self,
        ctx: &RequestContext,
        target: &Called<'_>,
        future: futures_util::future::BoxFuture<'static, Result<T, RpcError>>,
    ) -> Result<T, RpcError> {
        match self.run_within(ctx, target, future, None).await {
            Ok(outcome) => outcome,
            Err(OwnLimit(limit)) => Err(Limiter::timed_out(target, limit)),
        }
    }

    /// [`run`](Self::run) with the target's own time limit (`#[tool(timeout = ..)]`),
    /// which replaces the server's: past it the call is cancelled and `Err(OwnLimit)`
    /// comes back, for the caller to answer as the target's contract says.
    pub(crate) async fn run_within<T>(
        &self,
        ctx: &RequestContext,
        target: &Called<'_>,
        future: futures_util::future::BoxFuture<'static, Result<T, RpcError>>,
        own: Option<Duration>,
    ) -> Result<Result<T, RpcError>, OwnLimit> {
        let _slot = match self.limiter.admit(ctx.principal_subject(), target) {
            Ok(slot) => slot,
            Err(refused) => return Ok(Err(refused)),
        };
        let _running = self.lifecycle.enter();
        let work = async {
            match own.or(self.limiter.limits().call_timeout) {
                Some(limit) => match tokio::time::timeout(limit, guarded(target, future)).await {
                    Ok(outcome) => Ok(outcome),
                    Err(_) => {
                        ctx.cancel_now();
                        tracing::warn!(target = %target, limit_ms = crate::clock::millis(limit), "handler timed out");
                        match own {
                            Some(_) => Err(OwnLimit(limit)),
                            None => Ok(Err(Limiter::timed_out(target, limit))),
                        }
                    }
                },
                None => Ok(guarded(target, future).await),
            }
        };
        tokio::select! {
            biased;
            outcome = work => outcome,
            error = self.stopped(ctx, target) => Ok(Err(error)),
        }
    }

    /// Completes when shutdown's grace period is over for this call (the server's, or its
    /// connection's): the call is cancelled (work it spawned sees that) and the error it
    /// answers with comes back. Whoever awaits this drops the handler.
    pub(crate) async fn stopped(&self, ctx: &RequestContext, target: &Called<'_>) -> RpcError {
        tokio::select! {
            _ = self.lifecycle.stop_token().cancelled() => {}
            _ = ctx.stopped() => {}
        }
        ctx.cancel_now();
        super::lifecycle::shut_down(target)
    }
}

/// A target's own time limit passed (`#[tool(timeout = ..)]`); the call was cancelled.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OwnLimit(pub(crate) Duration);

/// Await a handler's future; a panic becomes -32603 for this request only.
pub(crate) async fn guarded<T>(
    target: &(dyn std::fmt::Display + Sync),
    future: futures_util::future::BoxFuture<'static, Result<T, RpcError>>,
) -> Result<T, RpcError> {
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => {
            let message = panic_message(&panic);
            tracing::error!(target = %target, panic = %message, "handler panicked");
            Err(RpcError::internal(format!(
                "Internal error: {target} failed unexpectedly"
            )))
        }
    }
}

/// A tool's result as the protocol allows it (see `protocol::checks`: embedded resources
/// with an absolute URI and a base64 blob, well-formed `_meta` keys, ..). A result it does
/// not allow is the handler's mistake: never sent, it fails this call with -32603 naming
/// `target` and the block, and is logged as an error.
pub(crate) fn checked_tool_result(
    target: impl std::fmt::Display,
    result: CallToolResult,
) -> Result<CallToolResult, RpcError> {
    match checks::tool_result(&result) {
        Ok(()) => Ok(result),
        Err(problem) => Err(not_allowed(target, &problem)),
    }
}

/// A prompt's result as the protocol allows it, as [`checked_tool_result`] checks a
/// tool's.
pub(crate) fn checked_prompt_result(
    target: impl std::fmt::Display,
    result: GetPromptResult,
) -> Result<GetPromptResult, RpcError> {
    match checks::prompt_result(&result) {
        Ok(()) => Ok(result),
        Err(problem) => Err(not_allowed(target, &problem)),
    }
}

fn not_allowed(target: impl std::fmt::Display, problem: &str) -> RpcError {
    tracing::error!(target = %target, problem, "a handler returned a result the protocol does not allow; the call fails");
    RpcError::internal(format!(
        "Internal error: {target} returned a result the protocol does not allow: {problem}"
    ))
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
