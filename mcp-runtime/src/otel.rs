//! OpenTelemetry (feature `otel`): a request's span continues the caller's trace, and a
//! request the client sends carries its own span's trace.
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

use std::sync::{LazyLock, OnceLock};

use opentelemetry::propagation::{Extractor, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
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

/// The client's side: the trace context a request carries out.
#[cfg(feature = "client")]
mod sending {
    use opentelemetry::propagation::{Injector, TextMapPropagator as _};
    use opentelemetry::trace::TraceContextExt as _;
    use serde_json::{Map, Value};
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    use super::PROPAGATOR;

    /// `_meta` members being written as a carrier.
    struct Members(Map<String, Value>);

    impl Injector for Members {
        fn set(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }

    /// The trace context of `span` as `_meta` members (`traceparent`, and `tracestate` and
    /// `baggage` when there are any), for a request the client sends; none when the span is
    /// in no trace (no OpenTelemetry layer, or the span is disabled).
    pub(crate) fn trace_context(span: &tracing::Span) -> Option<Map<String, Value>> {
        if span.is_disabled() {
            return None;
        }
        let context = span.context();
        if !context.span().span_context().is_valid() {
            return None;
        }
        let mut members = Members(Map::new());
        PROPAGATOR.inject_context(&context, &mut members);
        (!members.0.is_empty()).then_some(members.0)
    }
}

#[cfg(feature = "client")]
pub(crate) use sending::trace_context;

/// The provider exporting spans over OTLP, once [`exporting`] made one.
static EXPORTING: OnceLock<SdkTracerProvider> = OnceLock::new();

/// A layer exporting spans over OTLP (HTTP, protobuf) to the endpoint the standard
/// variables name, or none when none is set. It takes every span of the request targets
/// (`mcp_runtime::request`, `mcp_runtime::client`) at any level, so a request is traced
/// whatever `RUST_LOG` keeps in the logs, and other spans at info and above.
pub(crate) fn exporting<S>() -> Option<impl tracing_subscriber::Layer<S>>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::Layer as _;
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    if !set("OTEL_EXPORTER_OTLP_ENDPOINT") && !set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        return None;
    }
    // The builder reads the endpoint, headers and timeout from the same variables.
    let exporter = match opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
    {
        Ok(exporter) => exporter,
        Err(e) => {
            // Logging is not set up yet: this is the one place to say it.
            eprintln!("spans are not exported: the OTLP exporter could not be built: {e}");
            return None;
        }
    };
    // The resource's defaults read `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`.
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(opentelemetry_sdk::Resource::builder().build())
        .build();
    let tracer = provider.tracer("mcp-runtime");
    let _ = EXPORTING.set(provider);
    let targets = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::INFO)
        .with_target("mcp_runtime::request", tracing::Level::TRACE)
        .with_target("mcp_runtime::client", tracing::Level::TRACE);
    Some(
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(targets),
    )
}

/// Export what the batch holds now.
pub(crate) fn flush() {
    if let Some(provider) = EXPORTING.get() {
        if let Err(e) = provider.force_flush() {
            tracing::warn!("spans could not be exported: {e}");
        }
    }
}
