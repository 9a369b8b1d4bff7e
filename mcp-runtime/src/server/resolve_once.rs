//! A request's target is looked up in the catalog once, however many layers read it:
//! a tool call over HTTP (scopes declared, a mirrored header, metrics on) and over stdio
//! each cost one lookup.

use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::http::Request;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tower::ServiceExt as _;

use crate::protocol::{meta, version};
use crate::registry::{ErrorDetail, InlineLimit, TaskSupport, ToolDef, ToolRef};
use crate::{App, CallToolResult, Content, Principal, RequestContext, Server};

fn answer(
    _: RequestContext,
    _: Map<String, Value>,
) -> futures_util::future::BoxFuture<'static, Result<CallToolResult, crate::RpcError>> {
    Box::pin(async { Ok(CallToolResult::success(vec![Content::text("ok")])) })
}

static LOOKUP: ToolDef = ToolDef {
    name: "lookup",
    title: None,
    description: "Looks an order up.",
    read_only: Some(true),
    destructive: None,
    idempotent: None,
    open_world: None,
    task: TaskSupport::Forbidden,
    once: false,
    idempotency: false,
    inline_limit: InlineLimit::Server,
    scopes: &["orders:read"],
    tags: &[],
    version: None,
    ui: None,
    visibility: crate::registry::Visibility::ModelAndApp,
    continues: None,
    timeout: None,
    concurrency: None,
    queue: 0,
    module_path: module_path!(),
    file: file!(),
    line: line!(),
    params: |spec| {
        spec.argument::<String>("region", None);
        spec.mirror("region", "Region");
    },
    output_schema: |_| None,
    error_detail: |_| ErrorDetail::None,
    call: answer,
};

fn app() -> App {
    let caller = Principal::new("alice").with_scopes(["orders:read"]);
    let metrics = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    Server::new("lookups", "1")
        .only([ToolRef(&LOOKUP)])
        .metrics_endpoint(metrics)
        .stdio_principal(caller)
        .build()
        .expect("the test server builds")
}

fn lookups(app: &App) -> usize {
    app.core.live.load().catalog.lookups.load(Ordering::Relaxed)
}

fn call() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "lookup",
            "arguments": {"region": "eu"},
            "_meta": {
                meta::PROTOCOL_VERSION: version::MODERN,
                meta::CLIENT_CAPABILITIES: {},
                meta::CLIENT_INFO: {"name": "test", "version": "0"},
            },
        }
    })
}

#[tokio::test]
async fn an_http_tool_call_looks_its_target_up_once() {
    let app = app();
    let mut request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version::MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "lookup")
        .header("mcp-param-region", "eu")
        .body(Body::from(call().to_string()))
        .expect("a request");
    request
        .extensions_mut()
        .insert(Principal::new("alice").with_scopes(["orders:read"]));
    let before = lookups(&app);
    let response = app.router().oneshot(request).await.expect("a response");
    assert_eq!(response.status(), 200);
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .expect("a body");
    let body: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(body["result"]["content"][0]["text"], "ok", "{body}");
    assert_eq!(lookups(&app) - before, 1);
    assert!(app
        .metrics()
        .is_some_and(|text| text.contains("name=\"lookup\"")));
}

#[tokio::test]
async fn a_stdio_tool_call_looks_its_target_up_once() {
    let app = app();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let (client_read, mut client_write) = tokio::io::split(client);
    let before = lookups(&app);
    let serving = app.serve_io(server_read, server_write);
    let talking = async move {
        let mut line = call().to_string();
        line.push('\n');
        client_write
            .write_all(line.as_bytes())
            .await
            .expect("written");
        let mut answer = String::new();
        BufReader::new(client_read)
            .read_line(&mut answer)
            .await
            .expect("read");
        drop(client_write);
        answer
    };
    let (served, answer) = tokio::join!(serving, talking);
    served.expect("served");
    let answer: Value = serde_json::from_str(&answer).expect("JSON");
    assert_eq!(answer["result"]["content"][0]["text"], "ok", "{answer}");
    assert_eq!(lookups(&app) - before, 1);
}
