//! Trace events: one `tracing` span per request, and the outcome it records.
//!
//! The span is named and attributed as OpenTelemetry's semantic conventions for MCP say
//! (semantic-conventions-genai v0.1.0, `docs/gen-ai/mcp.md`, the "MCP server" span):
//! `otel.name` is `{mcp.method.name} {target}` (the tool's or prompt's name; the method
//! alone otherwise), `otel.kind` is `server`, and the attributes are `mcp.method.name`,
//! `gen_ai.tool.name`, `gen_ai.prompt.name`, `gen_ai.operation.name` (`execute_tool`),
//! `mcp.resource.uri`, `jsonrpc.request.id`, `mcp.protocol.version`,
//! `network.transport` (`pipe` for stdio, `tcp` for HTTP), `network.protocol.name`,
//! and for a failure `error.type` (the JSON-RPC code, or `tool_error` for a tool's
//! `isError: true`), `rpc.response.status_code` and an error status. Two fields of our
//! own tell failures apart where the conventions do not: `phase` (sent, input_required,
//! completed, failed) and `error_layer` (transport, jsonrpc, mcp, business).

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

/// The `network.transport` of a transport, as the conventions name it: stdio is a pipe,
/// HTTP runs over TCP; the in-process test client is neither.
pub(crate) fn network_transport(transport: &str) -> &'static str {
    match transport {
        "stdio" => "pipe",
        "http" => "tcp",
        _ => "inproc",
    }
}

/// The `mcp.request` span of one request, at the server's request span level. When the
/// subscriber does not want that level, the span is disabled and costs next to nothing
/// (its fields are not even formatted).
pub(crate) fn request_span(
    core: &impl Observed,
    transport: impl Into<&'static str>,
    method: &str,
    name: Option<&str>,
    id: &RequestId,
) -> tracing::Span {
    let transport = transport.into();
    let span = span_at!(
        core.span_level(),
        "mcp.request",
        otel.name = Empty,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        gen_ai.operation.name = Empty,
        mcp.resource.uri = Empty,
        jsonrpc.request.id = %id,
        mcp.protocol.version = Empty,
        network.transport = network_transport(transport),
        network.protocol.name = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
        phase = "sent",
        error_layer = Empty,
    );
    // What depends on the method is worked out only for a span that is recorded: a
    // disabled one (the default) costs the request nothing more.
    if !span.is_disabled() {
        record_target(&span, method, name);
        if transport == "http" {
            span.record("network.protocol.name", "http");
        }
    }
    span
}

/// Record a request's target in its span as the conventions name it: the tool's or
/// prompt's name (also in the span's name), or the resource's URI (never in the name: it
/// is not of low cardinality).
pub(crate) fn record_target(span: &tracing::Span, method: &str, name: Option<&str>) {
    match (method, name) {
        ("tools/call", Some(tool)) => {
            span.record("gen_ai.tool.name", tool);
            span.record("gen_ai.operation.name", "execute_tool");
        }
        ("prompts/get", Some(prompt)) => {
            span.record("gen_ai.prompt.name", prompt);
        }
        ("resources/read" | "resources/subscribe" | "resources/unsubscribe", Some(uri)) => {
            span.record("mcp.resource.uri", uri);
        }
        _ => {}
    }
    let target = name.filter(|_| matches!(method, "tools/call" | "prompts/get"));
    span.record(
        "otel.name",
        tracing::field::display(SpanName(method, target)),
    );
}

/// `{mcp.method.name} {target}`, or the method alone: the span name the conventions
/// give, formatted only when the span is recorded.
struct SpanName<'a>(&'a str, Option<&'a str>);

impl std::fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// Record the protocol version a request is served in.
pub(crate) fn protocol_version(version: &str) {
    tracing::Span::current().record("mcp.protocol.version", version);
}

#[cfg(feature = "otel")]
pub(crate) use crate::otel::continue_trace;
#[cfg(all(feature = "otel", feature = "client"))]
pub(crate) use crate::otel::trace_context;

/// Without the `otel` feature there is no trace context to continue.
#[cfg(not(feature = "otel"))]
pub(crate) fn continue_trace(_span: &tracing::Span, _meta: Option<&crate::protocol::meta::Meta>) {}

/// Without the `otel` feature there is no trace context to send.
#[cfg(all(not(feature = "otel"), feature = "client"))]
pub(crate) fn trace_context(
    _span: &tracing::Span,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    None
}

