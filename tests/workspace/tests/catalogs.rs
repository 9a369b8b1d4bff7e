//! Catalogs shaped per caller, through a real client over stdio and HTTP, in both eras:
//! versions of one tool name, tags disabled at start and enabled while the server runs,
//! items one tenant or one scope may see (hidden items are not found by the others), and
//! search instead of the whole list.

mod common;
// The ranking of `search_tools`, in process, on catalogs made for one rule each.
#[path = "catalogs/search_ranking.rs"]
mod search_ranking;

use std::process::Stdio;
use std::time::Duration;

use std::future::IntoFuture as _;

use mcp_runtime::client::{Client, ClientBuilder, Era};
use serde_json::{json, Value};
use tokio::process::{Child, Command};

const CATALOGS: &str = env!("CARGO_BIN_EXE_catalogs");

/// How long anything here may take before the test counts as hung.
const HANG: Duration = Duration::from_secs(60);

/// `tools/call` pins a version with this `_meta` member.
const VERSION: &str = "rs.mcp-runtime/version";

/// An analyst of tenant acme with `reports:read`.
const ACME: &str = "acme-analyst-key-0001";
/// A clerk of tenant globex with no scope.
const GLOBEX: &str = "globex-clerk-key-0002";

async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, future)
        .await
        .expect("must not hang")
}

#[derive(Debug, Clone, Copy)]
enum Over {
    Stdio,
    Http,
}

/// Every transport and era a test runs in.
fn ways() -> Vec<(Over, Era)> {
    let mut ways = vec![(Over::Stdio, Era::Modern), (Over::Http, Era::Modern)];
    if cfg!(feature = "legacy") {
        ways.extend([(Over::Stdio, Era::Legacy), (Over::Http, Era::Legacy)]);
    }
    ways
}

/// A client of the `catalogs` server as `key`'s caller, searching past `threshold` tools,
/// and the HTTP server process when there is one (killed when dropped).
async fn connect(over: Over, era: Era, key: &str, threshold: usize) -> (Client, Option<Child>) {
    let threshold = threshold.to_string();
    let pin = |builder: ClientBuilder| builder.pin(era).timeout(HANG);
    match over {
        Over::Stdio => {
            let mut command = Command::new(CATALOGS);
            command
                .env("MCP_ACCESS_TOKEN", key)
                .env("CATALOG_THRESHOLD", &threshold)
                .env("RUST_LOG", "warn")
                .stderr(Stdio::null());
            let client = bounded(pin(Client::stdio(command)).connect())
                .await
                .expect("connects over stdio");
            (client, None)
        }
        Over::Http => {
            let (process, url) = http_server(&threshold).await;
            let client = bounded(pin(Client::http(&url)).bearer(key).connect())
                .await
                .expect("connects over HTTP");
            (client, Some(process))
        }
    }
}

async fn request(client: &Client, method: &str, params: Value) -> Result<Value, String> {
    bounded(client.request(method, params).into_future())
        .await
        .map_err(|e| e.to_string())
}

