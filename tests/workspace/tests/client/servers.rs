//! `mcp_runtime::client::Client` against servers running as real processes, over stdio
//! and Streamable HTTP: the `interactive` fixture server (dual-era when built with
//! `legacy`, 2026-07-28 only without), and `legacy-only`, the same fixtures behind a
//! filter that answers 2026-07-28 messages as a handshake-era server does (the framework
//! always serves 2026-07-28, so the filter stands in for an old server).
//!
//! Timeouts here only keep a broken build from hanging the run; nothing asserts on time.

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Era, Layer};
use mcp_runtime::protocol::LogLevel;
use serde_json::{json, Value};
use tokio::process::{Child, Command};

const INTERACTIVE: &str = env!("CARGO_BIN_EXE_interactive");
#[cfg(feature = "legacy")]
const LEGACY_ONLY: &str = env!("CARGO_BIN_EXE_legacy-only");

/// How long anything here may take before the test counts as hung.
const HANG: Duration = Duration::from_secs(60);

async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, future)
        .await
        .expect("must not hang")
}

fn command(binary: &str, env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(binary);
    command
        .envs(env.iter().copied())
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null());
    command
}

/// A server process serving HTTP, killed when dropped.
struct Served {
    _process: Child,
    url: String,
}

/// Start `binary --http 127.0.0.1:0` and read the URL it announces on stderr.
async fn serve_http(binary: &str, env: &[(&str, &str)]) -> Served {
    serve_http_at(binary, "127.0.0.1:0", env).await
}

/// Start `binary --http addr` and read the URL it announces on stderr.
async fn serve_http_at(binary: &str, addr: &str, env: &[(&str, &str)]) -> Served {
    let mut process = Command::new(binary)
        .args(["--http", addr])
        .env("RUST_LOG", "info")
        .envs(env.iter().copied())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let url = common::announced_url(&mut process).await;
    Served {
        _process: process,
        url,
    }
}

/// A file the `interactive` server writes its cancellation count to (`PROBE_FILE`).
struct ProbeFile(PathBuf);

impl ProbeFile {
    fn new(name: &str) -> ProbeFile {
        let path =
            std::env::temp_dir().join(format!("mcp-client-{name}-{}.probe", std::process::id()));
        let _ = std::fs::remove_file(&path);
        ProbeFile(path)
    }

    fn env(&self) -> (&'static str, &str) {
        ("PROBE_FILE", self.0.to_str().expect("a UTF-8 temp path"))
    }

