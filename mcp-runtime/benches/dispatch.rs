//! The dispatch path in one process, without sockets or pipes between processes:
//! a tool call through the in-process client, 256 calls as stdio frames through
//! `serve_io`, one HTTP POST through the router, a list page (in process and over HTTP),
//! argument validation, and sealing and opening request state.
//!
//! `cargo bench -p mcp-runtime --features testing --bench dispatch`
//!
//! The side-by-side numbers against other servers come from the load generator instead
//! (see the book's "Performance" chapter); these isolate the framework's own share.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use mcp_runtime::policy::seal::Sealer;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::{default_meta, http_request, TestClient};
use mcp_runtime::validate::ArgValidator;
use mcp_runtime::{App, SealKey};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tower::ServiceExt as _;

/// The sum of two integers.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    /// `a + b`.
    sum: i64,
}

/// Adds two integers (the benchmark tool every peer serves).
#[tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Json<Sum>, ToolError> {
    let sum = a.checked_add(b).ok_or_else(|| ToolError::new("overflow"))?;
    Ok(Json(Sum { sum }).with_text(sum.to_string()))
}

/// Twenty more tools, so a list page has the size of a real server's.
macro_rules! filler_tools {
    ($($name:ident),*) => {$(
        /// Looks up one record by id and returns it as text.
        #[tool(read_only)]
        async fn $name(
            /// The record's id.
            id: u64,
            /// Fields to include; all when empty.
            fields: Option<Vec<String>>,
        ) -> String {
            format!("{} {id} {fields:?}", stringify!($name))
        }
    )*};
}
filler_tools!(
    get_a, get_b, get_c, get_d, get_e, get_f, get_g, get_h, get_i, get_j, get_k, get_l, get_m,
    get_n, get_o, get_p, get_q, get_r, get_s, get_t
);

fn app() -> App {
    Server::new("bench", "1")
        .only_module(module_path!())
        .build()
        .expect("the bench server builds")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn call_frame(id: u64) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": default_meta()}
    })
    .to_string()
}

fn in_process(c: &mut Criterion) {
    let rt = runtime();
    let client = TestClient::new(app());
    let mut group = c.benchmark_group("in_process");
    group.bench_function("tools_call_add", |b| {
        b.to_async(&rt).iter(|| async {
            let result = client.call_tool("add", json!({"a": 2, "b": 3})).await;
            debug_assert_eq!(result["structuredContent"]["sum"], 5);
            result
        })
    });
    group.bench_function("tools_list_page_21", |b| {
        b.to_async(&rt)
            .iter(|| async { client.request("tools/list", json!({})).await })
    });
    // The same call with no inline limit: what measuring each result against it costs.
    let unlimited = TestClient::new(
        Server::new("bench", "1")
            .only_module(module_path!())
            .inline_result_limit(None)
            .build()
            .expect("the bench server builds"),
    );
    group.bench_function("tools_call_add_no_inline_limit", |b| {
        b.to_async(&rt).iter(|| async {
            let result = unlimited.call_tool("add", json!({"a": 2, "b": 3})).await;
            debug_assert_eq!(result["structuredContent"]["sum"], 5);
            result
        })
    });
    group.finish();
}

fn stdio_frames(c: &mut Criterion) {
    const CALLS: u64 = 256;
    let rt = runtime();
    let app = app();
    let script: String = (1..=CALLS).map(|id| call_frame(id) + "\n").collect();
    let mut group = c.benchmark_group("stdio");
    group.throughput(Throughput::Elements(CALLS));
    // Each sample is 256 calls; fewer samples keep the run near criterion's 5 s.
    group.sample_size(30);
    group.bench_function("tools_call_add_x256", |b| {
        b.to_async(&rt).iter(|| async {
            let (client, server) = tokio::io::duplex(64 * 1024);
            let (server_read, server_write) = tokio::io::split(server);
            let (client_read, mut client_write) = tokio::io::split(client);
            let serving = app.serve_io(server_read, server_write);
            let talking = async {
                let writing = async {
                    let _ = client_write.write_all(script.as_bytes()).await;
                    let _ = client_write.shutdown().await;
                };
                let reading = async {
                    let mut lines = BufReader::new(client_read).lines();
                    let mut answered = 0;
                    while let Ok(Some(_)) = lines.next_line().await {
                        answered += 1;
                    }
                    answered
                };
                tokio::join!(writing, reading).1
            };
            let (served, answered) = tokio::join!(serving, talking);
            assert!(served.is_ok() && answered == CALLS);
        })
    });
    group.finish();
}

