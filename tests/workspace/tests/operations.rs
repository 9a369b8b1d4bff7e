//! Running in production: graceful shutdown (calls within the grace period finish, the rest
//! answer once with -31503, tasks fail saying why), and the health and readiness probes.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use mcp_runtime::testing::{default_meta, TestClient};
use mcp_runtime::App;
use mcp_workspace_tests::long::{self, TaskProbe};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tower::ServiceExt as _;

// The OpenTelemetry set-up of a test below, as the book shows it.
#[path = "operations/otel.rs"]
mod otel;

const SHUTTING_DOWN: i64 = -31503;

fn app(grace_ms: u64) -> App {
    long::server(Arc::new(TaskProbe::default()))
        .shutdown_grace(Duration::from_millis(grace_ms))
        .build()
        .unwrap()
}

/// The error object of a call that did not complete, or a panic naming what came back.
fn error_of(response: &Value) -> &Value {
    response
        .get("error")
        .unwrap_or_else(|| panic!("an error response, got {response}"))
}

#[tokio::test]
async fn shutdown_lets_calls_in_the_grace_period_finish_and_stops_the_rest_once() {
    let app = app(300);
    let client = TestClient::new(app.clone());
    let started = tokio::time::Instant::now();
    let (quick, slow, ()) = tokio::join!(
        client.request(
            "tools/call",
            json!({"name": "takes", "arguments": {"ms": 100}})
        ),
        client.request(
            "tools/call",
            json!({"name": "takes", "arguments": {"ms": 60_000}})
        ),
        async {
            tokio::time::sleep(Duration::from_millis(30)).await;
            assert!(app.is_ready());
            app.shutdown().await;
        }
    );
    // Finished within the grace period: its ordinary answer.
    assert_eq!(
        quick["result"]["content"][0]["text"], "took 100 ms",
        "{quick}"
    );
    // Still running when it ran out: stopped, answered once with the reason.
    let error = error_of(&slow);
    assert_eq!(error["code"], SHUTTING_DOWN, "{slow}");
    assert_eq!(error["data"]["reason"], "shutdown");
    assert!(
        error["message"].as_str().unwrap().contains("shutting down"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(!app.is_ready());
}

#[tokio::test]
async fn a_task_running_past_the_grace_period_fails_saying_the_server_shut_down() {
    let app = app(200);
    let client = TestClient::new(app.clone()).with_capabilities(json!({
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }));
    let handle = client.call_tool("takes", json!({"ms": 60_000})).await;
    assert_eq!(handle["resultType"], "task", "{handle}");
    let id = handle["taskId"].as_str().unwrap().to_owned();
    app.shutdown().await;
    // The outcome was stored before shutdown returned.
    let task = client.request("tasks/get", json!({"taskId": id})).await;
    assert_eq!(task["result"]["status"], "failed", "{task}");
    assert!(
        task["result"]["statusMessage"]
            .as_str()
            .unwrap()
            .contains("shutting down"),
        "{task}"
    );
}

#[tokio::test]
async fn shutdown_with_nothing_running_returns_at_once() {
    let app = app(60_000);
    tokio::time::timeout(Duration::from_secs(10), app.shutdown())
        .await
        .expect("an idle server does not wait out its grace period");
}

async fn probe(app: &App, path: &str, host: &str) -> (StatusCode, Value) {
    let request = Request::get(path)
        .header("host", host)
        .body(Body::empty())
        .unwrap();
    let response = app.router().oneshot(request).await.unwrap();
    let status = response.status();
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body = axum::body::to_bytes(response.into_body(), 1 << 16)
        .await
        .unwrap();
    (status, serde_json::from_slice(&body).unwrap())
}

#[tokio::test]
async fn health_and_readiness_answer_probes_from_any_host_and_readiness_drops_on_shutdown() {
    let app = app(100);
    // A kubelet probes the pod's own address, which no MCP client would use as Host.
    for host in ["127.0.0.1:8080", "10.1.2.3:8080"] {
        assert_eq!(
            probe(&app, "/healthz", host).await,
            (StatusCode::OK, json!({"status": "ok"}))
        );
        assert_eq!(
            probe(&app, "/readyz", host).await,
            (StatusCode::OK, json!({"status": "ready"}))
        );
    }
    app.shutdown().await;
    assert_eq!(
        probe(&app, "/readyz", "10.1.2.3:8080").await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "draining"})
        )
    );
    assert_eq!(
        probe(&app, "/healthz", "10.1.2.3:8080").await,
        (StatusCode::OK, json!({"status": "ok"}))
    );
}