/// How a request ended, as its span and metrics record it: the outcome, and the JSON-RPC
/// error code of a failure that was one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ended {
    pub(crate) outcome: Outcome,
    pub(crate) code: Option<i64>,
}

impl Ended {
    /// The conventions' `error.type`: the JSON-RPC code of an error, `tool_error` for a
    /// tool's `isError: true`, none for a success.
    pub(crate) fn error_type(self) -> Option<ErrorType> {
        match (self.outcome, self.code) {
            (_, Some(code)) => Some(ErrorType::Code(code)),
            (Outcome::Failed("business"), None) => Some(ErrorType::Named("tool_error")),
            (Outcome::Failed(_), None) => Some(ErrorType::Named("_OTHER")),
            _ => None,
        }
    }
}

/// An `error.type` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorType {
    /// A JSON-RPC error's code, or an HTTP status for a refusal before JSON-RPC.
    Code(i64),
    /// One of the conventions' names.
    Named(&'static str),
}

impl std::fmt::Display for ErrorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ErrorType::Code(code) => write!(f, "{code}"),
            ErrorType::Named(name) => f.write_str(name),
        }
    }
}

/// Record how the current request ended in its span, with a debug event.
pub(crate) fn finish(outcome: Outcome, error: Option<&RpcError>) -> Ended {
    let ended = Ended {
        outcome,
        code: error.map(|e| e.code),
    };
    let span = tracing::Span::current();
    span.record("phase", phase(outcome));
    if let Outcome::Failed(layer) = outcome {
        span.record("error_layer", layer);
    }
    if let Some(error_type) = ended.error_type() {
        span.record("error.type", tracing::field::display(error_type));
        span.record("otel.status_code", "ERROR");
    }
    match (outcome, error) {
        (_, Some(e)) => {
            span.record("rpc.response.status_code", tracing::field::display(e.code));
            span.record("otel.status_description", e.message.as_str());
            tracing::debug!(code = e.code, message = %e.message, "request failed");
        }
        (Outcome::Failed(layer), None) => tracing::debug!(error_layer = layer, "request failed"),
        (Outcome::InputRequired, None) => tracing::debug!("request needs client input"),
        (Outcome::Task, None) => tracing::debug!("request became a task"),
        (Outcome::Completed, None) => tracing::debug!("request completed"),
    }
    ended
}

/// Record how a core reply ends the current request.
pub(crate) fn finish_reply(reply: &impl Ending) -> Ended {
    finish(reply.outcome(), reply.error())
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
    /// Count the request, ended as `ended` says.
    pub(crate) fn count(&self, core: &impl Observed, method: &str, ended: Ended) {
        let label = self.label.as_deref().unwrap_or("");
        count(core, method, label, ended, self.started);
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
    ended: Ended,
    started: Instant,
) {
    if let Some(metrics) = core.metrics() {
        let error_type = ended.error_type().map(|t| t.to_string());
        metrics.record(
            method,
            label,
            ended.outcome.labels(),
            error_type.as_deref(),
            started.elapsed(),
        );
    }
}

/// Count a handshake-era `initialize` (answered by the transport, not the core).
#[cfg(feature = "legacy")]
pub(crate) fn count_initialize(core: &impl Observed, error: Option<&RpcError>, started: Instant) {
    let ended = Ended {
        outcome: error.map_or(Outcome::Completed, Outcome::of_error),
        code: error.map(|e| e.code),
    };
    count(core, "initialize", "", ended, started);
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
    let transport = transport.into();
    // Refused before its method was read: the method is not known, and the HTTP status
    // (when there is one) is the error's type.
    let error_type = status.map_or(ErrorType::Named("_OTHER"), |s| {
        ErrorType::Code(i64::from(s))
    });
    let span = span_at!(
        core.span_level(),
        "mcp.request",
        otel.kind = "server",
        otel.status_code = "ERROR",
        otel.status_description = reason,
        network.transport = network_transport(transport),
        network.protocol.name = (transport == "http").then_some("http"),
        error.type = %error_type,
        phase = "failed",
        error_layer = layer,
        http_status = status,
    );
    span.in_scope(|| tracing::debug!(%reason, "request refused"));
    if let Some(metrics) = core.metrics() {
        let error_type = error_type.to_string();
        metrics.record(
            "",
            "",
            Outcome::Failed(layer).labels(),
            Some(&error_type),
            std::time::Duration::ZERO,
        );
    }
}
