//! `mcp_runtime::client::Client` against servers we did not write (tests/servers): the
//! TypeScript SDK v2 serving both eras, a TypeScript SDK v1 server of the handshake era
//! only, and the reference `server-everything` (SDK v1), each over stdio and HTTP. The
//! fallback matrix, lists across pages, questions answered in both eras, tool errors and
//! cancellation.
//!
//! They need Node and `npm ci` in tests/servers, so they are ignored in a plain
//! `cargo test`; the test command installs the servers and runs them with `--ignored`.
//! Timeouts here only keep a broken server from hanging the run; nothing asserts on time.

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use mcp_runtime::client::{Client, ClientBuilder, ClientError, Era};
use serde_json::{json, Value};
use tokio::process::{Child, Command};

const HANG: Duration = Duration::from_secs(60);

async fn bounded<T>(future: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(HANG, future)
        .await
        .expect("must not hang")
}

fn servers() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../servers")
}

/// `node SCRIPT ARGS` in tests/servers, its stderr (where it logs) dropped.
fn node(script: &str, args: &[&str]) -> Command {
    let mut command = Command::new("node");
    command
        .current_dir(servers())
        .arg(script)
        .args(args)
        .stderr(Stdio::null());
    command
}

const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// A server process serving HTTP, killed when dropped.
struct Served {
    _process: Child,
    url: String,
}

/// `node SCRIPT --http 127.0.0.1:0 ARGS`, with the URL it announces on stderr.
async fn serve(script: &str, args: &[&str]) -> Served {
    let mut process = Command::new("node")
        .current_dir(servers())
        .arg(script)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let url = common::announced_url(&mut process).await;
    Served {
        _process: process,
        url,
    }
}