#[tokio::test]
async fn a_stopped_call_over_http_answers_503_with_its_json_rpc_error() {
    let app = app(100);
    let router = app.router();
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "takes", "arguments": {"ms": 60_000}, "_meta": default_meta()}
    });
    let request = mcp_runtime::testing::http_request(&body.to_string()).unwrap();
    let (response, ()) = tokio::join!(router.oneshot(request), async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        app.shutdown().await;
    });
    let response = response.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body = axum::body::to_bytes(response.into_body(), 1 << 16)
        .await
        .unwrap();
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["id"], 7);
    assert_eq!(error_of(&answer)["code"], SHUTTING_DOWN);
}

/// stdio: at EOF, calls get the grace period; the one that outlives it is answered with
/// the shutdown error, then the server returns.
#[tokio::test]
async fn stdio_eof_waits_the_grace_period_then_answers_what_is_left() {
    let app = app(300);
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server);
    let (client_read, mut client_write) = tokio::io::split(client);
    let call = |id: u64, ms: u64| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "takes", "arguments": {"ms": ms}, "_meta": default_meta()}
        })
        .to_string()
            + "\n"
    };
    client_write
        .write_all((call(1, 100) + &call(2, 60_000)).as_bytes())
        .await
        .unwrap();
    client_write.shutdown().await.unwrap();
    let served = tokio::spawn(async move { app.serve_io(server_read, server_write).await });
    let mut lines = BufReader::new(client_read).lines();
    let mut answers = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    served.await.unwrap().unwrap();
    assert_eq!(answers.len(), 2, "{answers:?}");
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).unwrap();
    assert_eq!(by_id(1)["result"]["content"][0]["text"], "took 100 ms");
    assert_eq!(error_of(by_id(2))["code"], SHUTTING_DOWN);
}

/// The `mcp.request` spans a test saw: each one's fields as strings.
#[derive(Clone, Default)]
struct Spans(Arc<std::sync::Mutex<Vec<std::collections::BTreeMap<String, String>>>>);

struct Fields<'a>(&'a mut std::collections::BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// Index of a span in `Spans`, kept in the span's extensions.
struct Slot(usize);

impl<S> tracing_subscriber::Layer<S> for Spans
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if attrs.metadata().name() != "mcp.request" {
            return;
        }
        let mut fields = std::collections::BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let mut spans = self.0.lock().unwrap();
        spans.push(fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Slot(spans.len() - 1));
        }
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if let Some(span) = ctx.span(id) {
            if let Some(Slot(index)) = span.extensions().get::<Slot>() {
                if let Some(fields) = self.0.lock().unwrap().get_mut(*index) {
                    values.record(&mut Fields(fields));
                }
            }
        }
    }
}

impl Spans {
    fn all(&self) -> Vec<std::collections::BTreeMap<String, String>> {
        self.0.lock().unwrap().clone()
    }
}

async fn post(app: &App, host: &str, body: &str) -> (StatusCode, Value) {
    let mut request = mcp_runtime::testing::http_request(body).unwrap();
    request.headers_mut().insert("host", host.parse().unwrap());
    let response = app.router().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn call_body(name: &str, arguments: Value) -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": default_meta()}
    })
    .to_string()
}