    /// Wait until the server has seen a cancellation.
    async fn cancelled(&self) {
        bounded(async {
            while std::fs::read_to_string(&self.0).unwrap_or_default() != "cancelled 1\n" {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
    }
}

impl Drop for ProbeFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn confirm() -> impl Fn(Value) -> std::future::Ready<Value> + Send + Sync + 'static {
    |_question| std::future::ready(json!({"action": "accept", "content": {"confirm": true}}))
}

/// The transports a test runs over: a client of a fresh `binary` process each.
enum Over {
    Stdio,
    Http,
}

async fn connect(
    over: &Over,
    binary: &str,
    env: &[(&str, &str)],
    build: impl FnOnce(mcp_runtime::client::ClientBuilder) -> mcp_runtime::client::ClientBuilder,
) -> (Result<Client, ClientError>, Option<Served>) {
    match over {
        Over::Stdio => {
            let client = bounded(build(Client::stdio(command(binary, env))).connect()).await;
            (client, None)
        }
        Over::Http => {
            let served = serve_http(binary, env).await;
            let client = bounded(build(Client::http(&served.url)).connect()).await;
            (client, Some(served))
        }
    }
}

async fn modern_connect(over: Over) {
    let (client, _served) = connect(&over, INTERACTIVE, &[], |b| b).await;
    let client = client.expect("connects");
    // S-050, S-071: the probe's DiscoverResult makes the client modern.
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(client.server_info().unwrap()["name"], "interactive");
    assert!(client.capabilities().get("tools").is_some());
    assert_eq!(client.discovery()["resultType"], "complete");
    let tools = bounded(client.list_tools()).await.expect("tools/list");
    assert!(tools.iter().any(|t| t["name"] == "transfer"), "{tools:?}");
    let called = bounded(client.call_tool("client", json!({})).into_future())
        .await
        .expect("tools/call");
    assert!(
        called["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("mcp-runtime-client"),
        "{called}"
    );
    bounded(client.close()).await;
}

use std::future::IntoFuture as _;

#[tokio::test]
async fn a_modern_server_is_spoken_to_in_2026_07_28_over_stdio() {
    modern_connect(Over::Stdio).await;
}

#[tokio::test]
async fn a_modern_server_is_spoken_to_in_2026_07_28_over_http() {
    modern_connect(Over::Http).await;
}

// ---- Falling back to the handshake, and pinning ---------------------------------------

/// Connect to the legacy-only server (with `env`) and check it is spoken to in the
/// handshake era, and that calls work there.
#[cfg(feature = "legacy")]
async fn legacy_connect(over: Over, env: &[(&str, &str)]) {
    let (client, _served) = connect(&over, LEGACY_ONLY, env, |b| {
        b.probe_timeout(Duration::from_millis(300))
    })
    .await;
    let client = client.expect("connects");
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(client.server_info().unwrap()["name"], "interactive");
    assert!(client.capabilities().get("tools").is_some());
    assert!(client.discovery().get("serverInfo").is_some());
    let called = bounded(client.call_tool("client", json!({})).into_future())
        .await
        .expect("tools/call");
    assert!(
        called["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("speaks 2025-11-25"),
        "{called}"
    );
    bounded(client.close()).await;
}

/// S-071, from the client's side: -32601 to the `server/discover` probe means an old
/// server, and the client opens with `initialize`.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn stdio_falls_back_to_the_handshake_when_the_probe_is_an_unknown_method() {
    legacy_connect(Over::Stdio, &[]).await;
}

/// No answer to the probe within the probe timeout also means an old server.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn stdio_falls_back_to_the_handshake_when_the_probe_goes_unanswered() {
    legacy_connect(Over::Stdio, &[("LEGACY_SILENT", "1")]).await;
}

/// Handshake-era HTTP: a server that forgot the session (here, restarted on the same
/// port) answers 404; the client opens a new session and sends the request again.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_forgotten_session_is_opened_again() {
    let served = serve_http(INTERACTIVE, &[]).await;
    let client = bounded(Client::http(&served.url).pin(Era::Legacy).connect())
        .await
        .expect("connects");
    bounded(client.list_tools()).await.expect("tools/list");
    let addr = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    drop(served);
    // The same address again, once the old process has let it go.
    let restarted = bounded(async {
        loop {
            if std::net::TcpListener::bind(&addr).is_ok() {
                break serve_http_at(INTERACTIVE, &addr, &[]).await;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let called = bounded(client.call_tool("client", json!({})).into_future())
        .await
        .expect("a new session");
    assert!(
        called["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("speaks 2025-11-25"),
        "{called}"
    );
    drop(restarted);
}

/// -32022 is a 2026-07-28 error: the client takes a version from its `supported`, here a
/// handshake-era one, which it then offers in `initialize`.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn an_unsupported_version_error_names_the_version_to_speak() {
    let (client, _) = connect(
        &Over::Stdio,
        LEGACY_ONLY,
        &[("LEGACY_SUPPORTED", "2025-06-18")],
        |b| b,
    )
    .await;
    let client = client.expect("connects");
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.protocol_version(), "2025-06-18");
}

/// HTTP: a 400 whose body is not a 2026-07-28 error (here the TypeScript SDK's -32000
/// "Server not initialized") means an old server (S-115 from the client's side).
#[cfg(feature = "legacy")]
#[tokio::test]
async fn http_falls_back_to_the_handshake_on_a_400_without_a_modern_error() {
    legacy_connect(Over::Http, &[]).await;
}

/// HTTP: so does a 400 with no body at all.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn http_falls_back_to_the_handshake_on_an_empty_400() {
    legacy_connect(Over::Http, &[("LEGACY_EMPTY_400", "1")]).await;
}

/// A dual-era server pinned to the handshake era: no probe, `initialize` at once, with
/// the version asked for.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_dual_era_server_can_be_pinned_to_the_handshake_era() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| {
            b.protocol_version("2025-06-18")
        })
        .await;
        let client = client.expect("connects");
        assert_eq!(client.era(), Era::Legacy);
        assert_eq!(client.protocol_version(), "2025-06-18");
        let tools = bounded(client.list_tools()).await.expect("tools/list");
        assert!(tools.iter().any(|t| t["name"] == "transfer"));
        bounded(client.close()).await;
    }
}

