//! The gateway building block (`gateway::Upstream`, `Server::mount`) in front of a server
//! we did not write: `tests/servers/legacy-only.mjs`, a TypeScript SDK v1 server of the
//! handshake era only, over stdio. A 2026-07-28 client of the gateway (stateless, no
//! handshake) lists the prefixed tools and calls them, gets the prefixed prompt and reads
//! the resource;
//! `isError` passes through; each
//! tenant gets its own upstream process with its own credential; a tenant without one is
//! refused.
//!
//! Needs node and tests/servers/node_modules (`npm ci` there; scripts/test-all.sh does it),
//! so the tests are ignored by default: `MCP_TEST_SERVERS=1 cargo test --workspace --test
//! gateway -- --ignored`.

use std::path::PathBuf;

use mcp_runtime::client::{Client, ClientBuilder};
use mcp_runtime::gateway::Upstream;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::ToolRef;
use serde_json::{json, Value};

const NEEDS: &str = "needs node and tests/servers/node_modules: set MCP_TEST_SERVERS=1 after `npm ci` in tests/servers (scripts/test-all.sh does both)";

fn servers_dir() -> PathBuf {
    assert!(std::env::var_os("MCP_TEST_SERVERS").is_some(), "{NEEDS}");
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../servers")
}

/// A client of a new `<script> --stdio` process whose environment holds `token`
/// as `UPSTREAM_TOKEN`: the credential of one tenant. The process first appends the token
/// to `spawn_log`, so the test can count the processes and tell whose they were.
fn upstream(token: &str, spawn_log: &PathBuf) -> ClientBuilder {
    upstream_of("legacy-only.mjs", token, spawn_log)
}

fn upstream_of(script: &str, token: &str, spawn_log: &PathBuf) -> ClientBuilder {
    let dir = servers_dir();
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg("printf '%s\\n' \"$UPSTREAM_TOKEN\" >> \"$SPAWN_LOG\"; exec node \"$SCRIPT\" --stdio")
        .env("SCRIPT", script)
        .current_dir(dir)
        .env("UPSTREAM_TOKEN", token)
        .env("SPAWN_LOG", spawn_log)
        .kill_on_drop(true);
    Client::stdio(command)
}

/// The gateway: the upstream `legacy`, tenants `acme` and `globex` with a token each.
async fn gateway(spawn_log: &PathBuf) -> mcp_runtime::App {
    let log = spawn_log.clone();
    let upstream = Upstream::discover("legacy", upstream("discovery", spawn_log), move |caller| {
        let token = match caller?.tenant()? {
            "acme" => "token-acme",
            "globex" => "token-globex",
            _ => return None,
        };
        Some(upstream(token, &log))
    })
    .await
    .unwrap();
    Server::new("gateway", "1.0.0")
        // Only the mounted tools: none of the test binary's own.
        .only(Vec::<ToolRef>::new())
        .mount(upstream)
        .build()
        .unwrap()
}

