//! SIGTERM to a real server process, as an orchestrator sends it: over HTTP the calls
//! within the grace period (`MCP_SHUTDOWN_GRACE_MS`) finish, the one that outlives it
//! answers 503 with -31503, readiness turns 503, new connections are refused and the
//! process exits 0; on stdio the same, the answers on stdout before the exit.

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{start_http, Client};
use serde_json::{json, Value};

const EXPORTS: &str = env!("CARGO_BIN_EXE_exports");

fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[tokio::test]
async fn sigterm_over_http_finishes_short_calls_stops_long_ones_and_exits_cleanly() {
    let (mut server, url) = start_http(EXPORTS, &[("MCP_SHUTDOWN_GRACE_MS", "1500")]).await;
    let pid = server.0.id();
    let base = url.trim_end_matches("/mcp").to_owned();
    let http = reqwest::Client::new();
    let ready = http.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);

    // A client without the Tasks extension: exports run inline, 10 ms per row.
    let client = Client::new(&url);
    let readiness_during_drain = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        sigterm(pid);
        tokio::time::sleep(Duration::from_millis(300)).await;
        // The listener is closed at once: a new connection is refused, or (if a probe
        // races the close) told the server is draining.
        match http.get(format!("{base}/readyz")).send().await {
            Ok(response) => Some(response.status().as_u16()),
            Err(_) => None,
        }
    };
    let (short, long, readiness) = tokio::join!(
        client.call("export_report", json!({"rows": 60})),
        client.call("export_report", json!({"rows": 100000})),
        readiness_during_drain
    );
    assert!(matches!(readiness, None | Some(503)), "{readiness:?}");
    assert_eq!(short.status, 200);
    assert_eq!(short.result()["structuredContent"]["rows"], 60);
    assert_eq!(long.status, 503, "{}", long.body);
    assert_eq!(long.body["error"]["code"], -31503);

    let status = tokio::task::spawn_blocking(move || server.0.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(http.get(format!("{base}/healthz")).send().await.is_err());
}

#[test]
fn sigterm_on_stdio_answers_every_call_then_exits() {
    let mut child = Command::new(EXPORTS)
        .arg("--stdio")
        .env("MCP_SHUTDOWN_GRACE_MS", "1000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("exports starts");
    let mut stdin = child.stdin.take().unwrap();
    let call = |id: u64, rows: u32| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {
                "name": "export_report", "arguments": {"rows": rows},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }
        })
    };
    writeln!(stdin, "{}\n{}", call(1, 30), call(2, 100000)).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(150));
    sigterm(child.id());
    // The host keeps stdin open: the signal alone ends the input.
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    let status = child.wait().unwrap();
    drop(stdin);
    assert!(status.success(), "{status}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    let by_id = |id: u64| lines.iter().find(|l| l["id"] == id).unwrap();
    assert_eq!(by_id(1)["result"]["structuredContent"]["rows"], 30);
    assert_eq!(by_id(2)["error"]["code"], -31503);
}
