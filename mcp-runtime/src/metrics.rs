//! Request metrics in the Prometheus text format, for an opt-in scrape endpoint
//! ([`Server::metrics_endpoint`](crate::Server::metrics_endpoint), [`App::metrics`](crate::App::metrics)).
//!
//! - `mcp_server_operation_duration_seconds{mcp_method_name, gen_ai_tool_name,
//!   gen_ai_prompt_name, error_type}`: the latency histogram OpenTelemetry's semantic
//!   conventions for MCP name `mcp.server.operation.duration` (unit `s`, their bucket
//!   boundaries), as an OpenTelemetry-to-Prometheus exporter writes it: dots become
//!   underscores and the unit a suffix. `error_type` is empty for a success, the JSON-RPC
//!   code of an error, `tool_error` for a tool's `isError: true`.
//! - `mcp_requests_total{method, name, outcome, error_layer}`: every request, by how it
//!   ended (ours: `error_layer` tells transport, JSON-RPC, protocol and business failures
//!   apart).
//! - `mcp_calls_in_flight`: handlers running now.
//! - `mcp_runtime_alive_tasks`: tokio tasks alive in the serving runtime. Flat over a
//!   long run means nothing leaks.
//!
//! Labels stay bounded whatever clients send. `name` is a served tool or prompt, or the
//! URI or URI template of a served resource. Anything else reads `(unknown)`.

use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    name: String,
    outcome: &'static str,
    error_layer: &'static str,
}

/// The conventions' attributes of `mcp.server.operation.duration`, as Prometheus labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    mcp_method_name: &'static str,
    gen_ai_tool_name: String,
    gen_ai_prompt_name: String,
    error_type: String,
}

/// The conventions' bucket boundaries for operation durations, in seconds.
const OPERATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// One server's request metrics.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    operations: Family<OperationLabels, Histogram>,
    in_flight: Gauge<i64, AtomicI64>,
    alive_tasks: Gauge<i64, AtomicI64>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics(..)")
    }
}

impl Metrics {
    pub(crate) fn new() -> Arc<Self> {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let operations = Family::<OperationLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(OPERATION_BUCKETS)) as fn() -> Histogram,
        );
        let in_flight = Gauge::<i64, AtomicI64>::default();
        let alive_tasks = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "mcp_requests",
            "MCP requests by method, target, outcome and the layer an error came from",
            requests.clone(),
        );
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "MCP request duration as observed on the receiver, from its arrival until its answer",
            prometheus_client::registry::Unit::Seconds,
            operations.clone(),
        );
        registry.register(
            "mcp_calls_in_flight",
            "Handlers running now",
            in_flight.clone(),
        );
        registry.register(
            "mcp_runtime_alive_tasks",
            "Tokio tasks alive in the runtime serving MCP",
            alive_tasks.clone(),
        );
        Arc::new(Metrics {
            registry,
            requests,
            operations,
            in_flight,
            alive_tasks,
        })
    }

    /// Count one finished request of `method` on the target labelled `name`, by how it
    /// ended: `outcome` (completed, input_required, task, failed), `error_layer` (empty
    /// unless failed) and the conventions' `error_type` (none for a success).
    pub(crate) fn record(
        &self,
        method: &str,
        name: &str,
        (outcome, error_layer): (&'static str, &'static str),
        error_type: Option<&str>,
        elapsed: Duration,
    ) {
        let method = bounded_method(method);
        self.requests
            .get_or_create(&RequestLabels {
                method,
                name: name.to_owned(),
                outcome,
                error_layer,
            })
            .inc();
        let named = |of: &str| {
            if method == of {
                name.to_owned()
            } else {
                String::new()
            }
        };
        self.operations
            .get_or_create(&OperationLabels {
                mcp_method_name: method,
                gen_ai_tool_name: named("tools/call"),
                gen_ai_prompt_name: named("prompts/get"),
                error_type: error_type.unwrap_or_default().to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// The text exposition, with the gauges read now.
    pub(crate) fn render(&self, in_flight: usize) -> String {
        self.in_flight
            .set(i64::try_from(in_flight).unwrap_or(i64::MAX));
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let alive = handle.metrics().num_alive_tasks();
            self.alive_tasks
                .set(i64::try_from(alive).unwrap_or(i64::MAX));
        }
        let mut text = String::new();
        if prometheus_client::encoding::text::encode(&mut text, &self.registry).is_err() {
            // Encoding into a String cannot fail; an empty scrape is the safe answer.
            text.clear();
        }
        text
    }
}

/// The method as a label: the protocol's own names, anything else one bucket.
fn bounded_method(method: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        "",
        "initialize",
        "ping",
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        "subscriptions/listen",
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "tasks/list",
        "tasks/result",
    ];
    KNOWN
        .iter()
        .copied()
        .find(|known| *known == method)
        .unwrap_or("(other)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_counts_requests_by_outcome_and_bounds_labels() {
        let metrics = Metrics::new();
        let ms = Duration::from_millis;
        metrics.record("tools/call", "add", ("completed", ""), None, ms(2));
        let business = ("failed", "business");
        metrics.record("tools/call", "add", business, Some("tool_error"), ms(3));
        let refused = ("failed", "mcp");
        metrics.record("prompts/get", "greet", refused, Some("-32602"), ms(3));
        let unknown = ("failed", "jsonrpc");
        metrics.record("no/such", "", unknown, Some("-32601"), Duration::ZERO);
        let text = metrics.render(0);
        assert!(text.contains(
            r#"mcp_requests_total{method="tools/call",name="add",outcome="completed",error_layer=""} 1"#
        ), "{text}");
        assert!(text.contains(
            r#"mcp_requests_total{method="tools/call",name="add",outcome="failed",error_layer="business"} 1"#
        ), "{text}");
        assert!(text.contains(r#"method="(other)""#), "{text}");
        // The conventions' histogram: its name, unit, bucket boundaries and attributes.
        assert!(
            text.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
            "{text}"
        );
        assert!(text.contains(
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="add",gen_ai_prompt_name="",error_type=""} 1"#
        ), "{text}");
        assert!(text.contains(
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="add",gen_ai_prompt_name="",error_type="tool_error"} 1"#
        ), "{text}");
        assert!(text.contains(
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="prompts/get",gen_ai_tool_name="",gen_ai_prompt_name="greet",error_type="-32602"} 1"#
        ), "{text}");
        assert!(
            text.contains(r#"_bucket{le="300.0",mcp_method_name="tools/call""#),
            "{text}"
        );
        assert!(text.contains("mcp_calls_in_flight 0"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