/// Pinned to 2026-07-28, a client does not fall back: an old server is an error.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_client_pinned_to_2026_07_28_does_not_fall_back() {
    let (stdio, _) = connect(&Over::Stdio, LEGACY_ONLY, &[], |b| b.pin(Era::Modern)).await;
    let error = stdio.err().expect("no fallback");
    assert_eq!(error.code(), Some(-32601), "{error}");
    assert_eq!(error.layer(), Layer::JsonRpc);
    let (http, _served) = connect(&Over::Http, LEGACY_ONLY, &[], |b| b.pin(Era::Modern)).await;
    let error = http.err().expect("no fallback");
    assert_eq!(error.code(), Some(-32000), "{error}");
    let (http, _served) = connect(&Over::Http, INTERACTIVE, &[], |b| b.pin(Era::Modern)).await;
    assert_eq!(http.expect("a modern server").era(), Era::Modern);
}

// ---- Questions the server asks ----------------------------------------------------------

/// The tools that ask: one question (`transfer`), two rounds (`checkout`), and all three
/// kinds at once (`gather`), answered by the client's handlers.
async fn answers_questions(client: &Client) {
    let sent = bounded(
        client
            .call_tool("transfer", json!({"amount": 5, "to": "bob"}))
            .into_future(),
    )
    .await
    .expect("answered");
    assert!(
        sent["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Sent 5 cents to bob"),
        "{sent}"
    );
    let gathered = bounded(client.call_tool("gather", json!({})).into_future())
        .await
        .expect("answered");
    assert_eq!(
        gathered["content"][0]["text"], "true / a summary / file:///work",
        "{gathered}"
    );
}

fn answering(builder: mcp_runtime::client::ClientBuilder) -> mcp_runtime::client::ClientBuilder {
    builder
        .on_elicit(confirm())
        .on_sample(|_question| async {
            json!({"role": "assistant", "content": {"type": "text", "text": "a summary"}, "model": "test"})
        })
        .on_roots(|_question| async { json!({"roots": [{"uri": "file:///work"}]}) })
}

/// 2026-07-28: `input_required` results answered, and the call sent again with
/// `inputResponses` and the `requestState`, until the result is final.
#[tokio::test]
async fn input_required_rounds_are_answered_by_the_handlers() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], answering).await;
        let client = client.expect("connects");
        assert_eq!(client.era(), Era::Modern);
        answers_questions(&client).await;
    }
}

/// The handshake era: the server's own `elicitation/create`, `sampling/createMessage` and
/// `roots/list` requests answered (over HTTP they come on the POST's SSE stream and are
/// answered with a POST).
#[cfg(feature = "legacy")]
#[tokio::test]
async fn the_servers_requests_are_answered_by_the_handlers_in_the_handshake_era() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) =
            connect(&over, LEGACY_ONLY, &[], |b| answering(b).pin(Era::Legacy)).await;
        let client = client.expect("connects");
        assert_eq!(client.era(), Era::Legacy);
        answers_questions(&client).await;
    }
}

/// A client that declares `elicitation` (say, for another component of its host) but
/// has no handler: the call ends with an error naming what the server asked.
#[tokio::test]
async fn a_question_without_a_handler_is_a_typed_error() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], declaring_elicitation).await;
        let client = client.expect("connects");
        let error = bounded(
            client
                .call_tool("transfer", json!({"amount": 5, "to": "bob"}))
                .into_future(),
        )
        .await
        .expect_err("unanswered");
        match &error {
            ClientError::InputUnanswered { method, params } => {
                assert_eq!(method, "elicitation/create");
                assert_eq!(params["message"], "Send 5 cents to bob?");
            }
            other => panic!("expected InputUnanswered, got {other:?}"),
        }
        assert_eq!(error.layer(), Layer::Mcp);
    }
}