/// server-everything over HTTP: it takes its port from `PORT` and cannot take port 0.
async fn serve_everything() -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let process = Command::new("node")
        .current_dir(servers())
        .args([EVERYTHING, "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    bounded(async {
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    Served {
        _process: process,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// Answers every question yes.
fn agreeing(builder: ClientBuilder) -> ClientBuilder {
    builder.on_elicit(|_question: Value| async {
        json!({"action": "accept", "content": {"yes": true}})
    })
}

async fn connect(builder: ClientBuilder) -> Client {
    bounded(agreeing(builder).connect())
        .await
        .expect("connects")
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// What every fixture script offers, whatever the era: a structured result, every page of
/// the tool list, a tool error, and a question answered by the handler.
async fn the_fixture_tools_work(client: &Client) {
    let sum = bounded(client.call_tool("add", json!({"a": 2, "b": 3})))
        .await
        .expect("add");
    assert_eq!(sum["structuredContent"], json!({"sum": 5}));
    // 17 tools in pages of 5: the list follows nextCursor to the end.
    let tools = bounded(client.list_tools()).await.expect("the list");
    assert_eq!(tools.len(), 17, "{tools:?}");
    match bounded(client.call_tool("fail", json!({}))).await {
        Err(ClientError::Business(result)) => assert_eq!(result["isError"], true),
        other => panic!("a tool error is a business error, not {other:?}"),
    }
    let confirmed = bounded(client.call_tool("confirm", json!({})))
        .await
        .expect("confirm");
    assert_eq!(text(&confirmed), "confirmed");
    let read = bounded(client.read_resource("text://greeting"))
        .await
        .expect("read");
    assert!(read["contents"][0]["text"].is_string(), "{read}");
    let prompt = bounded(client.get_prompt("greet", json!({"name": "Ada"})))
        .await
        .expect("get");
    assert!(prompt["messages"].is_array(), "{prompt}");
}

#[tokio::test]
#[ignore = "needs Node and `npm ci` in tests/servers; the test command runs it"]
async fn a_dual_era_server_of_another_sdk_is_spoken_to_in_2026_07_28() {
    let stdio = connect(Client::stdio(node("dual-era.mjs", &["--stdio"]))).await;
    assert_eq!(
        (stdio.era(), stdio.protocol_version()),
        (Era::Modern, "2026-07-28")
    );
    the_fixture_tools_work(&stdio).await;
    stdio.close().await;

    let served = serve("dual-era.mjs", &[]).await;
    let http = connect(Client::http(&served.url)).await;
    assert_eq!(
        (http.era(), http.protocol_version()),
        (Era::Modern, "2026-07-28")
    );
    the_fixture_tools_work(&http).await;
    http.close().await;
}

#[tokio::test]
#[ignore = "needs Node and `npm ci` in tests/servers; the test command runs it"]
async fn a_dual_era_server_of_another_sdk_pinned_to_the_handshake_era() {
    let stdio = connect(Client::stdio(node("dual-era.mjs", &["--stdio"])).pin(Era::Legacy)).await;
    assert_eq!(stdio.era(), Era::Legacy);
    the_fixture_tools_work(&stdio).await;
    stdio.close().await;

    // With sessions, its handshake era asks questions on the call's stream.
    let served = serve("dual-era.mjs", &["--legacy-sessions"]).await;
    let http = connect(Client::http(&served.url).pin(Era::Legacy)).await;
    assert_eq!(http.era(), Era::Legacy);
    the_fixture_tools_work(&http).await;
    http.close().await;
}

#[tokio::test]
#[ignore = "needs Node and `npm ci` in tests/servers; the test command runs it"]
async fn a_handshake_only_server_gets_the_handshake_after_its_refusal() {
    let stdio = connect(Client::stdio(node("legacy-only.mjs", &["--stdio"]))).await;
    assert_eq!(
        (stdio.era(), stdio.protocol_version()),
        (Era::Legacy, "2025-11-25")
    );
    the_fixture_tools_work(&stdio).await;
    stdio.close().await;

    let served = serve("legacy-only.mjs", &[]).await;
    let http = connect(Client::http(&served.url)).await;
    assert_eq!(
        (http.era(), http.protocol_version()),
        (Era::Legacy, "2025-11-25")
    );
    the_fixture_tools_work(&http).await;
    http.close().await;
}

#[tokio::test]
#[ignore = "needs Node and `npm ci` in tests/servers; the test command runs it"]
async fn the_reference_server_everything_in_both_transports() {
    let stdio = connect(Client::stdio(node(EVERYTHING, &["stdio"]))).await;
    assert_eq!(stdio.era(), Era::Legacy);
    let echo = bounded(stdio.call_tool("echo", json!({"message": "hi"})))
        .await
        .expect("echo");
    assert_eq!(text(&echo), "Echo: hi");
    stdio.close().await;

    let served = serve_everything().await;
    let http = connect(Client::http(&served.url)).await;
    assert_eq!(http.era(), Era::Legacy);
    assert!(
        http.capabilities()["tools"].is_object(),
        "{}",
        http.capabilities()
    );
    let tools = bounded(http.list_tools()).await.expect("the list");
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{tools:?}");
    let echo = bounded(http.call_tool("echo", json!({"message": "hi"})))
        .await
        .expect("echo");
    assert_eq!(text(&echo), "Echo: hi");
    http.close().await;
}

/// A `slow` call given up by its timeout is cancelled on the server: its own count of
/// cancelled calls goes up.
async fn a_call_past_its_timeout_is_cancelled(client: &Client) {
    let slow = client
        .call_tool("slow", json!({"ms": 60_000}))
        .timeout(Duration::from_millis(300))
        .await;
    assert!(matches!(slow, Err(ClientError::Timeout { .. })), "{slow:?}");
    bounded(async {
        loop {
            let count = client
                .call_tool("cancelled_count", json!({}))
                .await
                .expect("count");
            if count["structuredContent"]["cancelled"].as_u64() >= Some(1) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Node and `npm ci` in tests/servers; the test command runs it"]
async fn cancellation_reaches_servers_of_other_sdks() {
    for client in [
        connect(Client::stdio(node("dual-era.mjs", &["--stdio"]))).await,
        connect(Client::stdio(node("legacy-only.mjs", &["--stdio"]))).await,
    ] {
        a_call_past_its_timeout_is_cancelled(&client).await;
        client.close().await;
    }
    let modern = serve("dual-era.mjs", &[]).await;
    let legacy = serve("legacy-only.mjs", &[]).await;
    for url in [&modern.url, &legacy.url] {
        let client = connect(Client::http(url)).await;
        a_call_past_its_timeout_is_cancelled(&client).await;
        client.close().await;
    }
}

#[tokio::test]
#[ignore = "needs Node and `npm ci` in tests/servers; the test command runs it"]
async fn server_everythings_questions_are_answered_over_both_transports() {
    let answers = |builder: ClientBuilder| {
        builder.on_elicit(|question: Value| async move {
            // Its form asks for a name among other, optional, fields.
            assert!(question["requestedSchema"]["properties"]
                .get("name")
                .is_some());
            json!({"action": "accept", "content": {"name": "Ada"}})
        })
    };
    let stdio = bounded(answers(Client::stdio(node(EVERYTHING, &["stdio"]))).connect())
        .await
        .expect("connects");
    let served = serve_everything().await;
    let http = bounded(answers(Client::http(&served.url)).connect())
        .await
        .expect("connects");
    for client in [stdio, http] {
        assert_eq!(client.protocol_version(), "2025-11-25");
        let name = client.server_info().map(|info| info["name"].clone());
        assert_eq!(name, Some(json!("mcp-servers/everything")));
        let sum = bounded(client.call_tool("get-sum", json!({"a": 2, "b": 3})))
            .await
            .expect("get-sum");
        assert_eq!(text(&sum), "The sum of 2 and 3 is 5.");
        let elicited = bounded(client.call_tool("trigger-elicitation-request", json!({})))
            .await
            .expect("the question is answered");
        assert!(elicited.to_string().contains("Name: Ada"), "{elicited}");
        client.close().await;
    }
}
