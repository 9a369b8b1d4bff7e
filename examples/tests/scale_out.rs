//! Scale-out behind a real nginx: three `conformance-server` instances share only the seal
//! key and a task store, behind the committed configurations in `examples/deploy/nginx/`.
//!
//! - 2026-07-28, round robin (`modern.conf`):
//!   - lists are identical on every instance, and cursors work on any of them (S-245);
//!   - a multi-round call started on one instance finishes on another;
//!   - a task made on one instance is polled through the others;
//!   - one instance killed mid-run while the others keep serving.
//! - Handshake era (`legacy.conf`): `hash $http_mcp_session_id` keeps each session on one
//!   instance, and `initialize` may land on any.
//! - A gateway (`gateway.conf`) routes and rate-limits on a tool's mirrored argument, the
//!   `Mcp-Param-Region` header, without reading bodies.
//!
//! `#[ignore]`: it needs nginx. The test command installs it (`scripts/nginx.sh`) and runs
//! this test with `--ignored`, with `MCP_TEST_NGINX` naming the binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, serve_http, Client, Running};
use serde_json::{json, Value};

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");
const SEAL_KEY: &str = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

struct Instance {
    process: Running,
    url: String,
    metrics: String,
}

struct Fleet {
    instances: Vec<Instance>,
    dir: PathBuf,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn fleet(name: &str) -> Fleet {
    let dir = std::env::temp_dir().join(format!("mcp-scale-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("tasks.db").to_str().unwrap().to_owned();
    let mut instances = Vec::new();
    for _ in 0..3 {
        let served = serve_http(
            SERVER,
            &[
                ("MCP_SEAL_KEY", SEAL_KEY),
                ("MCP_STORE", store.as_str()),
                ("MCP_PAGE_SIZE", "5"),
                ("MCP_METRICS_ADDR", "127.0.0.1:0"),
            ],
        )
        .await;
        instances.push(Instance {
            process: served.process,
            url: served.url,
            metrics: served.metrics.expect("the metrics endpoint is announced"),
        });
    }
    Fleet { instances, dir }
}

/// An nginx master process, stopped with SIGTERM so it takes its workers along (a
/// SIGKILL would leave them serving the port).
struct Nginx(std::process::Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        for _ in 0..100 {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// nginx in the foreground with `config` (from `examples/deploy/nginx/`), its ports
/// replaced by ours; the URL of its `/mcp`.
async fn nginx(fleet: &Fleet, config: &str) -> (Nginx, String) {
    let binary = std::env::var("MCP_TEST_NGINX").unwrap_or_else(|_| "/usr/sbin/nginx".into());
    assert!(
        Path::new(&binary).exists(),
        "no nginx at {binary}: run scripts/nginx.sh (it installs the Debian package) and set MCP_TEST_NGINX"
    );
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy/nginx")
        .join(config);
    let template = std::fs::read_to_string(&source).unwrap();
    let prefix = fleet.dir.join(config.trim_end_matches(".conf"));
    std::fs::create_dir_all(&prefix).unwrap();
    let conf = prefix.join("nginx.conf");
    // nginx cannot announce a port the system picked, so it gets one that was free a
    // moment ago; should something take it first, nginx exits and another is tried.
    for _ in 0..5 {
        let port = free_port();
        let mut text = template.replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
        for (placeholder, instance) in ["8081", "8082", "8083"].iter().zip(&fleet.instances) {
            let address = instance
                .url
                .trim_start_matches("http://")
                .trim_end_matches("/mcp");
            text = text.replace(&format!("127.0.0.1:{placeholder}"), address);
        }
        std::fs::write(&conf, text).unwrap();
        let mut child = Command::new(&binary)
            .arg("-p")
            .arg(&prefix)
            .arg("-e")
            .arg(prefix.join("error.log"))
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("nginx starts");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break;
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return (Nginx(child), format!("http://127.0.0.1:{port}/mcp"));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        drop(Nginx(child));
    }
    panic!("nginx did not start listening with {config} (its errors are above)");
}

/// Every tool name, page by page, and the cursors that led there.
async fn all_pages(client: &Client) -> (Vec<String>, Vec<String>) {
    let (mut names, mut cursors) = (Vec::new(), Vec::new());
    let mut params = json!({});
    loop {
        let reply = client.send("tools/list", None, params.clone()).await;
        let result = reply.result();
        for tool in result["tools"].as_array().unwrap() {
            names.push(tool["name"].as_str().unwrap().to_owned());
        }
        match result["nextCursor"].as_str() {
            Some(cursor) => {
                cursors.push(cursor.to_owned());
                params = json!({"cursor": cursor});
            }
            None => return (names, cursors),
        }
    }
}

/// `requests` counted by an instance's metrics for `method`, all outcomes.
async fn served(instance: &Instance, method: &str) -> u64 {
    let text = reqwest::get(&instance.metrics)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with(&format!("mcp_requests_total{{method=\"{method}\"")))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx; the test command runs it with --ignored"]
async fn round_robin_over_three_instances_shares_lists_rounds_and_tasks_and_survives_a_kill() {
    let mut fleet = fleet("modern").await;
    let (_nginx, url) = nginx(&fleet, "modern.conf").await;
    let front = Client::new(&url);
    let direct: Vec<Client> = fleet
        .instances
        .iter()
        .map(|i| Client::new(&i.url))
        .collect();

    // Lists: the same pages everywhere; through nginx each page comes from the next
    // instance, and every instance continues from any instance's cursor.
    let (through_nginx, cursors) = all_pages(&front).await;
    assert!(cursors.len() >= 3, "several pages: {cursors:?}");
    for client in &direct {
        assert_eq!(all_pages(client).await.0, through_nginx);
    }
    let second_page = |reply: common::Reply| reply.result()["tools"].clone();
    let expected = second_page(
        direct[0]
            .send("tools/list", None, json!({"cursor": cursors[0]}))
            .await,
    );
    for client in &direct[1..] {
        let page = second_page(
            client
                .send("tools/list", None, json!({"cursor": cursors[0]}))
                .await,
        );
        assert_eq!(
            page, expected,
            "a cursor means the same page on every instance"
        );
    }
    for instance in &fleet.instances {
        assert!(
            served(instance, "tools/list").await >= 2,
            "round robin reached every instance"
        );
    }

    // A multi-round call: asked on the first instance, answered on the second.
    let direct: Vec<Client> = direct
        .into_iter()
        .map(|mut c| {
            c.capabilities = json!({"elicitation": {"form": {}}});
            c
        })
        .collect();
    let asked = direct[0]
        .call("test_input_required_result_elicitation", json!({}))
        .await;
    let asked = asked.result();
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let answered = direct[1]
        .send(
            "tools/call",
            Some("test_input_required_result_elicitation"),
            json!({
                "name": "test_input_required_result_elicitation",
                "arguments": {},
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": asked["requestState"],
            }),
        )
        .await;
    assert_eq!(
        answered.result()["content"][0]["text"],
        "Hello, Ada!",
        "{}",
        answered.body
    );

    // A task: made on the first instance, polled on the second and third.
    let tasking: Vec<Client> = fleet
        .instances
        .iter()
        .map(|i| Client::new(&i.url).taking_tasks())
        .collect();
    let made = tasking[0]
        .call("slow_compute", json!({"seconds": 1, "label": "fleet"}))
        .await;
    assert_eq!(made.result()["resultType"], "task", "{}", made.body);
    let id = made.result()["taskId"].as_str().unwrap().to_owned();
    let seen = tasking[1].task(&id).await;
    assert!(
        matches!(
            seen.result()["status"].as_str(),
            Some("working" | "completed")
        ),
        "{}",
        seen.body
    );
    let done = tasking[2].wait_for(&id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Computed fleet in 1 s",
        "{done}"
    );

    // One instance killed under load: the others keep serving through nginx.
    let load = |stop_at: Instant| {
        let url = url.clone();
        tokio::spawn(async move {
            let client = Client::new(&url);
            let http = reqwest::Client::new();
            let (mut ok, mut failed) = (0u64, Vec::new());
            while Instant::now() < stop_at {
                let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "name": "greet", "arguments": {"name": "fleet"},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": client.capabilities,
                    }
                }});
                let sent = http
                    .post(&client.url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "greet")
                    .body(message.to_string())
                    .send()
                    .await;
                let at = Instant::now();
                match sent {
                    Ok(response) if response.status() == 200 => {
                        let bytes = response.bytes().await.unwrap_or_default();
                        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                        if body["result"]["resultType"] == "complete" {
                            ok += 1;
                        } else {
                            failed.push((at, body.to_string()));
                        }
                    }
                    Ok(response) => failed.push((at, format!("HTTP {}", response.status()))),
                    Err(e) => failed.push((at, e.to_string())),
                }
            }
            (ok, failed)
        })
    };
    let stop_at = Instant::now() + Duration::from_secs(3);
    let workers: Vec<_> = (0..4).map(|_| load(stop_at)).collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let killed_at = Instant::now();
    fleet.instances[2].process.kill();
    let (mut ok, mut failed) = (0, Vec::new());
    for worker in workers {
        let (o, f) = worker.await.unwrap();
        ok += o;
        failed.extend(f);
    }
    // Only a call that was inside the killed process can fail (nginx does not resend a
    // POST it already delivered); everything after is served by the other two.
    assert!(failed.len() <= 4, "{failed:?}");
    for (at, what) in &failed {
        assert!(
            at.duration_since(killed_at) < Duration::from_millis(500),
            "a failure long after the kill: {what}"
        );
    }
    assert!(ok > 100, "{ok} calls served");
    let after = Client::new(&url)
        .call("greet", json!({"name": "after"}))
        .await;
    assert_eq!(after.status, 200);
    println!(
        "scale-out: {ok} calls served while one of three instances was killed; {} failed at the kill",
        failed.len()
    );
}

/// The handshake era through `legacy.conf`: sessions opened through nginx serve every
/// later message, wherever `initialize` landed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx; the test command runs it with --ignored"]
async fn hashing_the_session_header_keeps_each_handshake_era_session_on_one_instance() {
    let fleet = fleet("legacy").await;
    let (_nginx, url) = nginx(&fleet, "legacy.conf").await;
    let http = reqwest::Client::new();
    let post = |session: Option<&str>, body: Value| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    const SESSIONS: usize = 6;
    for n in 0..SESSIONS {
        let opened = post(
            None,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "fleet", "version": "1"}
            }}),
        )
        .await
        .unwrap();
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let initialized = post(
            Some(&session),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await
        .unwrap();
        assert_eq!(initialized.status(), 202);
        for id in 1..=3 {
            let called = post(
                Some(&session),
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": "greet", "arguments": {"name": format!("s{n}")}}}),
            )
            .await
            .unwrap();
            assert_eq!(called.status(), 200);
            let body: Value = serde_json::from_slice(&called.bytes().await.unwrap()).unwrap();
            assert_eq!(
                body["result"]["content"][0]["text"],
                format!("Hello, s{n}!"),
                "{body}"
            );
        }
    }
    // `initialize` went round robin; each session's calls went where its id hashes.
    let mut opened_on = Vec::new();
    let mut calls_on = Vec::new();
    for instance in &fleet.instances {
        opened_on.push(served(instance, "initialize").await);
        calls_on.push(served(instance, "tools/call").await);
    }
    println!(
        "legacy scale-out: initialize per instance {opened_on:?}, calls per instance {calls_on:?}"
    );
    assert_eq!(opened_on.iter().sum::<u64>(), SESSIONS as u64);
    assert!(
        opened_on.iter().filter(|n| **n > 0).count() >= 2,
        "{opened_on:?}"
    );
    assert_eq!(calls_on.iter().sum::<u64>(), 3 * SESSIONS as u64);
    assert!(
        calls_on.iter().all(|n| n % 3 == 0),
        "a session's calls stay together: {calls_on:?}"
    );
}

