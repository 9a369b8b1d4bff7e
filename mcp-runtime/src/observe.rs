//! Trace events: one `tracing` span per request, and the outcome it records.
//!
//! Fields: `protocol_version`, `transport`, `method`, `name`, `request_id`, `phase` (sent,
//! input_required, completed, failed) and `error_layer` (transport, jsonrpc, mcp,
//! business). So an HTTP refusal, a JSON-RPC error inside a 2xx, a protocol error and a
//! tool's business failure (`isError: true`) are told apart in logs and in metrics.

use std::time::Instant;

use tracing::field::Empty;

use crate::metrics::Metrics;
use crate::protocol::{codes, RequestId, RpcError};

/// What the trace and metric helpers read from the server: its span level and its
/// metrics. A type-only contract the core implements, so this module takes labels and
/// sinks and names no core type.
pub(crate) trait Observed {
    /// The level of each request's span.
    fn span_level(&self) -> tracing::Level;
    /// The server's metrics, when they are on.
    fn metrics(&self) -> Option<&Metrics>;
}

impl<T: Observed> Observed for std::sync::Arc<T> {
    fn span_level(&self) -> tracing::Level {
        (**self).span_level()
    }
    fn metrics(&self) -> Option<&Metrics> {
        (**self).metrics()
    }
}

/// An answer as the trace sees it: how it ends its request, and the error it carries. A
/// type-only contract the core's reply implements.
pub(crate) trait Ending {
    /// How the answer ends its request.
    fn outcome(&self) -> Outcome;
    /// The JSON-RPC error it is, if it is one.
    fn error(&self) -> Option<&RpcError>;
}

/// How one request ended, as logs and metrics name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A complete result.
    Completed,
    /// An `input_required` result: the client answers and calls again.
    InputRequired,
    /// The call became a task; the client polls it.
    Task,
    /// Failed, in this layer: `transport` (refused before JSON-RPC: host, token, size,
    /// method), `jsonrpc` (malformed message), `mcp` (a protocol error: unknown tool,
    /// invalid params, denied, rate limited...) or `business` (the tool said `isError`).
    Failed(&'static str),
}

impl Outcome {
    /// The `outcome` label: completed, input_required, task or failed.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::InputRequired => "input_required",
            Outcome::Task => "task",
            Outcome::Failed(_) => "failed",
        }
    }

    /// The `error_layer` label; empty unless failed.
    pub(crate) fn error_layer(self) -> &'static str {
        match self {
            Outcome::Failed(layer) => layer,
            _ => "",
        }
    }

    /// The `outcome` and `error_layer` labels, as metrics count them.
    pub(crate) fn labels(self) -> (&'static str, &'static str) {
        (self.label(), self.error_layer())
    }

    /// The layer a JSON-RPC error belongs to: the message itself (unparsable, no valid
    /// request, a method nobody serves) or MCP (invalid params such as an unknown tool,
    /// access denied, rate limited, internal errors).
    pub(crate) fn of_error(error: &RpcError) -> Outcome {
        match error.code {
            codes::PARSE_ERROR | codes::INVALID_REQUEST | codes::METHOD_NOT_FOUND => {
                Outcome::Failed("jsonrpc")
            }
            _ => Outcome::Failed("mcp"),
        }
    }
}

/// The target of request spans, for filters: `RUST_LOG=info,mcp_runtime::request=debug`.
const REQUEST_TARGET: &str = "mcp_runtime::request";

/// A span at a level chosen at run time. `tracing` fixes a callsite's level at compile
/// time, so there is one callsite per level.
macro_rules! span_at {
    ($level:expr, $($fields:tt)*) => {
        match $level {
            tracing::Level::ERROR => tracing::error_span!(target: REQUEST_TARGET, $($fields)*),
            tracing::Level::WARN => tracing::warn_span!(target: REQUEST_TARGET, $($fields)*),
            tracing::Level::INFO => tracing::info_span!(target: REQUEST_TARGET, $($fields)*),
            tracing::Level::DEBUG => tracing::debug_span!(target: REQUEST_TARGET, $($fields)*),
            _ => tracing::trace_span!(target: REQUEST_TARGET, $($fields)*),
        }
    };
}

/// The `mcp.request` span of one request, at the server's request span level. When the
/// subscriber does not want that level, the span is disabled and costs next to nothing.
pub(crate) fn request_span(
    core: &impl Observed,
    transport: impl Into<&'static str>,
    method: &str,
    name: Option<&str>,
    id: &RequestId,
) -> tracing::Span {
    span_at!(
        core.span_level(),
        "mcp.request",
        protocol_version = Empty,
        transport = transport.into(),
        method = method,
        name = name.unwrap_or(""),
        request_id = %id,
        phase = "sent",
        error_layer = Empty,
    )
}

