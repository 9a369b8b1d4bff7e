//! `Server::mount` in front of our own servers (no node needed): the `interactive`
//! fixtures as a process over stdio, where progress the upstream reports reaches the
//! gateway's caller, and a caller whose upstream connection failed or died gets a tool
//! error, then a new connection on its next call; an HTTP upstream that knows one API
//! key per tenant, reached by each tenant with its own; the upstream's tool hints
//! published only when the operator trusts it; and each caller held to its quotas of
//! calls in flight, time and bytes.

use std::path::{Path, PathBuf};

use mcp_runtime::client::{Client, ClientBuilder};
use mcp_runtime::gateway::Upstream;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::ToolRef;
use serde_json::{json, Value};

fn log_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("mount-{name}-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// A client of a new `interactive --stdio` process, started through `sh`, which first
/// appends its process id to `log`. With `fail_first` set, the first process started
/// with this log exits at once instead (its connection fails).
fn upstream(log: &Path, fail_first: bool) -> ClientBuilder {
    let script = if fail_first {
        "if [ ! -s \"$LOG\" ]; then echo failed >> \"$LOG\"; exit 1; fi; echo $$ >> \"$LOG\"; exec \"$UPSTREAM\" --stdio"
    } else {
        "echo $$ >> \"$LOG\"; exec \"$UPSTREAM\" --stdio"
    };
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(script)
        .env("LOG", log)
        .env("UPSTREAM", env!("CARGO_BIN_EXE_interactive"))
        .kill_on_drop(true);
    Client::stdio(command)
}

fn started(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A gateway mounting `interactive` as `up`: discovery through its own process (not
/// logged), callers' processes logged in `log`.
async fn gateway(log: &Path, fail_first: bool) -> mcp_runtime::App {
    gateway_with(log, fail_first, |upstream| upstream).await
}

/// [`gateway`], with `configure` applied to the upstream before it is mounted.
async fn gateway_with(
    log: &Path,
    fail_first: bool,
    configure: impl FnOnce(Upstream) -> Upstream,
) -> mcp_runtime::App {
    let discovery = log.with_extension("discovery");
    let log = log.to_owned();
    let upstream = Upstream::discover("up", upstream(&discovery, false), move |_caller| {
        Some(upstream(&log, fail_first))
    })
    .await
    .unwrap();
    let _ = std::fs::remove_file(discovery);
    Server::new("gateway", "1.0.0")
        .only(Vec::<ToolRef>::new())
        .mount(configure(upstream))
        .build()
        .unwrap()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn upstream_progress_reaches_the_caller() {
    let log = log_file("progress");
    let client = TestClient::new(gateway(&log, false).await);
    let (notifications, response) = client
        .request_with_notifications(
            "tools/call",
            json!({
                "name": "up.crunch",
                "arguments": {"steps": 3},
                "_meta": {"progressToken": "p-1"}
            }),
        )
        .await;
    assert_eq!(
        text(&response["result"]),
        "3 steps, progress requested: true",
        "{response}"
    );
    // The upstream's own `serverInfo` stays behind: the result names the gateway.
    assert_eq!(
        response["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "gateway"
    );
    let progress: Vec<&Value> = notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| &n["params"])
        .collect();
    assert_eq!(progress.len(), 3, "{notifications:?}");
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(p["progressToken"], "p-1");
        assert_eq!(p["progress"], (i + 1) as f64);
        assert_eq!(p["total"], 3.0);
        assert_eq!(p["message"], format!("step {}", i + 1));
    }
    // Without a token, the upstream is not asked for progress either.
    let result = client.call_tool("up.crunch", json!({"steps": 2})).await;
    assert_eq!(
        text(&result),
        "2 steps, progress requested: false",
        "{result}"
    );
    let _ = std::fs::remove_file(&log);
}

#[tokio::test]
async fn a_failed_connection_is_a_tool_error_and_the_next_call_connects_again() {
    let log = log_file("reconnect");
    let client = TestClient::new(gateway(&log, true).await);
    let result = client.call_tool("up.whoami", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text(&result).contains("The upstream server of `up.whoami` could not be reached"),
        "{result}"
    );
    let result = client.call_tool("up.crunch", json!({"steps": 1})).await;
    assert_eq!(result.get("isError"), None, "{result}");
    let lines = started(&log);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0], "failed");

    // The caller's upstream process dies: its next call fails as a tool error, and the
    // one after that runs in a new process.
    let status = std::process::Command::new("kill")
        .args(["-9", &lines[1]])
        .status()
        .unwrap();
    assert!(status.success());
    let mut failed = 0;
    // A bound, so a gateway that never reconnects fails instead of looping.
    for _ in 0..50 {
        let result = client.call_tool("up.crunch", json!({"steps": 1})).await;
        if result["isError"] == true {
            assert!(
                text(&result)
                    .contains("The upstream server failed on `up.crunch` (transport error)"),
                "{result}"
            );
            failed += 1;
            continue;
        }
        assert_eq!(
            text(&result),
            "1 steps, progress requested: false",
            "{result}"
        );
        break;
    }
    assert_eq!(failed, 1, "one call fails, the next reconnects");
    assert_eq!(started(&log).len(), 3, "{:?}", started(&log));
    let _ = std::fs::remove_file(&log);
}

/// An upstream over HTTP that knows two API keys, one per tenant of the gateway, and says
/// who called (`whoami`); its endpoint URL.
async fn http_upstream_with_keys() -> String {
    use mcp_runtime::policy::api_keys::ApiKeys;
    let keys = ApiKeys::new()
        .key(
            "upstream-key-of-acme-01",
            Principal::new("acme-at-upstream"),
        )
        .unwrap()
        .key(
            "upstream-key-of-globex-01",
            Principal::new("globex-at-upstream"),
        )
        .unwrap();
    let app = Server::new("upstream", "1.0.0")
        .only(mcp_runtime::tools![
            mcp_workspace_tests::interactive::whoami
        ])
        .verify_tokens(keys)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = app.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

#[tokio::test]
async fn each_tenant_reaches_an_http_upstream_with_its_own_bearer_token() {
    let url = http_upstream_with_keys().await;
    let per_caller_url = url.clone();
    let upstream = Upstream::discover(
        "up",
        Client::http(&url).bearer("upstream-key-of-acme-01"),
        move |caller| {
            let key = match caller?.tenant()? {
                "acme" => "upstream-key-of-acme-01",
                "globex" => "upstream-key-of-globex-01",
                _ => return None,
            };
            Some(Client::http(&per_caller_url).bearer(key))
        },
    )
    .await
    .unwrap();
    let app = Server::new("gateway", "1.0.0")
        .only(Vec::<ToolRef>::new())
        .mount(upstream)
        .build()
        .unwrap();
    for (tenant, expected) in [
        ("acme", "acme-at-upstream"),
        ("globex", "globex-at-upstream"),
    ] {
        let client = TestClient::new(app.clone())
            .as_principal(Principal::new(format!("someone-of-{tenant}")).with_tenant(tenant));
        for _ in 0..2 {
            let result = client.call_tool("up.whoami", json!({})).await;
            assert_eq!(text(&result), expected, "{result}");
        }
    }
}

/// The annotations of `name` in a `tools/list` result.
fn annotations_of(listed: &Value, name: &str) -> Value {
    listed["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .map(|tool| tool.get("annotations").cloned().unwrap_or(Value::Null))
        .unwrap_or_else(|| panic!("{name} is listed: {listed}"))
}

#[tokio::test]
async fn upstream_tool_hints_are_published_only_for_a_trusted_upstream() {
    // The upstream says `transfer` is destructive, as its own `tools/list` shows.
    let log = log_file("hints");
    let direct = upstream(&log, false).connect().await.unwrap();
    let tools = direct.list_tools().await.unwrap();
    let transfer = tools.iter().find(|t| t["name"] == "transfer").unwrap();
    assert_eq!(
        transfer["annotations"]["destructiveHint"], true,
        "{transfer}"
    );
    direct.close().await;

    // By default the gateway does not vouch for it: the hints are gone, so callers see
    // the specification's cautious defaults.
    let listed = TestClient::new(gateway(&log, false).await)
        .request("tools/list", json!({}))
        .await;
    assert_eq!(
        annotations_of(&listed, "up.transfer"),
        Value::Null,
        "{listed}"
    );

    // An operator who trusts the upstream publishes them as they are.
    let trusted = gateway_with(&log, false, |upstream| upstream.trust_annotations(true)).await;
    let listed = TestClient::new(trusted)
        .request("tools/list", json!({}))
        .await;
    assert_eq!(
        annotations_of(&listed, "up.transfer"),
        transfer["annotations"],
        "{listed}"
    );
    let _ = std::fs::remove_file(&log);
}

#[tokio::test]
async fn a_caller_holds_no_more_upstream_calls_than_its_quota() {
    let log = log_file("quota-calls");
    let app = gateway_with(&log, false, |upstream| upstream.max_calls_per_caller(1)).await;
    let client = std::sync::Arc::new(TestClient::new(app));
    // Connected first, so the slow call below holds its place at once.
    let result = client.call_tool("up.crunch", json!({"steps": 1})).await;
    assert_eq!(result.get("isError"), None, "{result}");
    // The slow call takes its place first (a moment after it is spawned: tried again
    // with a longer moment if a quick call got there first).
    let mut refused = None;
    for attempt in 1..=5 {
        let slow = {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .request(
                        "tools/call",
                        json!({"name": "up.heartbeat", "arguments": {"stay_ms": 2000}}),
                    )
                    .await
            })
        };
        tokio::time::sleep(std::time::Duration::from_millis(100 * attempt)).await;
        let response = client
            .request(
                "tools/call",
                json!({"name": "up.crunch", "arguments": {"steps": 1}}),
            )
            .await;
        let slow = slow.await.unwrap();
        if slow.get("error").is_none() {
            assert_eq!(text(&slow["result"]), "finished", "{slow}");
            refused = Some(response);
            break;
        }
    }
    let refused = refused.expect("the slow call got its place");
    assert_eq!(refused["error"]["code"], -31429, "{refused}");
    assert_eq!(
        refused["error"]["data"]["reason"], "upstream-concurrency",
        "{refused}"
    );
    // Its place is free again.
    let result = client.call_tool("up.crunch", json!({"steps": 1})).await;
    assert_eq!(result.get("isError"), None, "{result}");
    let _ = std::fs::remove_file(&log);
}

#[tokio::test]
async fn an_upstream_call_past_the_gateways_quotas_is_a_tool_error() {
    // Time: a call the upstream holds longer than the gateway's deadline.
    let log = log_file("quota-time");
    let app = gateway_with(&log, false, |upstream| {
        upstream.timeout(std::time::Duration::from_millis(500))
    })
    .await;
    let result = TestClient::new(app)
        .call_tool("up.heartbeat", json!({"stay_ms": 20000}))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text(&result).contains("not done within its deadline of 500ms"),
        "{result}"
    );
    // Bytes: an answer larger than the gateway takes from the upstream.
    let log = log_file("quota-bytes");
    let app = gateway_with(&log, false, |upstream| {
        upstream.limits(mcp_runtime::client::Limits::new().max_message_bytes(64))
    })
    .await;
    let result = TestClient::new(app)
        .call_tool("up.crunch", json!({"steps": 1}))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("max_message_bytes = 64"), "{result}");
    let _ = std::fs::remove_file(&log);
}

