//! OpenTelemetry (feature `otel`): a request's span continues the caller's trace.
//!
//! A client that traces its own work puts the W3C trace context in the request's
//! `_meta`: `traceparent`, optionally `tracestate`, and `baggage`. The request's
//! `mcp.request` span becomes a child of the client's span, so one trace runs from the
//! agent through the server into whatever the tool calls. Exporting is the
//! application's choice: add a `tracing_opentelemetry` layer with its tracer to the
//! subscriber, as for any other `tracing` span. Request spans are `DEBUG` unless
//! [`Server::request_span_level`](crate::Server::request_span_level) raises them, so the
//! layer's filter must admit that level for target `mcp_runtime::request`; a disabled
//! span carries no trace.

use std::sync::LazyLock;

use opentelemetry::propagation::{Extractor, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::{Map, Value};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::protocol::meta::Meta;

/// W3C trace context, then baggage.
static PROPAGATOR: LazyLock<TextMapCompositePropagator> = LazyLock::new(|| {
    TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ])
});

/// `_meta` read as a carrier of string fields (the trace context's members are none of
/// those the protocol reserves).
struct Carrier<'a>(&'a Map<String, Value>);

impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Make `span` (not yet entered) a child of the trace `meta` carries, if it carries one.
pub(crate) fn continue_trace(span: &tracing::Span, meta: Option<&Meta>) {
    let Some(members) = meta.and_then(Meta::others) else {
        return;
    };
    if !members.contains_key("traceparent") {
        return;
    }
    let parent = PROPAGATOR.extract(&Carrier(members));
    // Without an OpenTelemetry layer in the subscriber there is no trace to continue,
    // and a malformed traceparent extracts as no parent: both leave the span a root.
    if let Err(e) = span.set_parent(parent) {
        tracing::trace!("the request's trace context was not applied: {e:?}");
    }
}
