//! Request metrics in the Prometheus text format, for an opt-in scrape endpoint
//! ([`Server::metrics_endpoint`](crate::Server::metrics_endpoint), [`App::metrics`](crate::App::metrics)).
//!
//! - `mcp_requests_total{method, name, outcome, error_layer}`: every request, by how it
//!   ended.
//! - `mcp_request_duration_seconds{method, name, outcome}`: a latency histogram.
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
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    name: String,
    outcome: &'static str,
    error_layer: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    method: &'static str,
    name: String,
    outcome: &'static str,
}

/// One server's request metrics.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<LatencyLabels, Histogram>,
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
        // 100 µs to about 105 s: a cached list to a slow backend call.
        let latency = Family::<LatencyLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(exponential_buckets(0.0001, 4.0, 11))) as fn() -> Histogram,
        );
        let in_flight = Gauge::<i64, AtomicI64>::default();
        let alive_tasks = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "mcp_requests",
            "MCP requests by method, target, outcome and the layer an error came from",
            requests.clone(),
        );
        registry.register(
            "mcp_request_duration_seconds",
            "Time from a request's arrival to its answer",
            latency.clone(),
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
            latency,
            in_flight,
            alive_tasks,
        })
    }

    /// Count one finished request, by its labels: `outcome` (completed, input_required,
    /// task, failed) and `error_layer` (empty unless failed).
    pub(crate) fn record(
        &self,
        method: &str,
        name: &str,
        (outcome, error_layer): (&'static str, &'static str),
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
        self.latency
            .get_or_create(&LatencyLabels {
                method,
                name: name.to_owned(),
                outcome,
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
        metrics.record(
            "tools/call",
            "add",
            ("completed", ""),
            Duration::from_millis(2),
        );
        metrics.record(
            "tools/call",
            "add",
            ("failed", "business"),
            Duration::from_millis(3),
        );
        metrics.record("no/such", "", ("failed", "jsonrpc"), Duration::ZERO);
        let text = metrics.render(0);
        assert!(text.contains(
            r#"mcp_requests_total{method="tools/call",name="add",outcome="completed",error_layer=""} 1"#
        ), "{text}");
        assert!(text.contains(
            r#"mcp_requests_total{method="tools/call",name="add",outcome="failed",error_layer="business"} 1"#
        ), "{text}");
        assert!(text.contains(r#"method="(other)""#), "{text}");
        assert!(
            text.contains("mcp_request_duration_seconds_bucket"),
            "{text}"
        );
        assert!(text.contains("mcp_calls_in_flight 0"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
