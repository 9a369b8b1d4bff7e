//! `mcp_runtime::client::Client` against servers we did not write, in `tests/servers`:
//! `dual-era.mjs` (TypeScript SDK v2, 2026-07-28 and the handshake era), `legacy-only.mjs`
//! (TypeScript SDK v1, handshake era only) and `@modelcontextprotocol/server-everything`
//! (the reference server, handshake era only), over stdio and Streamable HTTP.
//!
//! They need Node.js and `npm ci` in `tests/servers` (the test command does both), so
//! they are ignored in a plain `cargo test`; run them with `--ignored`. Set
//! `MCP_TEST_SERVERS` to use an installation elsewhere.
//!
//! Timeouts here only keep a broken build from hanging the run; nothing asserts on time.

use std::future::IntoFuture as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use mcp_runtime::client::{Client, ClientBuilder, ClientError, Era};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const HANG: Duration = Duration::from_secs(60);

async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, future)
        .await
        .expect("must not hang")
}

fn servers() -> PathBuf {
    std::env::var_os("MCP_TEST_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../servers"))
}

const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

fn node(args: &[&str]) -> Command {
    let mut command = Command::new("node");
    command
        .current_dir(servers())
        .args(args)
        .stderr(Stdio::null())
        .kill_on_drop(true);
    command
}

/// A server process serving HTTP, killed when dropped.
struct Served {
    _process: Child,
    url: String,
}

/// Start one of our scripts with `--http 127.0.0.1:0` (and `extra`) and read the URL it
/// announces on stderr.
async fn script_http(script: &str, extra: &[&str]) -> Served {
    let mut args = vec![script, "--http", "127.0.0.1:0"];
    args.extend(extra);
    let mut command = node(&args);
    let mut process = command.stderr(Stdio::piped()).spawn().expect("node starts");
    let stderr = process.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    const MARKER: &str = "serving MCP over Streamable HTTP at ";
    let url = bounded(async {
        loop {
            let line = lines
                .next_line()
                .await
                .expect("stderr reads")
                .expect("the server announces its URL");
            if let Some(at) = line.find(MARKER) {
                break line[at + MARKER.len()..]
                    .split_whitespace()
                    .next()
                    .expect("a URL")
                    .to_owned();
            }
        }
    })
    .await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Served {
        _process: process,
        url,
    }
}