fn declaring_elicitation(
    builder: mcp_runtime::client::ClientBuilder,
) -> mcp_runtime::client::ClientBuilder {
    builder.capabilities(json!({"elicitation": {}}))
}

/// A client that neither answers nor declares elicitation gets the server's -32021,
/// which names the capability the call needs.
#[tokio::test]
async fn a_question_the_client_did_not_declare_is_refused_by_the_server() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| b).await;
        let client = client.expect("connects");
        let error = bounded(
            client
                .call_tool("transfer", json!({"amount": 5, "to": "bob"}))
                .into_future(),
        )
        .await
        .expect_err("refused");
        assert_eq!(error.code(), Some(-32021), "{error}");
        assert_eq!(error.layer(), Layer::Mcp);
    }
}

/// The same over handshake-era HTTP, where the question comes on the call's own stream.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_question_without_a_handler_is_a_typed_error_on_handshake_era_http() {
    let (client, _served) = connect(&Over::Http, LEGACY_ONLY, &[], |b| {
        declaring_elicitation(b).pin(Era::Legacy)
    })
    .await;
    let client = client.expect("connects");
    let error = bounded(
        client
            .call_tool("transfer", json!({"amount": 5, "to": "bob"}))
            .into_future(),
    )
    .await
    .expect_err("unanswered");
    assert!(
        matches!(&error, ClientError::InputUnanswered { method, .. } if method == "elicitation/create"),
        "{error:?}"
    );
}

// ---- Cancellation, timeouts, progress, logs ---------------------------------------------

/// Start `wait_for_cancel`, wait for its first progress report (the handler runs), drop
/// the call's future, and wait for the server's handler to see the cancellation.
async fn cancel_reaches_the_server(over: Over, binary: &str, pin: Option<Era>) {
    let probe = ProbeFile::new(&format!("cancel-{}", std::process::id() ^ rand_suffix()));
    let (client, _served) = connect(&over, binary, &[probe.env()], |b| match pin {
        Some(era) => b.pin(era),
        None => b,
    })
    .await;
    let client = client.expect("connects");
    let (started, mut running) = tokio::sync::mpsc::unbounded_channel();
    let call = client
        .call_tool("wait_for_cancel", json!({}))
        .on_progress(move |_| {
            let _ = started.send(());
        })
        .into_future();
    bounded(async {
        tokio::select! {
            _ = call => panic!("the call ended before it was cancelled"),
            _ = running.recv() => {}
        }
    })
    .await;
    // The call's future is dropped here: the request is cancelled.
    probe.cancelled().await;
}

/// A different suffix per call in this process, so parallel tests use different files.
fn rand_suffix() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) << 16
}

/// stdio: dropping the call sends `notifications/cancelled` (S-067 from the client's side).
#[tokio::test]
async fn dropping_a_call_cancels_it_on_the_server_over_stdio() {
    cancel_reaches_the_server(Over::Stdio, INTERACTIVE, None).await;
}

/// HTTP: dropping the call closes its SSE response, which is the cancellation (S-090).
#[tokio::test]
async fn dropping_a_call_cancels_it_on_the_server_over_http() {
    cancel_reaches_the_server(Over::Http, INTERACTIVE, None).await;
}

/// The handshake era: the same, over stdio and HTTP (where the client also posts
/// `notifications/cancelled`).
#[cfg(feature = "legacy")]
#[tokio::test]
async fn dropping_a_call_cancels_it_on_the_server_in_the_handshake_era() {
    cancel_reaches_the_server(Over::Stdio, INTERACTIVE, Some(Era::Legacy)).await;
    cancel_reaches_the_server(Over::Http, INTERACTIVE, Some(Era::Legacy)).await;
}

/// A request past its timeout fails with `Timeout` (transport layer), and is cancelled on
/// the server.
#[tokio::test]
async fn a_request_past_its_timeout_fails_and_is_cancelled() {
    for over in [Over::Stdio, Over::Http] {
        let probe = ProbeFile::new(&format!("timeout-{}", rand_suffix()));
        let (client, _served) = connect(&over, INTERACTIVE, &[probe.env()], |b| b).await;
        let client = client.expect("connects");
        let error = bounded(
            client
                .call_tool("wait_for_cancel", json!({}))
                .timeout(Duration::from_millis(500))
                .into_future(),
        )
        .await
        .expect_err("times out");
        assert!(
            matches!(&error, ClientError::Timeout { method, .. } if method == "tools/call"),
            "{error:?}"
        );
        assert_eq!(error.layer(), Layer::Transport);
        probe.cancelled().await;
    }
}