/// Request spans are DEBUG by default, so a subscriber at the usual `info` level creates
/// none and the request path does not pay for them; `Server::request_span_level` raises
/// them for a subscriber that wants them at `info`.
#[tokio::test]
async fn request_spans_are_debug_unless_raised() {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::Layer as _;
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(
        tracing_subscriber::registry().with(
            spans
                .clone()
                .with_filter(tracing::level_filters::LevelFilter::INFO),
        ),
    );
    let quiet = long::server(Arc::new(TaskProbe::default()))
        .build()
        .unwrap();
    let (status, _) = post(&quiet, "localhost", &call_body("takes", json!({"ms": 1}))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(spans.all().is_empty(), "{:?}", spans.all());

    let loud = long::server(Arc::new(TaskProbe::default()))
        .request_span_level(tracing::Level::INFO)
        .build()
        .unwrap();
    let (status, _) = post(&loud, "localhost", &call_body("takes", json!({"ms": 1}))).await;
    assert_eq!(status, StatusCode::OK);
    let seen = spans.all();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        (
            seen[0]["mcp.method.name"].as_str(),
            seen[0]["phase"].as_str()
        ),
        ("tools/call", "completed")
    );
}

/// One span per request, with the fields that tell the failure layers apart, and the
/// same outcomes counted in the metrics.
#[tokio::test]
async fn spans_and_metrics_tell_transport_jsonrpc_protocol_and_business_failures_apart() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let spans = Spans::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let app = long::server(Arc::new(TaskProbe::default()))
        .metrics_endpoint("127.0.0.1:0".parse().unwrap())
        .build()
        .unwrap();

    // Completed.
    let (status, ok) = post(&app, "localhost", &call_body("takes", json!({"ms": 1}))).await;
    assert_eq!(
        (status, &ok["result"]["resultType"]),
        (StatusCode::OK, &json!("complete"))
    );
    // Business: the tool answered isError.
    let (_, failed) = post(&app, "localhost", &call_body("task_tool_error", json!({}))).await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    // Protocol: an unknown tool, a JSON-RPC error inside HTTP 200.
    let (status, unknown) = post(&app, "localhost", &call_body("nope", json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(unknown["error"]["code"], -32602);
    // JSON-RPC: no JSON at all.
    let (status, _) = post(&app, "localhost", "{not json").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Transport: a foreign Host, refused before any JSON-RPC.
    let (status, _) = post(&app, "evil.example", &call_body("takes", json!({"ms": 1}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let seen: Vec<(String, String, String, String)> = spans
        .all()
        .into_iter()
        .map(|f| {
            let get = |k: &str| f.get(k).cloned().unwrap_or_default();
            (
                get("gen_ai.tool.name"),
                get("phase"),
                get("error_layer"),
                get("network.transport"),
            )
        })
        .collect();
    let http = |name: &str, phase: &str, layer: &str| {
        (
            name.to_owned(),
            phase.to_owned(),
            layer.to_owned(),
            "tcp".to_owned(),
        )
    };
    assert_eq!(
        seen,
        [
            http("takes", "completed", ""),
            http("task_tool_error", "failed", "business"),
            http("nope", "failed", "mcp"),
            http("", "failed", "jsonrpc"),
            http("", "failed", "transport"),
        ]
    );
    // Named and attributed as OpenTelemetry's conventions for MCP say.
    let all = spans.all();
    let completed = &all[0];
    assert_eq!(completed["otel.name"], "tools/call takes");
    assert_eq!(completed["otel.kind"], "server");
    assert_eq!(completed["mcp.method.name"], "tools/call");
    assert_eq!(completed["gen_ai.operation.name"], "execute_tool");
    assert_eq!(completed["mcp.protocol.version"], "2026-07-28");
    assert_eq!(completed["jsonrpc.request.id"], "1");
    assert_eq!(completed["network.protocol.name"], "http");
    assert!(!completed.contains_key("error.type"), "{completed:?}");
    let business = &all[1];
    assert_eq!(business["error.type"], "tool_error");
    assert_eq!(business["otel.status_code"], "ERROR");
    let unknown = &all[2];
    assert_eq!(
        (
            unknown["error.type"].as_str(),
            unknown["rpc.response.status_code"].as_str(),
            unknown["otel.status_code"].as_str(),
        ),
        ("-32602", "-32602", "ERROR")
    );
    assert!(
        unknown["otel.status_description"].contains("Unknown tool"),
        "{unknown:?}"
    );
    // Refused before JSON-RPC: the HTTP status is the error's type.
    assert_eq!(all[3]["error.type"], "400");
    assert_eq!(all[4]["error.type"], "403");

    let text = app.metrics().expect("metrics are on");
    for line in [
        r#"mcp_requests_total{method="tools/call",name="takes",outcome="completed",error_layer=""} 1"#,
        r#"mcp_requests_total{method="tools/call",name="task_tool_error",outcome="failed",error_layer="business"} 1"#,
        r#"mcp_requests_total{method="tools/call",name="(unknown)",outcome="failed",error_layer="mcp"} 1"#,
        r#"mcp_requests_total{method="",name="",outcome="failed",error_layer="jsonrpc"} 1"#,
        r#"mcp_requests_total{method="",name="",outcome="failed",error_layer="transport"} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="takes",gen_ai_prompt_name="",error_type=""} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="task_tool_error",gen_ai_prompt_name="",error_type="tool_error"} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="",gen_ai_tool_name="",gen_ai_prompt_name="",error_type="403"} 1"#,
        "mcp_calls_in_flight 0",
    ] {
        assert!(text.contains(line), "missing {line} in\n{text}");
    }
}

#[test]
fn metrics_are_off_unless_asked_for() {
    let app = app(100);
    assert_eq!(app.metrics(), None);
}

/// With the `otel` feature, a request's span is a child of the span the client named in
/// `_meta.traceparent` (W3C trace context), and baggage comes along; a request without
/// one starts its own trace.
#[tokio::test]
async fn a_request_span_continues_the_callers_trace_from_meta() {
    use opentelemetry::trace::{SpanId, TraceId};

    let (server, subscriber, provider, exporter) = otel::traced_server();
    let _guard = tracing::subscriber::set_default(subscriber);

    let client = TestClient::new(server);
    let mut meta = default_meta();
    meta["traceparent"] = json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    meta["baggage"] = json!("tenant=acme");
    let traced = client
        .message(
            json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {
                "name": "takes", "arguments": {"ms": 1}, "_meta": meta
            }}),
        )
        .await
        .unwrap();
    assert_eq!(
        traced["result"]["content"][0]["text"], "took 1 ms",
        "{traced}"
    );
    // S-047: the server continues the caller's trace but writes no trace context back.
    for key in ["traceparent", "tracestate", "baggage"] {
        assert!(traced["result"]["_meta"].get(key).is_none(), "{traced}");
    }
    let untraced = client
        .message(
            json!({"jsonrpc": "2.0", "id": 42, "method": "tools/list", "params": {
                "_meta": default_meta()
            }}),
        )
        .await
        .unwrap();
    assert!(untraced["result"]["tools"].is_array());
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let request = |id: &str| {
        spans
            .iter()
            .find(|s| {
                s.name.starts_with("tools/")
                    && s.attributes.iter().any(|kv| {
                        kv.key.as_str() == "jsonrpc.request.id" && kv.value.as_str() == id
                    })
            })
            .unwrap_or_else(|| panic!("span of request {id} in {spans:#?}"))
    };
    let child = request("41");
    assert_eq!(
        child.span_context.trace_id(),
        TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
    );
    assert_eq!(
        child.parent_span_id,
        SpanId::from_hex("00f067aa0ba902b7").unwrap()
    );
    // A field recorded later is a later attribute of the same key: the last one counts.
    let attribute = |span: &opentelemetry_sdk::trace::SpanData, key: &str| {
        span.attributes
            .iter()
            .rfind(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.as_str().into_owned())
    };
    // Named `{mcp.method.name} {target}`, a server span, with the conventions' attributes.
    assert_eq!(child.name, "tools/call takes");
    assert_eq!(child.span_kind, opentelemetry::trace::SpanKind::Server);
    assert_eq!(
        attribute(child, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        attribute(child, "gen_ai.tool.name").as_deref(),
        Some("takes")
    );
    assert_eq!(attribute(child, "phase").as_deref(), Some("completed"));

    let root = request("42");
    assert_ne!(
        root.span_context.trace_id(),
        TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
    );
    assert_eq!(root.parent_span_id, SpanId::INVALID);
}

/// On stdio, a line that is no JSON-RPC message is answered and traced as a `jsonrpc`
/// failure, and the calls around it as usual.
#[tokio::test]
async fn a_bad_stdio_line_is_a_jsonrpc_failure_in_its_span() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let spans = Spans::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let app = app(100);
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server);
    let (client_read, mut client_write) = tokio::io::split(client);
    let good = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "takes", "arguments": {"ms": 1}, "_meta": default_meta()}
    });
    client_write
        .write_all(format!("{{oops\n{good}\n").as_bytes())
        .await
        .unwrap();
    client_write.shutdown().await.unwrap();
    let (served, answers) = tokio::join!(app.serve_io(server_read, server_write), async {
        let mut lines = BufReader::new(client_read).lines();
        let mut answers = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        answers
    });
    served.unwrap();
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "took 1 ms");
    let seen: Vec<(String, String, String)> = spans
        .all()
        .into_iter()
        .map(|f| {
            let get = |k: &str| f.get(k).cloned().unwrap_or_default();
            (get("network.transport"), get("phase"), get("error_layer"))
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("pipe".to_owned(), "failed".to_owned(), "jsonrpc".to_owned()),
            ("pipe".to_owned(), "completed".to_owned(), String::new()),
        ]
    );
}

