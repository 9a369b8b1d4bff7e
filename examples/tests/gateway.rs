//! The `gateway` example as a process over HTTP, in front of a server we did not write
//! (`tests/servers/legacy-only.mjs`, handshake era only, over stdio), called by the
//! framework's own `Client`: each tenant with its API key is served in 2026-07-28 and
//! reaches the upstream's tools; a key the gateway does not know is refused.
//!
//! Needs node and tests/servers/node_modules, so ignored by default:
//! `MCP_TEST_SERVERS=1 cargo test --workspace --test gateway -- --ignored`.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Era};
use serde_json::json;

mod common;
use common::Running;

const ACME_KEY: &str = "gw-key-acme-0123456789";
const GLOBEX_KEY: &str = "gw-key-globex-0123456789";

/// Start the gateway over HTTP with `legacy-only.mjs` as the upstream `legacy`; the
/// process and its endpoint.
fn start_gateway() -> (Running, String) {
    assert!(
        std::env::var_os("MCP_TEST_SERVERS").is_some(),
        "needs node and tests/servers/node_modules: set MCP_TEST_SERVERS=1 after `npm ci` in tests/servers"
    );
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/servers/legacy-only.mjs");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg("--upstream")
        .arg(format!("legacy=node {} --stdio", script.display()))
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .env(
            "GATEWAY_TENANTS",
            format!("acme:{ACME_KEY}:upstream-acme,globex:{GLOBEX_KEY}:upstream-globex"),
        )
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gateway starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines, announced) = std::sync::mpsc::channel::<String>();
    // Keep draining: a full pipe would stall the gateway.
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let running = Running(child);
    let marker = "serving MCP over Streamable HTTP at ";
    let mut written = Vec::new();
    // A bound so a broken start fails instead of hanging.
    while let Ok(line) = announced.recv_timeout(Duration::from_secs(60)) {
        if let Some(at) = line.find(marker) {
            let rest = &line[at + marker.len()..];
            let end = rest.find([' ', '"', '\\']).unwrap_or(rest.len());
            return (running, rest[..end].to_owned());
        }
        written.push(line);
    }
    panic!("the gateway did not start:\n{}", written.join("\n"));
}

#[tokio::test]
#[ignore = "needs node and tests/servers/node_modules: MCP_TEST_SERVERS=1 (scripts/test-all.sh installs them)"]
async fn tenants_call_a_legacy_only_upstream_through_the_gateway_in_2026_07_28() {
    let (_gateway, url) = start_gateway();
    for (key, a) in [(ACME_KEY, 2), (GLOBEX_KEY, 40)] {
        let client = Client::http(&url).bearer(key).connect().await.unwrap();
        assert_eq!(client.era(), Era::Modern);
        assert_eq!(client.protocol_version(), "2026-07-28");
        let names: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        assert!(names.iter().any(|n| n == "legacy.add"), "{names:?}");
        assert_eq!(names.len(), 17, "{names:?}");
        let result = client
            .call_tool("legacy.add", json!({"a": a, "b": 1}))
            .await
            .unwrap();
        assert_eq!(result["structuredContent"]["sum"], a + 1, "{result}");
        match client.call_tool("legacy.fail", json!({})).await {
            Err(ClientError::Business(result)) => {
                assert_eq!(result["content"][0]["text"], "this tool always fails")
            }
            other => panic!("{other:?}"),
        }
        client.close().await;
    }
    // A key the gateway does not know: refused at the door.
    let refused = Client::http(&url)
        .bearer("gw-key-unknown-0123456789")
        .connect()
        .await;
    match refused {
        Err(ClientError::Transport { status, .. }) => assert_eq!(status, Some(401)),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("an unknown key connected"),
    }
}