/// Progress goes to the call's callback; log messages to the log handler.
#[tokio::test]
async fn progress_and_log_messages_reach_their_handlers() {
    let mut cases = vec![(Over::Stdio, None), (Over::Http, None)];
    // Handshake era: the level is set with `logging/setLevel` after the handshake.
    if cfg!(feature = "legacy") {
        cases.extend([
            (Over::Stdio, Some(Era::Legacy)),
            (Over::Http, Some(Era::Legacy)),
        ]);
    }
    for (over, pin) in cases {
        let logged = Arc::new(Mutex::new(Vec::new()));
        let sink = logged.clone();
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| {
            let b = b.on_log(LogLevel::Warning, move |message| {
                sink.lock().unwrap().push(message)
            });
            match pin {
                Some(era) => b.pin(era),
                None => b,
            }
        })
        .await;
        let client = client.expect("connects");
        let progress = Arc::new(Mutex::new(Vec::new()));
        let reports = progress.clone();
        let done = bounded(
            client
                .call_tool("crunch", json!({"steps": 3}))
                .on_progress(move |p| reports.lock().unwrap().push(p["progress"].clone()))
                .into_future(),
        )
        .await
        .expect("crunch");
        assert_eq!(
            done["content"][0]["text"],
            "3 steps, progress requested: true"
        );
        assert_eq!(
            *progress.lock().unwrap(),
            vec![json!(1.0), json!(2.0), json!(3.0)]
        );
        bounded(client.call_tool("chatty", json!({})).into_future())
            .await
            .expect("chatty");
        let levels: Vec<Value> = logged
            .lock()
            .unwrap()
            .iter()
            .map(|m| m["level"].clone())
            .collect();
        assert_eq!(
            levels,
            vec![
                json!("warning"),
                json!("error"),
                json!("critical"),
                json!("alert"),
                json!("emergency")
            ]
        );
    }
}

// ---- Errors in their layers -------------------------------------------------------------

/// Transport: a server process that exits, and an address nobody listens on.
#[tokio::test]
async fn a_broken_connection_is_a_transport_error() {
    let exits = Client::stdio(Command::new("true")).connect();
    let error = bounded(exits).await.err().expect("no server");
    assert_eq!(error.layer(), Layer::Transport, "{error}");
    let missing = Client::stdio(Command::new("/nonexistent/mcp-server")).connect();
    let error = bounded(missing).await.err().expect("no server");
    assert_eq!(error.layer(), Layer::Transport, "{error}");
    let refused = Client::http("http://127.0.0.1:1/mcp").connect();
    let error = bounded(refused).await.err().expect("nobody listens");
    assert!(
        matches!(error, ClientError::Transport { status: None, .. }),
        "{error:?}"
    );
}

/// JSON-RPC: a method the server does not know (S-017, S-095).
#[tokio::test]
async fn an_unknown_method_is_a_jsonrpc_error() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| b).await;
        let client = client.expect("connects");
        let error = bounded(client.request("no/such/method", json!({})).into_future())
            .await
            .expect_err("unknown");
        assert_eq!(error.code(), Some(-32601), "{error}");
        assert_eq!(error.layer(), Layer::JsonRpc);
    }
}

/// MCP: a header that disagrees with the body is -32020 (S-106).
#[tokio::test]
async fn a_header_mismatch_is_an_mcp_error() {
    let served = serve_http(INTERACTIVE, &[]).await;
    let client = bounded(Client::http(&served.url).connect())
        .await
        .expect("connects");
    let error = bounded(
        client
            .call_tool("client", json!({}))
            .header("Mcp-Name", "whoami")
            .into_future(),
    )
    .await
    .expect_err("refused");
    assert_eq!(error.code(), Some(-32020), "{error}");
    assert_eq!(error.layer(), Layer::Mcp);
}