/// `gateway.conf`: calls go to their region's instance and are rate-limited per region, on
/// the `Mcp-Param-Region` header alone; a header that says another region than the body is
/// refused by the instance it reached, before the tool runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx; the test command runs it with --ignored"]
async fn a_gateway_routes_and_rate_limits_on_a_mirrored_argument() {
    let fleet = fleet("gateway").await;
    let (_nginx, url) = nginx(&fleet, "gateway.conf").await;
    let client = Client::new(&url);
    let query = |body_region: &'static str, header_region: &'static str| {
        let client = &client;
        async move {
            client
                .send_with(
                    "tools/call",
                    Some("test_custom_headers"),
                    json!({"name": "test_custom_headers", "arguments": {
                        "region": body_region, "limit": 10, "dry_run": false, "query": "stock"
                    }}),
                    &[
                        ("Mcp-Param-Region", header_region),
                        ("Mcp-Param-Limit", "10"),
                        ("Mcp-Param-Dry-Run", "false"),
                    ],
                )
                .await
        }
    };
    let calls = || async {
        let mut counts = Vec::new();
        for instance in &fleet.instances {
            counts.push(served(instance, "tools/call").await);
        }
        counts
    };

    // Each region's calls reach its own instance (8081 is eu, 8082 us).
    let before = calls().await;
    for region in ["eu", "us", "eu"] {
        let reply = query(region, region).await;
        assert_eq!(
            reply.result()["content"][0]["text"],
            format!("Ran stock in {region}, at most 10 rows.")
        );
    }
    let after = calls().await;
    let delta: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(delta, [2, 1, 0], "calls per instance");

    // A header that lies about the body: routed as eu, refused there (S-101, S-108).
    let lie = query("us", "eu").await;
    assert_eq!(lie.status, 400, "{}", lie.body);
    assert_eq!(lie.body["error"]["code"], -32020);

    // Per-region rate limit: eu runs out, us is unaffected.
    let mut limited = None;
    for n in 0..200 {
        let reply = query("eu", "eu").await;
        if reply.status == 429 {
            limited = Some(n);
            break;
        }
        assert_eq!(reply.status, 200, "{}", reply.body);
    }
    assert!(limited.is_some(), "eu was never rate-limited");
    let us = query("us", "us").await;
    assert_eq!(us.status, 200, "another region keeps its own budget");
    // A handshake-era request naming the throttled region is not counted against it: its
    // server does not check the header, so the gateway does not trust it.
    let legacy = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-param-region", "eu")
        .body(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "gateway", "version": "1"}
            }})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(legacy.status(), 200, "not rate-limited as eu");
    println!(
        "gateway: eu rate-limited after {} calls",
        limited.unwrap_or(0)
    );
}
