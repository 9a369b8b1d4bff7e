//! Request spans exported with OpenTelemetry (the book's "Running in production" shows
//! it).

use std::sync::Arc;

use mcp_runtime::App;
use mcp_workspace_tests::long::{self, TaskProbe};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::Layer as _;

/// A server whose request spans a subscriber exports through OpenTelemetry: the server,
/// the subscriber to install, and the provider and exporter that hold what was exported.
pub fn traced_server() -> (
    App,
    impl tracing::Subscriber + Send + Sync,
    SdkTracerProvider,
    InMemorySpanExporter,
) {
    // Any span exporter works here; an OTLP one sends the spans to a collector.
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let otel = tracing_opentelemetry::layer().with_tracer(provider.tracer("operations-test"));
    // The usual `info` filter admits request spans once the server raises them to INFO
    // (they are DEBUG by default).
    let subscriber = tracing_subscriber::registry()
        .with(otel.with_filter(tracing::level_filters::LevelFilter::INFO));
    let server = long::server(Arc::new(TaskProbe::default()))
        .request_span_level(tracing::Level::INFO)
        .build()
        .unwrap();
    (server, subscriber, provider, exporter)
}