/// Doubles a number; its output is a bare integer, whose schema is `type: "integer"`.
#[tool]
async fn double(n: i64) -> i64 {
    n * 2
}

/// A 2026-07-28 tool may give any JSON Schema as its output (here `type: "integer"`): a
/// gateway mounts it and returns its result, and lists the schema to 2026-07-28 callers
/// (the handshake era's listing drops it, as for the server's own tools).
#[tokio::test]
async fn an_upstream_tool_with_a_scalar_output_is_mounted() {
    let app = Server::new("upstream", "1.0.0")
        .only(mcp_runtime::tools![double])
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = app.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let per_caller_url = url.clone();
    let upstream = Upstream::discover("up", Client::http(&url), move |_caller| {
        Some(Client::http(&per_caller_url))
    })
    .await
    .unwrap();
    let gateway = Server::new("gateway", "1.0.0")
        .only(Vec::<ToolRef>::new())
        .mount(upstream)
        .build()
        .expect("a scalar output schema is a JSON Schema");
    let client = TestClient::new(gateway);
    let listed = client.request("tools/list", json!({})).await;
    let tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "up.double")
        .unwrap();
    assert_eq!(tool["outputSchema"]["type"], "integer", "{tool}");
    let result = client.call_tool("up.double", json!({"n": 21})).await;
    assert_eq!(result["structuredContent"], 42, "{result}");
}