fn spawn_log(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("gateway-{name}-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn spawned(path: &PathBuf) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn tenant(name: &str) -> Principal {
    Principal::new(format!("{name}-user")).with_tenant(name)
}

async fn all_tool_names(client: &TestClient) -> Vec<String> {
    let mut names = Vec::new();
    let mut params = json!({});
    loop {
        let response = client.request("tools/list", params).await;
        let result = &response["result"];
        for tool in result["tools"].as_array().cloned().unwrap_or_default() {
            names.extend(tool["name"].as_str().map(str::to_owned));
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => return names,
        }
    }
}

#[tokio::test]
#[ignore = "needs node and tests/servers/node_modules: MCP_TEST_SERVERS=1 (scripts/test-all.sh installs them)"]
async fn a_modern_client_lists_and_calls_the_tools_of_a_legacy_only_upstream() {
    let log = spawn_log("calls");
    let app = gateway(&log).await;
    // Discovery used its own credential, once.
    assert_eq!(spawned(&log), ["discovery"]);
    let client = TestClient::new(app).as_principal(tenant("acme"));
    let names = all_tool_names(&client).await;
    for expected in [
        "legacy.add",
        "legacy.fail",
        "legacy.confirm",
        "legacy.filler_11",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
    }
    // The upstream pages its list by 5; the gateway serves all 17 tools.
    assert_eq!(names.len(), 17, "{names:?}");
    // A 2026-07-28 call, stateless (no handshake with the gateway), forwarded to the
    // handshake-era upstream.
    let result = client
        .call_tool("legacy.add", json!({"a": 2, "b": 3}))
        .await;
    assert_eq!(result["structuredContent"]["sum"], 5, "{result}");
    assert_eq!(result["content"][0]["text"], "5", "{result}");
    // The upstream's input schema is checked here: a wrong call never reaches it.
    let result = client.call_tool("legacy.add", json!({"a": "two"})).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Invalid arguments for tool `legacy.add`"),
        "{text}"
    );
    // isError passes through, with the upstream's own text.
    let result = client.call_tool("legacy.fail", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"], "this tool always fails",
        "{result}"
    );
    // A question of the upstream (elicitation) is not relayed: the gateway's client
    // refuses it, and this upstream reports the refusal as a tool error.
    let result = client.call_tool("legacy.confirm", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("elicitation/create"), "{text}");
    // The upstream's prompt is mounted too, its arguments checked here.
    let response = client.request("prompts/list", json!({})).await;
    assert_eq!(
        response["result"]["prompts"][0]["name"], "legacy.greet",
        "{response}"
    );
    let result = client
        .get_prompt("legacy.greet", json!({"name": "Ada"}))
        .await;
    assert_eq!(
        result["messages"][0]["content"]["text"], "Say hello to Ada.",
        "{result}"
    );
    let response = client
        .request(
            "prompts/get",
            json!({"name": "legacy.greet", "arguments": {}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    // Its resource too, at its own URI, read with the caller's client.
    let response = client.request("resources/list", json!({})).await;
    let resources = &response["result"]["resources"];
    assert_eq!(resources[0]["uri"], "text://greeting", "{response}");
    assert_eq!(resources[0]["name"], "legacy.greeting", "{response}");
    let result = client.read_resource("text://greeting").await;
    assert_eq!(result["contents"][0]["text"], "hello", "{result}");
    assert_eq!(result["cacheScope"], "private", "{result}");
    // All of acme's calls went through one upstream process.
    assert_eq!(spawned(&log), ["discovery", "token-acme"]);
}

#[tokio::test]
#[ignore = "needs node and tests/servers/node_modules: MCP_TEST_SERVERS=1 (scripts/test-all.sh installs them)"]
async fn each_tenant_has_its_own_upstream_client_and_an_unmapped_one_is_refused() {
    let log = spawn_log("tenants");
    let app = gateway(&log).await;
    let acme = TestClient::new(app.clone()).as_principal(tenant("acme"));
    let globex = TestClient::new(app.clone()).as_principal(tenant("globex"));
    for round in 0..2 {
        for client in [&acme, &globex] {
            let result = client
                .call_tool("legacy.add", json!({"a": round, "b": 1}))
                .await;
            assert_eq!(result["structuredContent"]["sum"], round + 1, "{result}");
        }
    }
    // One process per tenant, started with that tenant's credential; kept across calls.
    assert_eq!(spawned(&log), ["discovery", "token-acme", "token-globex"]);
    // A tenant the mapping does not know, and a caller with no principal: refused before
    // anything reaches the upstream.
    for client in [
        TestClient::new(app.clone()).as_principal(tenant("initech")),
        TestClient::new(app.clone()),
    ] {
        let response = client
            .request(
                "tools/call",
                json!({"name": "legacy.add", "arguments": {"a": 1, "b": 1}}),
            )
            .await;
        assert_eq!(response["error"]["code"], -31403, "{response}");
    }
    assert_eq!(spawned(&log), ["discovery", "token-acme", "token-globex"]);
    let _ = std::fs::remove_file(&log);
}

#[tokio::test]
#[ignore = "needs node and tests/servers/node_modules: MCP_TEST_SERVERS=1 (scripts/test-all.sh installs them)"]
async fn a_question_of_a_modern_upstream_ends_the_call_with_a_tool_error() {
    // dual-era.mjs speaks 2026-07-28 to the gateway's client, which declares no
    // elicitation capability: its `confirm` is refused upstream (-32021), and the caller
    // gets that as a tool error naming what was asked.
    let log = spawn_log("question");
    let modern = |token: &str, log: &PathBuf| upstream_of("dual-era.mjs", token, log);
    let per_caller_log = log.clone();
    let upstream = Upstream::discover("modern", modern("discovery", &log), move |_caller| {
        Some(modern("anyone", &per_caller_log))
    })
    .await
    .unwrap();
    let app = Server::new("gateway", "1.0.0")
        .only(Vec::<ToolRef>::new())
        .mount(upstream)
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let result = client
        .call_tool("modern.add", json!({"a": 1, "b": 2}))
        .await;
    assert_eq!(result["structuredContent"]["sum"], 3, "{result}");
    let result = client.call_tool("modern.confirm", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("The upstream server failed on `modern.confirm`")
            && text.contains("elicitation/create"),
        "{text}"
    );
    let _ = std::fs::remove_file(&log);
}