async fn names(client: &Client, method: &str, field: &str) -> Vec<String> {
    let list = request(client, method, json!({})).await.expect(method);
    list[field]
        .as_array()
        .expect("a list")
        .iter()
        .map(|entry| entry["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn call(client: &Client, tool: &str, arguments: Value) -> Result<Value, String> {
    request(
        client,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
    .await
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The fixture served over HTTP on a loopback port, searching past `threshold` tools:
/// the process and its URL.
async fn http_server(threshold: &str) -> (Child, String) {
    let mut process = Command::new(CATALOGS)
        .args(["--http", "127.0.0.1:0"])
        .env("CATALOG_THRESHOLD", threshold)
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let url = common::announced_url(&mut process).await;
    (process, url)
}

/// The address of the server at `url` (`http://ADDRESS/mcp`), for raw requests.
fn address_of(url: &str) -> std::net::SocketAddr {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("a socket address")
}

/// A handshake-era session over stdio with the caller `key`, after `messages` were sent
/// (the `initialize` request first).
#[cfg(feature = "legacy")]
async fn stdio_session(key: &str, messages: &[Value]) -> Session {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
    let mut server = Command::new(CATALOGS)
        .env("MCP_ACCESS_TOKEN", key)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut input = server.stdin.take().expect("piped");
    let lines = tokio::io::BufReader::new(server.stdout.take().expect("piped")).lines();
    for message in messages {
        input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    Session {
        _server: server,
        _input: input,
        lines,
    }
}

/// A stdio session: the server, its input (open while the session lasts) and its lines.
#[cfg(feature = "legacy")]
struct Session {
    _server: Child,
    _input: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

#[cfg(feature = "legacy")]
impl Session {
    /// The next frame the server writes.
    async fn next(&mut self) -> Value {
        let line = bounded(self.lines.next_line())
            .await
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }
}

/// The `initialize` request and `initialized` notification of a handshake-era session.
#[cfg(feature = "legacy")]
fn handshake() -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "catalogs-test", "version": "1.0.0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

/// S-175, S-240: what the rule hides from a caller is not in its lists and is not found
/// when it names it, exactly as an item that does not exist; the caller it shows it to
/// lists and calls it.
#[tokio::test]
async fn each_caller_sees_and_names_only_what_the_rule_shows_it() {
    for (over, era) in ways() {
        let way = format!("{over:?} {era:?}");
        let (acme, _a) = connect(over, era, ACME, 100).await;
        let (globex, _g) = connect(over, era, GLOBEX, 100).await;
        assert_eq!(
            names(&acme, "tools/list", "tools").await,
            [
                "export_sales_report",
                "forecast_revenue",
                "operator_tools",
                "refund",
                "send_invoice",
                "who_is_calling"
            ],
            "{way}"
        );
        assert_eq!(
            names(&globex, "tools/list", "tools").await,
            ["operator_tools", "refund", "send_invoice", "who_is_calling"],
            "{way}"
        );
        // Hidden by tenant, and by scope: "unknown", as a tool that does not exist.
        for hidden in ["forecast_revenue", "export_sales_report", "no_such_tool"] {
            let refused = call(&globex, hidden, json!({"month": "2026-11"}))
                .await
                .expect_err("not found");
            assert!(
                refused.contains(&format!("Unknown tool: {hidden}")),
                "{way}: {refused}"
            );
        }
        let forecast = call(&acme, "forecast_revenue", json!({})).await.unwrap();
        assert_eq!(text(&forecast), "forecast: up", "{way}");
        let report = call(&acme, "export_sales_report", json!({"month": "2026-11"}))
            .await
            .unwrap();
        assert_eq!(text(&report), "report for 2026-11", "{way}");

        // Resources and prompts follow the same rule.
        assert_eq!(
            names(&acme, "prompts/list", "prompts").await,
            ["beta_announcement"],
            "{way}"
        );
        assert!(names(&globex, "prompts/list", "prompts").await.is_empty());
        let notes = json!({"uri": "catalog://beta/notes"});
        let read = request(&acme, "resources/read", notes.clone())
            .await
            .unwrap();
        assert_eq!(read["contents"][0]["text"], "beta notes", "{way}");
        let refused = request(&globex, "resources/read", notes).await.unwrap_err();
        assert!(refused.contains("not found"), "{way}: {refused}");
        let refused = request(&globex, "prompts/get", json!({"name": "beta_announcement"}))
            .await
            .unwrap_err();
        assert!(
            refused.contains("Unknown prompt: beta_announcement"),
            "{way}: {refused}"
        );

        // S-243: a list that depends on the caller is never shared.
        if era == Era::Modern {
            let list = request(&acme, "tools/list", json!({})).await.unwrap();
            assert_eq!(list["cacheScope"], "private", "{way}");
        }
    }
}

/// The highest version is listed and called; an older one is called when the call pins
/// it, and its result says it is deprecated; a version that is not served is refused
/// with the versions that are.
#[tokio::test]
async fn the_highest_version_is_served_and_an_older_one_when_pinned() {
    for (over, era) in ways() {
        let way = format!("{over:?} {era:?}");
        let (client, _served) = connect(over, era, GLOBEX, 100).await;
        let list = request(&client, "tools/list", json!({})).await.unwrap();
        let refund = list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "refund")
            .cloned()
            .expect("refund is listed once");
        assert_eq!(refund["_meta"][VERSION], "2", "{way}");
        assert_eq!(refund["_meta"]["rs.mcp-runtime/tags"], json!(["billing"]));
        assert!(refund["inputSchema"]["properties"]["amount_cents"].is_object());

        let current = call(
            &client,
            "refund",
            json!({"payment": "p1", "amount_cents": 250}),
        )
        .await
        .unwrap();
        assert_eq!(text(&current), "v2 refunded 250 cents of p1", "{way}");
        assert!(current["_meta"].get("rs.mcp-runtime/deprecated").is_none());

        let pinned = |version: &str| {
            json!({
                "name": "refund",
                "arguments": {"payment": "p1"},
                "_meta": {VERSION: version}
            })
        };
        let old = request(&client, "tools/call", pinned("1")).await.unwrap();
        assert_eq!(text(&old), "v1 refunded p1", "{way}");
        assert_eq!(
            old["_meta"]["rs.mcp-runtime/deprecated"],
            json!({"current": "2"}),
            "{way}"
        );
        let same = request(&client, "tools/call", pinned("2.0")).await.unwrap();
        assert_eq!(text(&same), "v2 refunded p1", "{way}");
        let missing = request(&client, "tools/call", pinned("3"))
            .await
            .unwrap_err();
        assert!(
            missing
                .contains("pins version 3, which is not served: `refund` serves version(s) 2, 1"),
            "{way}: {missing}"
        );
        let unversioned = request(
            &client,
            "tools/call",
            json!({"name": "send_invoice", "arguments": {"customer": "c"}, "_meta": {VERSION: "1"}}),
        )
        .await
        .unwrap_err();
        assert!(
            unversioned.contains("`send_invoice` has no versions"),
            "{way}: {unversioned}"
        );
    }
}

/// A tag disabled at start hides its tools from every list and call; enabled while the
/// server runs, they are served (and listeners are told the list changed); disabled
/// again, they are gone.
#[tokio::test]
async fn a_disabled_tag_is_off_until_enabled_while_the_server_runs() {
    use futures_util::StreamExt as _;
    for (over, era) in ways() {
        let way = format!("{over:?} {era:?}");
        let (client, _served) = connect(over, era, ACME, 100).await;
        let listed = names(&client, "tools/list", "tools").await;
        assert!(!listed.contains(&"purge_caches".to_owned()), "{way}");
        let refused = call(&client, "purge_caches", json!({})).await.unwrap_err();
        assert!(refused.contains("Unknown tool: purge_caches"), "{way}");
        let purge = json!({"query": "purge the caches"});
        let found = call(&client, "search_tools", purge.clone()).await.unwrap();
        assert!(
            !found.to_string().contains("purge_caches"),
            "{way}: {found}"
        );

        // The 2026-07-28 era announces the change on a subscription.
        let mut changes = match era {
            Era::Modern => Some(
                bounded(client.listen(json!({"toolsListChanged": true})))
                    .await
                    .expect("subscribed"),
            ),
            _ => None,
        };
        let enabled = call(&client, "operator_tools", json!({"on": true}))
            .await
            .unwrap();
        assert_eq!(text(&enabled), "enabled: true", "{way}");
        if let Some(changes) = &mut changes {
            let changed = bounded(changes.next()).await.expect("a notification");
            assert_eq!(
                changed["method"], "notifications/tools/list_changed",
                "{way}"
            );
        }
        let listed = names(&client, "tools/list", "tools").await;
        assert!(listed.contains(&"purge_caches".to_owned()), "{way}");
        let purged = call(&client, "purge_caches", json!({})).await.unwrap();
        assert_eq!(text(&purged), "purged", "{way}");
        // The search index is built again with the catalog.
        let found = call(&client, "search_tools", purge).await.unwrap();
        assert_eq!(
            found["structuredContent"]["tools"][0]["name"], "purge_caches",
            "{way}: {found}"
        );

        let disabled = call(&client, "operator_tools", json!({"on": false}))
            .await
            .unwrap();
        assert_eq!(text(&disabled), "disabled: true", "{way}");
        let refused = call(&client, "purge_caches", json!({})).await.unwrap_err();
        assert!(refused.contains("Unknown tool: purge_caches"), "{way}");
    }
}

/// Past the threshold a caller's list is the pinned tools and `search_tools`; a search
/// finds the tools the caller may see (and only those), with what it needs to call them;
/// a tool found, or known, is called by name though it is not listed.
#[tokio::test]
async fn past_the_threshold_the_model_searches_and_calls_by_name() {
    for (over, era) in ways() {
        let way = format!("{over:?} {era:?}");
        let (acme, _a) = connect(over, era, ACME, 3).await;
        let (globex, _g) = connect(over, era, GLOBEX, 3).await;
        assert_eq!(
            names(&acme, "tools/list", "tools").await,
            ["operator_tools", "who_is_calling", "search_tools"],
            "{way}"
        );
        let search = |query: &str| json!({"query": query});
        let found = call(&acme, "search_tools", search("refund part of a payment"))
            .await
            .unwrap();
        let tools = found["structuredContent"]["tools"].as_array().unwrap();
        assert_eq!(tools[0]["name"], "refund", "{way}: {found}");
        assert!(
            tools[0]["inputSchema"]["properties"]["payment"].is_object(),
            "{way}"
        );
        assert_eq!(tools[0]["tags"], json!(["billing"]), "{way}");

        // What a caller may not see is never found.
        let query = search("forecast next month's revenue");
        let found = call(&acme, "search_tools", query.clone()).await.unwrap();
        assert_eq!(
            found["structuredContent"]["tools"][0]["name"], "forecast_revenue",
            "{way}"
        );
        let found = call(&globex, "search_tools", query).await.unwrap();
        let names_found: Vec<&Value> = found["structuredContent"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| &t["name"])
            .collect();
        assert!(
            !names_found.contains(&&json!("forecast_revenue")),
            "{way}: {found}"
        );

        // Tags narrow a search; a limit bounds it.
        let billing = call(
            &acme,
            "search_tools",
            json!({"query": "customer", "tags": ["billing"], "limit": 1}),
        )
        .await
        .unwrap();
        let tools = billing["structuredContent"]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1, "{way}: {billing}");
        assert_eq!(tools[0]["tags"], json!(["billing"]), "{way}");

        // An unlisted tool is called by name.
        let sent = call(&acme, "send_invoice", json!({"customer": "c-9"}))
            .await
            .unwrap();
        assert_eq!(text(&sent), "invoice sent to c-9", "{way}");

        // A bad search is an error the model reads.
        let empty = call(&acme, "search_tools", search(" ")).await.unwrap();
        assert_eq!(empty["isError"], true, "{way}");
        let over_limit = call(&acme, "search_tools", json!({"query": "x", "limit": 500}))
            .await
            .unwrap();
        assert_eq!(over_limit["isError"], true, "{way}");
    }
}

/// Up to the threshold, a caller gets the whole list (the rule counts: what it may see).
#[tokio::test]
async fn up_to_the_threshold_the_whole_list_is_served() {
    let (globex, _g) = connect(Over::Stdio, Era::Modern, GLOBEX, 4).await;
    assert_eq!(
        names(&globex, "tools/list", "tools").await,
        ["operator_tools", "refund", "send_invoice", "who_is_calling"]
    );
    let (acme, _a) = connect(Over::Stdio, Era::Modern, ACME, 4).await;
    assert_eq!(
        names(&acme, "tools/list", "tools").await,
        ["operator_tools", "who_is_calling", "search_tools"]
    );
}

/// Versions of one name that cannot be told apart, or a definition without a version
/// beside versioned ones, stop the server at start with both places named.
#[test]
fn versions_that_clash_stop_the_build() {
    use mcp_runtime::{tools, Server};
    use mcp_workspace_tests::version_clash::{quote_plain, quote_two, quote_two_again};
    let refused = |server: Server| match server.build() {
        Ok(_) => panic!("the build must fail"),
        Err(error) => error.to_string(),
    };
    let same = refused(Server::new("t", "1").only(tools![quote_two, quote_two_again]));
    assert!(same.contains("the same version (`2`)"), "{same}");
    let mixed = refused(Server::new("t", "1").only(tools![quote_two, quote_plain]));
    assert!(
        mixed.contains("not every definition has a `version`") && mixed.contains("lib.rs"),
        "{mixed}"
    );
}

/// The handshake era hears a tag turned on as its sessions hear every list change: over
/// stdio on the connection, over HTTP on the session's GET stream.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_sessions_hear_a_tag_turned_on() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    const CHANGED: &str = "notifications/tools/list_changed";
    let [initialize, initialized] = handshake();
    let enable = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "operator_tools", "arguments": {"on": true}}});

    // stdio: the notification and the response come on the one connection.
    let mut session = stdio_session(
        ACME,
        &[initialize.clone(), initialized.clone(), enable.clone()],
    )
    .await;
    let (mut heard_change, mut answered) = (false, false);
    while !(heard_change && answered) {
        let frame = session.next().await;
        heard_change |= frame["method"] == CHANGED;
        if frame["id"] == 1 {
            assert_eq!(text(&frame["result"]), "enabled: true", "{frame}");
            answered = true;
        }
    }

    // HTTP: session-wide notifications go to the session's GET stream.
    let (_process, url) = http_server("3").await;
    let addr = address_of(&url);
    let post = |body: &Value, session: Option<&str>| {
        let session = session
            .map(|s| format!("Mcp-Session-Id: {s}\r\nMcp-Protocol-Version: 2025-11-25\r\n"))
            .unwrap_or_default();
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ACME}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             {session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.to_string().len()
        )
    };
    let opened = common::send(addr, post(&initialize, None).as_bytes()).await;
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let acked = common::send(addr, post(&initialized, Some(&session)).as_bytes()).await;
    assert_eq!(acked.status, 202);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ACME}\r\n\
         Accept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\
         Mcp-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    // Read the stream until `done` holds of what came.
    let mut seen = Vec::new();
    let mut read_until = async |done: &dyn Fn(&str) -> bool| {
        while !done(&String::from_utf8_lossy(&seen)) {
            let mut chunk = [0u8; 4096];
            let n = bounded(stream.read(&mut chunk)).await.unwrap();
            assert!(
                n > 0,
                "the GET stream closed: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    };
    // The stream is open once its head has come.
    let head = read_until(&|seen| seen.contains("\r\n\r\n")).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let enabled = common::send(addr, post(&enable, Some(&session)).as_bytes()).await;
    assert_eq!(enabled.status, 200);
    assert!(enabled.tool_text().contains("enabled: true"), "{enabled:?}");
    read_until(&|seen| seen.contains(CHANGED)).await;
}

/// A resource a caller may not see cannot be subscribed to in the handshake era: the
/// answer is that of a resource that does not exist, as for `resources/read`.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_hidden_resource_is_not_found_by_resources_subscribe() {
    async fn subscribe(key: &str, uri: &str) -> Value {
        let [initialize, initialized] = handshake();
        let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
            "params": {"uri": uri}});
        let mut session = stdio_session(key, &[initialize, initialized, subscribe]).await;
        loop {
            let frame = session.next().await;
            if frame["id"] == 1 {
                return frame;
            }
        }
    }

    let beta = "catalog://beta/notes";
    assert_eq!(subscribe(ACME, beta).await["result"], json!({}));
    let hidden = subscribe(GLOBEX, beta).await;
    assert_eq!(hidden["error"]["code"], -32002, "{hidden}");
    let missing = subscribe(GLOBEX, "catalog://no/such").await;
    assert_eq!(
        hidden["error"]["message"]
            .as_str()
            .map(|m| m.replace(beta, "URI")),
        missing["error"]["message"]
            .as_str()
            .map(|m| m.replace("catalog://no/such", "URI")),
        "a hidden resource reads as a missing one"
    );
}

/// A tool's mirrored headers (`Mcp-Param-*`) are checked for the callers who may see it;
/// to one who may not, a call with headers that disagree is "Unknown tool" like any
/// other call of it, not an error that names the tool's headers (S-106 for the others).
#[tokio::test]
async fn a_hidden_tools_headers_do_not_reveal_it() {
    let (_process, url) = http_server("3").await;
    let addr = address_of(&url);
    // The body names a region; no `Mcp-Param-Region` header says so.
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "forecast_revenue", "arguments": {"region": "emea"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let send = |key: &str| {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n\
             Mcp-Name: forecast_revenue\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        async move { common::send(addr, request.as_bytes()).await }
    };
    // S-106: a caller who sees the tool is refused for the header its body disagrees with.
    let seen = send(ACME).await;
    assert_eq!(seen.status, 400, "{seen:?}");
    assert_eq!(seen.code(), Some(-32020), "{seen:?}");
    let hidden = send(GLOBEX).await;
    assert_eq!(hidden.code(), Some(-32602), "{hidden:?}");
    let said = hidden.json()["error"]["message"].to_string();
    assert!(said.contains("Unknown tool: forecast_revenue"), "{said}");
    assert!(!said.contains("Region"), "{said}");
}