#[cfg(feature = "otel")]
pub(crate) use crate::otel::continue_trace;

/// Without the `otel` feature there is no trace context to continue.
#[cfg(not(feature = "otel"))]
pub(crate) fn continue_trace(_span: &tracing::Span, _meta: Option<&crate::protocol::meta::Meta>) {}

/// Record how the current request ended in its span, with a debug event.
pub(crate) fn finish(outcome: Outcome, error: Option<&RpcError>) {
    let span = tracing::Span::current();
    span.record("phase", phase(outcome));
    if let Outcome::Failed(layer) = outcome {
        span.record("error_layer", layer);
    }
    match (outcome, error) {
        (_, Some(e)) => tracing::debug!(code = e.code, message = %e.message, "request failed"),
        (Outcome::Failed(layer), None) => tracing::debug!(error_layer = layer, "request failed"),
        (Outcome::InputRequired, None) => tracing::debug!("request needs client input"),
        (Outcome::Task, None) => tracing::debug!("request became a task"),
        (Outcome::Completed, None) => tracing::debug!("request completed"),
    }
}

/// Record how a core reply ends the current request; its outcome.
pub(crate) fn finish_reply(reply: &impl Ending) -> Outcome {
    let outcome = reply.outcome();
    finish(outcome, reply.error());
    outcome
}

/// The span's `phase` for an outcome.
fn phase(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Completed | Outcome::Task => "completed",
        Outcome::InputRequired => "input_required",
        Outcome::Failed(_) => "failed",
    }
}

/// Record that the current request is waiting on client input (a round of the handshake
/// era's bridge, inside one request).
#[cfg(feature = "legacy")]
pub(crate) fn input_required(keys: usize) {
    tracing::Span::current().record("phase", "input_required");
    tracing::debug!(requests = keys, "request needs client input");
}

/// A request being served, as its metrics will count it: when it started, and the `name`
/// label it is counted under (kept only when metrics are on: the request's target, which
/// the label is read from, goes on to the core).
pub(crate) struct Counted {
    started: Instant,
    label: Option<String>,
}

impl Counted {
    /// Count the request, ended with `outcome`.
    pub(crate) fn count(&self, core: &impl Observed, method: &str, outcome: Outcome) {
        let label = self.label.as_deref().unwrap_or("");
        count(core, method, label, outcome, self.started);
    }
}

/// Start watching a request, in either era: its span (the trace continued from its
/// `_meta`) and what its metrics will count, under `label`.
pub(crate) fn watch(
    core: &impl Observed,
    transport: impl Into<&'static str>,
    (method, name, id): (&str, Option<&str>, &RequestId),
    label: &str,
    meta: Option<&crate::protocol::meta::Meta>,
) -> (tracing::Span, Counted) {
    let counted = Counted {
        started: Instant::now(),
        label: core.metrics().map(|_| label.to_owned()),
    };
    let span = request_span(core, transport, method, name, id);
    continue_trace(&span, meta);
    (span, counted)
}

/// Count a finished request in the server's metrics, when they are on, under `label`
/// (its target's, see `Resolved::metric_label`).
pub(crate) fn count(
    core: &impl Observed,
    method: &str,
    label: &str,
    outcome: Outcome,
    started: Instant,
) {
    if let Some(metrics) = core.metrics() {
        metrics.record(method, label, outcome.labels(), started.elapsed());
    }
}

/// Count a handshake-era `initialize` (answered by the transport, not the core).
#[cfg(feature = "legacy")]
pub(crate) fn count_initialize(core: &impl Observed, error: Option<&RpcError>, started: Instant) {
    let outcome = error.map_or(Outcome::Completed, Outcome::of_error);
    count(core, "initialize", "", outcome, started);
}

/// A message refused before it reached an era adapter: on HTTP for the transport's own
/// reasons (`transport`: host, token, size, method, slowness) or because the body is no
/// JSON-RPC request (`jsonrpc`); on stdio for a line that is none. A span of its own, and
/// a count.
pub(crate) fn refused(
    core: &impl Observed,
    transport: impl Into<&'static str>,
    layer: &'static str,
    status: Option<u16>,
    reason: &str,
) {
    let span = span_at!(
        core.span_level(),
        "mcp.request",
        transport = transport.into(),
        method = "",
        phase = "failed",
        error_layer = layer,
        http_status = status,
    );
    span.in_scope(|| tracing::debug!(%reason, "request refused"));
    if let Some(metrics) = core.metrics() {
        metrics.record(
            "",
            "",
            Outcome::Failed(layer).labels(),
            std::time::Duration::ZERO,
        );
    }
}