/// Start server-everything over HTTP: it needs a real port (it announces the `PORT` it
/// was given), so take one that was free a moment ago and wait until it accepts.
async fn everything_http() -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let process = node(&[EVERYTHING, "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
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

fn saying_yes(builder: ClientBuilder) -> ClientBuilder {
    builder.on_elicit(|_question| async { json!({"action": "accept", "content": {"yes": true}}) })
}

/// What our two scripts serve, through `client` in `era`: every tool over all pages, a
/// structured result, a tool error, an elicitation answered, a resource, a prompt, and a
/// cancelled call that the server saw cancelled.
async fn scripted(client: Client, era: Era, elicits: bool) {
    assert_eq!(client.era(), era);
    let tools = bounded(client.list_tools()).await.expect("tools/list");
    assert_eq!(tools.len(), 17, "all pages of 5");
    let sum = bounded(
        client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .into_future(),
    )
    .await
    .expect("add");
    assert_eq!(sum["structuredContent"]["sum"], 5);
    let failed = bounded(client.call_tool("fail", json!({})).into_future()).await;
    assert!(
        matches!(&failed, Err(ClientError::Business(r)) if r["isError"] == true),
        "{failed:?}"
    );
    if elicits {
        let confirmed = bounded(client.call_tool("confirm", json!({})).into_future())
            .await
            .expect("confirm");
        assert_eq!(confirmed["content"][0]["text"], "confirmed");
    }
    let read = bounded(client.read_resource("text://greeting").into_future())
        .await
        .expect("read");
    assert_eq!(read["contents"][0]["text"], "hello");
    let prompt = bounded(
        client
            .get_prompt("greet", json!({"name": "Ada"}))
            .into_future(),
    )
    .await
    .expect("prompt");
    assert!(prompt["messages"][0]["content"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("Ada")));
    let before = cancelled(&client).await;
    let timed_out = bounded(
        client
            .call_tool("slow", json!({"ms": 30000}))
            .timeout(Duration::from_millis(300))
            .into_future(),
    )
    .await;
    assert!(
        matches!(timed_out, Err(ClientError::Timeout { .. })),
        "{timed_out:?}"
    );
    bounded(async {
        while cancelled(&client).await == before {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    bounded(client.close()).await;
}

async fn cancelled(client: &Client) -> u64 {
    let count = bounded(client.call_tool("cancelled_count", json!({})).into_future())
        .await
        .expect("cancelled_count");
    count["structuredContent"]["cancelled"]
        .as_u64()
        .expect("a count")
}

#[tokio::test]
#[ignore = "needs Node.js and `npm ci` in tests/servers"]
async fn the_typescript_dual_era_server_is_spoken_to_in_2026_07_28() {
    let client = bounded(saying_yes(Client::stdio(node(&["dual-era.mjs", "--stdio"]))).connect())
        .await
        .expect("connects");
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(client.server_info().unwrap()["name"], "dual-era");
    scripted(client, Era::Modern, true).await;
    let served = script_http("dual-era.mjs", &[]).await;
    let client = bounded(saying_yes(Client::http(&served.url)).connect())
        .await
        .expect("connects");
    scripted(client, Era::Modern, true).await;
}

#[tokio::test]
#[ignore = "needs Node.js and `npm ci` in tests/servers"]
async fn the_typescript_dual_era_server_pinned_to_the_handshake_era() {
    let client = bounded(
        saying_yes(Client::stdio(node(&["dual-era.mjs", "--stdio"])))
            .pin(Era::Legacy)
            .connect(),
    )
    .await
    .expect("connects");
    assert_eq!(client.protocol_version(), "2025-11-25");
    scripted(client, Era::Legacy, true).await;
    // Its default HTTP handshake era is stateless: no session, so it cannot elicit.
    let served = script_http("dual-era.mjs", &[]).await;
    let client = bounded(
        saying_yes(Client::http(&served.url))
            .pin(Era::Legacy)
            .connect(),
    )
    .await
    .expect("connects");
    scripted(client, Era::Legacy, false).await;
    let served = script_http("dual-era.mjs", &["--legacy-sessions"]).await;
    let client = bounded(
        saying_yes(Client::http(&served.url))
            .pin(Era::Legacy)
            .connect(),
    )
    .await
    .expect("connects");
    scripted(client, Era::Legacy, true).await;
}

#[tokio::test]
#[ignore = "needs Node.js and `npm ci` in tests/servers"]
async fn the_typescript_legacy_only_server_gets_the_handshake() {
    // stdio: it answers the probe with -32601.
    let client =
        bounded(saying_yes(Client::stdio(node(&["legacy-only.mjs", "--stdio"]))).connect())
            .await
            .expect("connects");
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(client.server_info().unwrap()["name"], "legacy-only");
    scripted(client, Era::Legacy, true).await;
    // HTTP: a 400 with -32000 "No valid session ID provided".
    let served = script_http("legacy-only.mjs", &[]).await;
    let client = bounded(saying_yes(Client::http(&served.url)).connect())
        .await
        .expect("connects");
    scripted(client, Era::Legacy, true).await;
}

#[tokio::test]
#[ignore = "needs Node.js and `npm ci` in tests/servers"]
async fn server_everything_gets_the_handshake() {
    let answers = |builder: ClientBuilder| {
        builder.on_elicit(|question: Value| async move {
            assert!(question["requestedSchema"]["properties"]
                .get("name")
                .is_some());
            json!({"action": "accept", "content": {"name": "Ada"}})
        })
    };
    let stdio = Client::stdio(node(&[EVERYTHING, "stdio"]));
    let client = bounded(answers(stdio).connect()).await.expect("connects");
    let served = everything_http().await;
    let http = bounded(answers(Client::http(&served.url)).connect())
        .await
        .expect("connects");
    for client in [client, http] {
        assert_eq!(client.era(), Era::Legacy);
        assert_eq!(client.protocol_version(), "2025-11-25");
        assert_eq!(
            client.server_info().unwrap()["name"],
            "mcp-servers/everything"
        );
        let sum = bounded(
            client
                .call_tool("get-sum", json!({"a": 2, "b": 3}))
                .into_future(),
        )
        .await
        .expect("get-sum");
        assert_eq!(sum["content"][0]["text"], "The sum of 2 and 3 is 5.");
        let elicited = bounded(
            client
                .call_tool("trigger-elicitation-request", json!({}))
                .into_future(),
        )
        .await
        .expect("elicitation answered");
        assert!(elicited.to_string().contains("Name: Ada"), "{elicited}");
        bounded(client.close()).await;
    }
}