/// Business: a tool that reports failure (`isError: true`) gives its whole result.
#[tokio::test]
async fn a_tool_error_is_a_business_error() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| {
            b.on_elicit(|_question| async { json!({"action": "decline"}) })
        })
        .await;
        let client = client.expect("connects");
        let error = bounded(client.call_tool("nickname", json!({})).into_future())
            .await
            .expect_err("declined");
        match &error {
            ClientError::Business(result) => {
                assert_eq!(result["isError"], true);
                assert_eq!(result["content"][0]["text"], "no nickname given");
            }
            other => panic!("expected Business, got {other:?}"),
        }
        assert_eq!(error.layer(), Layer::Business);
    }
}

// ---- Mirrored headers, closing, traces --------------------------------------------------

/// HTTP: the arguments a tool mirrors (`x-mcp-header`) go into `Mcp-Param-*` headers
/// (base64 where the value is not plain ASCII), learned from `tools/list`. A call made
/// before any listing is refused by the server (-32020, S-106); the client then lists the
/// tools and sends it again, as the spec advises.
#[tokio::test]
async fn mirrored_arguments_go_into_mcp_param_headers() {
    let served = serve_http(INTERACTIVE, &[]).await;
    let client = bounded(Client::http(&served.url).connect())
        .await
        .expect("connects");
    let shipment = json!({
        "tenant": "acme",
        "destination": {"country": "DE", "city": "Köln"},
        "priority": 3,
    });
    let booked = bounded(
        client
            .call_tool("book_shipment", shipment.clone())
            .into_future(),
    )
    .await
    .expect("booked before any listing");
    assert_eq!(
        booked["content"][0]["text"],
        "Shipping for acme to Köln, DE (priority 3)"
    );
    let booked = bounded(
        client
            .call_tool("book_shipment", shipment.clone())
            .into_future(),
    )
    .await
    .expect("booked");
    assert_eq!(booked["isError"], Value::Null);
    // The header the server compares is the client's: a wrong one is refused.
    let error = bounded(
        client
            .call_tool("book_shipment", shipment)
            .header("Mcp-Param-Tenant", "globex")
            .into_future(),
    )
    .await
    .expect_err("mismatch");
    assert_eq!(error.code(), Some(-32020), "{error}");
}

/// HTTP: the builder's headers go with every request; `bearer` is the `Authorization`
/// one. Without the key the server refuses the connection with 401: a transport error
/// with its status, whatever JSON-RPC error the body holds.
#[tokio::test]
async fn the_builders_headers_go_with_every_request() {
    const KEY: &str = "0123456789abcdef0123456789abcdef-client-test";
    let served = serve_http(INTERACTIVE, &[("API_KEY", KEY)]).await;
    let client = bounded(Client::http(&served.url).bearer(KEY).connect())
        .await
        .expect("connects");
    let me = bounded(client.call_tool("whoami", json!({})).into_future())
        .await
        .expect("whoami");
    assert_eq!(me["content"][0]["text"], "api-client");
    let client = bounded(
        Client::http(&served.url)
            .header("Authorization", &format!("Bearer {KEY}"))
            .connect(),
    )
    .await
    .expect("connects");
    assert_eq!(client.era(), Era::Modern);
    let refused = bounded(Client::http(&served.url).connect()).await;
    assert!(
        matches!(
            refused,
            Err(ClientError::Transport {
                status: Some(401),
                ..
            })
        ),
        "{:?}",
        refused.err()
    );
}

/// `close` ends the connection for every clone: later calls fail with `Closed`, in the
/// transport layer; over stdio, a call still running fails too.
#[tokio::test]
async fn a_closed_client_fails_in_the_transport_layer() {
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| b).await;
        let client = client.expect("connects");
        let (started, mut running) = tokio::sync::mpsc::unbounded_channel();
        let waiting = tokio::spawn(
            client
                .call_tool("wait_for_cancel", json!({}))
                .on_progress(move |_| {
                    let _ = started.send(());
                })
                .into_future(),
        );
        bounded(running.recv()).await;
        let clone = client.clone();
        bounded(client.close()).await;
        let error = bounded(clone.list_tools()).await.expect_err("closed");
        assert!(matches!(error, ClientError::Closed), "{error:?}");
        assert_eq!(error.layer(), Layer::Transport);
        if let Over::Stdio = over {
            let error = bounded(waiting).await.unwrap().expect_err("ended");
            assert_eq!(error.layer(), Layer::Transport, "{error}");
        }
    }
}