/// With the `otel` feature, our client sends the trace context of its own span in each
/// request's `_meta` (both eras, over HTTP), so the server's span is the child of the
/// client's, which is the child of whatever span the application was in: one trace.
/// Both spans are named and attributed as OpenTelemetry's conventions for MCP say.
#[tokio::test]
async fn our_client_carries_its_trace_into_the_servers_span() {
    use mcp_runtime::client::{Client, Era};
    use opentelemetry::trace::{SpanKind, TracerProvider as _};
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
    use std::future::IntoFuture as _;
    use tracing::Instrument as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::Layer as _;

    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    // The client's request spans are DEBUG (target `mcp_runtime::client`).
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::INFO)
        .with_target("mcp_runtime::client", tracing::Level::DEBUG);
    let subscriber = tracing_subscriber::registry().with(
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("client-test"))
            .with_filter(filter),
    );
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = long::server(Arc::new(TaskProbe::default()))
        .request_span_level(tracing::Level::INFO)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = app.router();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let mut eras = vec![Era::Modern];
    if cfg!(feature = "legacy") {
        eras.push(Era::Legacy);
    }
    for era in eras {
        exporter.reset();
        let client = Client::http(&url).pin(era).connect().await.unwrap();
        let agent = tracing::info_span!("agent step");
        let result = client
            .call_tool("takes", json!({"ms": 1}))
            .into_future()
            .instrument(agent)
            .await
            .unwrap();
        assert_eq!(result["content"][0]["text"], "took 1 ms", "{result}");
        let version = client.protocol_version().to_owned();
        client.close().await;
        provider.force_flush().unwrap();
        let spans = exporter.get_finished_spans().unwrap();
        let named = |name: &str, kind: SpanKind| {
            spans
                .iter()
                .find(|s| s.name == name && s.span_kind == kind)
                .unwrap_or_else(|| panic!("{name} ({kind:?}) in {spans:#?}"))
        };
        let agent = named("agent step", SpanKind::Internal);
        let sent = named("tools/call takes", SpanKind::Client);
        let served = named("tools/call takes", SpanKind::Server);
        assert_eq!(sent.parent_span_id, agent.span_context.span_id(), "{era:?}");
        assert_eq!(
            served.parent_span_id,
            sent.span_context.span_id(),
            "{era:?}"
        );
        assert_eq!(
            served.span_context.trace_id(),
            agent.span_context.trace_id()
        );
        let attribute = |span: &opentelemetry_sdk::trace::SpanData, key: &str| {
            span.attributes
                .iter()
                .rfind(|kv| kv.key.as_str() == key)
                .map(|kv| kv.value.as_str().into_owned())
        };
        for span in [sent, served] {
            assert_eq!(
                attribute(span, "gen_ai.tool.name").as_deref(),
                Some("takes")
            );
            assert_eq!(attribute(span, "network.transport").as_deref(), Some("tcp"));
            assert_eq!(
                attribute(span, "mcp.protocol.version"),
                Some(version.clone())
            );
            assert!(attribute(span, "jsonrpc.request.id").is_some());
        }
    }
}
