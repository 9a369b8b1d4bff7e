//! A bounded soak: `bench-server` over HTTP at steady concurrency for `MCP_SOAK_SECS`
//! (default 120 s), with every response checked. It ends with zero errors, and the
//! server's RSS, open file descriptors and live tokio tasks at the end are within 10% of
//! their values after warm-up. The same counts are taken idle before and after the load,
//! so connections and tasks that outlive their requests would show.
//!
//! `#[ignore]`: the test command runs it with `--ignored`; alone:
//! `MCP_SOAK_SECS=600 cargo test -p mcp-examples --test soak -- --ignored --nocapture`
//! (`MCP_SOAK_SERVER=target/release/bench-server` soaks a release build).

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::serve_http;
use serde_json::{json, Value};

const CONNECTIONS: usize = 16;

/// What the server process holds at one moment.
#[derive(Debug, Clone, Copy)]
struct Sample {
    rss_kib: u64,
    fds: u64,
    tasks: u64,
}

async fn sample(pid: u32, metrics: &str, http: &reqwest::Client) -> Sample {
    // The scrape comes first, so the probe's own keep-alive connection is open in every
    // sample.
    let text = http
        .get(metrics)
        .send()
        .await
        .expect("metrics answer")
        .text()
        .await
        .expect("metrics text");
    let tasks = text
        .lines()
        .find_map(|l| l.strip_prefix("mcp_runtime_alive_tasks "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("mcp_runtime_alive_tasks in {text}"));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("/proc fd")
        .count() as u64;
    Sample {
        rss_kib,
        fds,
        tasks,
    }
}

fn within(after: u64, before: u64, percent: u64) -> bool {
    after * 100 <= before * (100 + percent) && after * 100 >= before * (100 - percent)
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// One request of the mix and its check; `Err` says what was wrong.
async fn one(http: &reqwest::Client, url: &str, n: u64) -> Result<(), String> {
    let (body, name) = match n % 10 {
        // Mostly calls, some lists, and a call with a wrong argument (a business error
        // the model can fix), so the error path soaks too.
        0 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/list", "params": {"_meta": meta()}}),
            None,
        ),
        1 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": "x", "b": 1}, "_meta": meta()}}),
            Some("add"),
        ),
        _ => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": n, "b": 7}, "_meta": meta()}}),
            Some("add"),
        ),
    };
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let mut request = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", &method)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    let response = request.send().await.map_err(|e| format!("send: {e}"))?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| format!("body: {e}"))?;
    let answer: Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("request {n}: HTTP {status}: {e}"))?;
    let ok = status == 200
        && answer["id"] == n
        && match n % 10 {
            0 => answer["result"]["tools"][0]["name"] == "add",
            1 => answer["result"]["isError"] == true,
            _ => answer["result"]["structuredContent"]["sum"] == n + 7,
        };
    if ok {
        Ok(())
    } else {
        Err(format!("request {n}: HTTP {status}: {answer}"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes long; the test command runs it with --ignored"]
async fn a_steady_load_leaks_nothing() {
    let seconds: u64 = std::env::var("MCP_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    let warmup = Duration::from_secs((seconds / 8).clamp(5, 30));
    // The test command soaks the release build; alone, the test's own build serves.
    let binary = std::env::var("MCP_SOAK_SERVER")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_bench-server").to_owned());
    let served = serve_http(&binary, &[("MCP_METRICS_ADDR", "127.0.0.1:0")]).await;
    let (server, url) = (served.process, served.url);
    let pid = server.0.id();
    let metrics = served.metrics.expect("the metrics endpoint is announced");
    let probe = reqwest::Client::new();
    let idle_before = sample(pid, &metrics, &probe).await;

    let counter = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let mut workers = Vec::new();
    for _ in 0..CONNECTIONS {
        let (url, counter, errors) = (url.clone(), counter.clone(), errors.clone());
        // One keep-alive connection per worker, as a host's HTTP client keeps.
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .expect("a client");
        workers.push(tokio::spawn(async move {
            while Instant::now() < end {
                let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
                if let Err(e) = one(&http, &url, n).await {
                    let mut errors = errors.lock().unwrap();
                    if errors.len() < 20 {
                        errors.push(e);
                    }
                }
            }
        }));
    }
    tokio::time::sleep(warmup).await;
    let warm = sample(pid, &metrics, &probe).await;
    let calls_at_warm = counter.load(Ordering::Relaxed);
    tokio::time::sleep_until(tokio::time::Instant::from_std(end - Duration::from_secs(1))).await;
    let loaded_end = sample(pid, &metrics, &probe).await;
    for worker in workers {
        worker.await.expect("a worker");
    }
    let calls = counter.load(Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    // Let the workers' connections close, then count again.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let idle_after = sample(pid, &metrics, &probe).await;
    let errors = errors.lock().unwrap().clone();

    println!(
        "soak: {calls} requests in {elapsed:.0} s ({:.0}/s) over {CONNECTIONS} connections, {} errors",
        calls as f64 / elapsed,
        errors.len()
    );
    println!(
        "soak: after warm-up ({calls_at_warm} requests): RSS {} KiB, {} fds, {} tasks; at the end: RSS {} KiB ({:+.1}%), {} fds, {} tasks",
        warm.rss_kib,
        warm.fds,
        warm.tasks,
        loaded_end.rss_kib,
        (loaded_end.rss_kib as f64 / warm.rss_kib as f64 - 1.0) * 100.0,
        loaded_end.fds,
        loaded_end.tasks
    );
    println!(
        "soak: idle before: {} fds, {} tasks; idle after: {} fds, {} tasks",
        idle_before.fds, idle_before.tasks, idle_after.fds, idle_after.tasks
    );
    assert!(errors.is_empty(), "errors: {errors:#?}");
    assert!(calls > calls_at_warm, "the load kept going");
    assert!(
        within(loaded_end.rss_kib, warm.rss_kib, 10),
        "RSS moved more than 10%: {warm:?} -> {loaded_end:?}"
    );
    assert!(
        within(loaded_end.fds, warm.fds, 10),
        "descriptors moved more than 10%: {warm:?} -> {loaded_end:?}"
    );
    assert!(
        within(loaded_end.tasks, warm.tasks, 10),
        "tasks moved more than 10%: {warm:?} -> {loaded_end:?}"
    );
    assert_eq!(
        (idle_after.fds, idle_after.tasks),
        (idle_before.fds, idle_before.tasks),
        "connections or tasks outlived the load"
    );
    drop(server);
}