/// The trace events of a capture: each event's fields, by name.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<std::collections::BTreeMap<String, String>>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Captured {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Fields<'a>(&'a mut std::collections::BTreeMap<String, String>);
        impl tracing::field::Visit for Fields<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                self.0.insert(field.name().to_owned(), value.to_owned());
            }
        }
        if event.metadata().target() != "mcp_runtime::client" {
            return;
        }
        let mut fields = std::collections::BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(fields);
    }
}

/// Each request leaves one trace event per phase, with the protocol version, transport,
/// method, name, request id, phase and error layer.
#[tokio::test]
async fn each_phase_of_a_request_is_a_trace_event() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let captured = Captured::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(captured.clone()));
    let client = bounded(
        Client::stdio(command(INTERACTIVE, &[]))
            .on_elicit(confirm())
            .connect(),
    )
    .await
    .expect("connects");
    // The other tests of this binary run beside this one without a subscriber. A callsite
    // one of them reached first while `set_default` above was registering the capture
    // can keep the interest it computed without it ("never"), and its events then reach
    // no one. Computed again now, every callsite sees the capture.
    tracing::callsite::rebuild_interest_cache();
    captured.0.lock().unwrap().clear();
    bounded(
        client
            .call_tool("transfer", json!({"amount": 5, "to": "bob"}))
            .into_future(),
    )
    .await
    .expect("answered");
    let _ = bounded(client.request("no/such/method", json!({})).into_future()).await;
    let events = captured.0.lock().unwrap().clone();
    let seen: Vec<(String, String, String, String)> = events
        .iter()
        .filter(|e| e.contains_key("phase"))
        .map(|e| {
            assert_eq!(e["protocol_version"], "2026-07-28");
            assert_eq!(e["transport"], "stdio");
            assert!(e["request_id"].parse::<u64>().is_ok(), "{e:?}");
            (
                e["method"].clone(),
                e["name"].clone(),
                e["phase"].clone(),
                e["error_layer"].clone(),
            )
        })
        .collect();
    let expected = [
        ("tools/call", "transfer", "sent", ""),
        ("tools/call", "transfer", "input_required", ""),
        ("tools/call", "transfer", "sent", ""),
        ("tools/call", "transfer", "completed", ""),
        ("no/such/method", "", "sent", ""),
        ("no/such/method", "", "failed", "jsonrpc"),
    ]
    .map(|(m, n, p, l)| (m.to_owned(), n.to_owned(), p.to_owned(), l.to_owned()));
    assert_eq!(seen, expected);
}

/// `subscriptions/listen` as a stream: acknowledged with what the server honours, then
/// the notifications asked for, tagged with the subscription.
#[tokio::test]
async fn a_subscription_is_a_stream_of_its_notifications() {
    use futures_util::StreamExt as _;
    for over in [Over::Stdio, Over::Http] {
        let (client, _served) = connect(&over, INTERACTIVE, &[], |b| b).await;
        let client = client.expect("connects");
        let mut subscription = bounded(client.listen(json!({
            "toolsListChanged": true,
            "resourceSubscriptions": ["vault://alpha"],
        })))
        .await
        .expect("subscribed");
        assert_eq!(subscription.acknowledged()["toolsListChanged"], true);
        bounded(client.call_tool("toggle", json!({})).into_future())
            .await
            .expect("toggled");
        let mut methods = Vec::new();
        for _ in 0..2 {
            let notification = bounded(subscription.next()).await.expect("a notification");
            assert!(notification["params"]["_meta"]
                .get("io.modelcontextprotocol/subscriptionId")
                .is_some());
            methods.push(notification["method"].as_str().unwrap().to_owned());
        }
        methods.sort();
        assert_eq!(
            methods,
            [
                "notifications/resources/updated",
                "notifications/tools/list_changed"
            ]
        );
    }
}
