//! `#[tool(timeout = "..")]`: a tool's own time limit, in place of the server's
//! `call_timeout`. Past it the handler is cancelled (work it started sees the call's
//! cancellation) and the caller reads a business error naming the limit, in both eras and
//! over HTTP; a tool within its limit, and the server's limit for other tools, are as
//! before.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{HttpTestClient, TestClient};
use mcp_runtime::App;
use serde_json::{json, Value};

/// What the handlers saw.
#[derive(Default)]
struct Probe {
    /// Cancellations observed by work a handler started.
    cancelled: AtomicUsize,
    /// Handlers that ran to their end.
    finished: AtomicUsize,
}

/// Sleeps `ms` milliseconds, within a limit of its own.
#[tool(timeout = "200ms")]
async fn bounded_nap(ms: u64, ctx: RequestContext, probe: State<Arc<Probe>>) -> String {
    let cancellation = ctx.cancellation();
    let watcher = probe.0.clone();
    tokio::spawn(async move {
        cancellation.cancelled().await;
        watcher.cancelled.fetch_add(1, Ordering::SeqCst);
    });
    tokio::time::sleep(Duration::from_millis(ms)).await;
    probe.finished.fetch_add(1, Ordering::SeqCst);
    format!("slept {ms} ms")
}

/// Sleeps `ms` milliseconds, within a longer limit than the server's.
#[tool(timeout = "2s")]
async fn long_nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Sleeps `ms` milliseconds as a task (when the client takes tasks), within a limit of
/// its own when it runs inline.
#[tool(task, timeout = "200ms")]
async fn task_nap(ms: u64, ctx: RequestContext) -> String {
    ctx.start_task();
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Sleeps `ms` milliseconds, within the server's limit.
#[tool]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// The server's own limit is 400 ms.
fn app(probe: Arc<Probe>) -> App {
    Server::new("timeouts", "1.0.0")
        .only(tools![bounded_nap, long_nap, task_nap, nap])
        .state(probe)
        .call_timeout(Some(Duration::from_millis(400)))
        .build()
        .expect("the server builds")
}

/// Waits (at most ten seconds) until `count` reaches `at_least`.
async fn reaches(count: &AtomicUsize, at_least: usize) -> bool {
    for _ in 0..1000 {
        if count.load(Ordering::SeqCst) >= at_least {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// What a call past `bounded_nap`'s limit answers: a business error, code `timeout`.
fn assert_timed_out(result: &Value) {
    assert_eq!(result["isError"], true, "{result}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], "timeout", "{result}");
    let message = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        message.contains("bounded_nap did not finish within its time limit of 200ms"),
        "{message}"
    );
    assert_eq!(error["message"], message, "{result}");
}

#[tokio::test]
async fn past_its_limit_a_call_is_cancelled_and_answers_why() {
    let probe = Arc::new(Probe::default());
    let app = app(probe.clone());
    let clients: Vec<(&str, TestClient)> = vec![
        ("2026-07-28", TestClient::new(app.clone())),
        #[cfg(feature = "legacy")]
        ("2025-11-25", TestClient::legacy(app.clone(), "2025-11-25")),
    ];
    for (at, (era, client)) in clients.iter().enumerate() {
        let result = client.call_tool("bounded_nap", json!({"ms": 5_000})).await;
        assert_timed_out(&result);
        assert!(
            reaches(&probe.cancelled, at + 1).await,
            "{era}: the handler's work saw the cancellation"
        );
        // The same tool within its limit answers as always.
        let result = client.call_tool("bounded_nap", json!({"ms": 1})).await;
        assert_eq!(
            result["content"][0]["text"], "slept 1 ms",
            "{era}: {result}"
        );
    }
    assert_eq!(
        probe.finished.load(Ordering::SeqCst),
        clients.len(),
        "only the calls within the limit finished"
    );
}

#[tokio::test]
async fn over_http_too() {
    let probe = Arc::new(Probe::default());
    let client = HttpTestClient::new(&app(probe.clone()));
    let reply = client.call_tool("bounded_nap", json!({"ms": 5_000})).await;
    assert_eq!(reply.status, 200);
    assert_timed_out(&reply.result());
    assert!(reaches(&probe.cancelled, 1).await);
}

#[tokio::test]
async fn a_tools_limit_replaces_the_servers() {
    let client = TestClient::new(app(Arc::default()));
    // Longer than the server's 400 ms, within the tool's 2 s.
    let result = client.call_tool("long_nap", json!({"ms": 600})).await;
    assert_eq!(result["content"][0]["text"], "slept 600 ms", "{result}");
    // A tool without a limit of its own keeps the server's: a protocol error, as before.
    let response = client
        .request(
            "tools/call",
            json!({"name": "nap", "arguments": {"ms": 5_000}}),
        )
        .await;
    assert_eq!(response["error"]["data"]["timeoutMs"], 400, "{response}");
}

/// A task tool past its limit inline is pointed to tasks; as a task it is not bound by it.
#[tokio::test]
async fn a_task_tool_is_bound_inline_only() {
    let app = app(Arc::default());
    let inline = TestClient::new(app.clone());
    let result = inline.call_tool("task_nap", json!({"ms": 5_000})).await;
    assert_eq!(
        result["structuredContent"]["error"]["code"], "timeout",
        "{result}"
    );
    let message = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        message.ends_with("call it as a task (the Tasks extension) to let it run longer"),
        "{message}"
    );

    let tasking = TestClient::new(app).with_capabilities(json!({
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }));
    let started = tasking.call_tool("task_nap", json!({"ms": 600})).await;
    assert_eq!(started["resultType"], "task", "{started}");
    let id = started["taskId"].as_str().unwrap_or_default().to_owned();
    let mut task = Value::Null;
    for _ in 0..500 {
        task = tasking.request("tasks/get", json!({"taskId": id})).await["result"].clone();
        if task["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(task["status"], "completed", "{task}");
}