fn http_router(c: &mut Criterion) {
    let rt = runtime();
    let router = app().router();
    let list = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": default_meta()}
    })
    .to_string();
    post(
        c,
        &rt,
        &router,
        "http/tools_call_add",
        call_frame(1),
        b"\"sum\":5",
    );
    post(
        c,
        &rt,
        &router,
        "http/tools_list_page_21",
        list,
        b"\"get_t\"",
    );
}

/// One POST of `body` through the router per iteration; its answer contains `expect`.
fn post(
    c: &mut Criterion,
    rt: &tokio::runtime::Runtime,
    router: &axum::Router,
    name: &str,
    body: String,
    expect: &'static [u8],
) {
    c.bench_function(name, |b| {
        b.to_async(rt).iter_batched(
            || http_request(&body).expect("a request"),
            |request| {
                let router = router.clone();
                async move {
                    let response = router.oneshot(request).await.expect("infallible");
                    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                        .await
                        .expect("a body");
                    debug_assert!(bytes.windows(expect.len()).any(|w| w == expect));
                    bytes
                }
            },
            BatchSize::SmallInput,
        )
    });
}

fn validation(c: &mut Criterion) {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 32}},
        },
        "required": ["a", "b"],
        "additionalProperties": false
    });
    let validator = ArgValidator::compile(&schema).expect("a valid schema");
    let good: Value = json!({"a": 2, "b": 3, "tags": ["x", "y"]});
    let bad: Value = json!({"a": "two", "c": 1, "tags": [1]});
    let mut group = c.benchmark_group("validation");
    group.bench_function("compile", |b| {
        b.iter(|| ArgValidator::compile(&schema).is_ok())
    });
    group.bench_function("valid_arguments", |b| {
        b.iter(|| validator.check(&good).is_ok())
    });
    group.bench_function("invalid_arguments_with_messages", |b| {
        b.iter(|| validator.check(&bad).err().map(|m| m.len()))
    });
    group.finish();
}

fn sealing(c: &mut Criterion) {
    let sealer = Sealer::new(&SealKey::from_bytes([7; 32]));
    let bound = b"mrtr\0tools/call\0delete_order\0\0{\"id\":2}";
    // About what a two-round call carries: the earlier answers and the handler's notes.
    let state = json!({
        "answers": {"confirm_delete": {"action": "accept", "content": {"confirm": true}}},
        "notes": {"step": 2, "order": {"id": 2, "total": "19.99"}},
    })
    .to_string();
    let token = sealer
        .seal_with(bound, state.as_bytes())
        .expect("sealing works");
    let mut group = c.benchmark_group("request_state");
    group.bench_function("seal", |b| {
        b.iter(|| sealer.seal_with(bound, state.as_bytes()).map(|t| t.len()))
    });
    group.bench_function("open", |b| {
        b.iter(|| sealer.open_with(bound, &token, 8192).map(|p| p.len()))
    });
    group.bench_function("open_tampered", |b| {
        // One character in the middle changed: still well-formed base64, so the forgery
        // reaches the authentication check (the last character may carry padding bits
        // and fail decoding instead, which would time only the decoder).
        let middle = token.len() / 2;
        let swapped = if token.as_bytes()[middle] == b'A' {
            "B"
        } else {
            "A"
        };
        let mut tampered = token.clone();
        tampered.replace_range(middle..=middle, swapped);
        b.iter(|| sealer.open_with(bound, &tampered, 8192).is_err())
    });
    group.finish();
}

criterion_group!(
    benches,
    in_process,
    stdio_frames,
    http_router,
    validation,
    sealing
);
criterion_main!(benches);
