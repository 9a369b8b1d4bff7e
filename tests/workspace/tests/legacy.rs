//! The handshake era (2025-11-25, 2025-06-18, 2025-03-26) served by the same handlers as
//! 2026-07-28: the `initialize` handshake, sessions over stdio and Streamable HTTP, the
//! server's own requests standing in for `input_required`, session-wide logging and
//! subscriptions, resumable streams, and both eras side by side (S-053..S-056).
#![cfg(feature = "legacy")]

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use futures_util::StreamExt as _;
use mcp_runtime::{App, Principal, Server};
use mcp_workspace_tests::interactive::Probe;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt as _;

const WAIT: Duration = Duration::from_secs(10);

fn interactive() -> Server {
    mcp_workspace_tests::interactive_server(Arc::new(Probe::default()))
}

fn build(server: Server) -> App {
    server.build().expect("the fixtures build")
}

fn all_caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {"listChanged": true}})
}

fn initialize(id: u64, version: &str, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "legacy-test", "version": "1.0.0"},
    }})
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// What a client answers the server's requests with, by method.
fn agreeable(asked: &Value) -> Value {
    match asked["method"].as_str().unwrap_or_default() {
        "elicitation/create" => json!({"action": "accept", "content": {"confirm": true}}),
        "sampling/createMessage" => json!({
            "role": "assistant", "content": {"type": "text", "text": "in short"}, "model": "m"
        }),
        "roots/list" => json!({"roots": [{"uri": "file:///work"}]}),
        other => panic!("unexpected server request {other}"),
    }
}

/// Everything one request produced.
#[derive(Debug, Default)]
struct Seen {
    /// Notifications that arrived before the response.
    notifications: Vec<Value>,
    /// The server's requests to the client.
    asked: Vec<Value>,
    response: Value,
}

impl Seen {
    fn text(&self) -> &str {
        self.response["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {}", self.response))
    }
}

// ---- stdio ---------------------------------------------------------------------------------

struct Stdio {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Stdio {
    fn start(app: &App) -> Stdio {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let app = app.clone();
        tokio::spawn(async move { app.serve_io(server_read, server_write).await });
        let (read, writer) = tokio::io::split(client);
        Stdio {
            writer,
            lines: BufReader::new(read).lines(),
        }
    }

    /// A process that went through the handshake; the initialize result.
    async fn open(app: &App, version: &str, capabilities: Value) -> (Stdio, Value) {
        let mut stdio = Stdio::start(app);
        stdio.send(&initialize(0, version, capabilities)).await;
        let result = stdio.next().await;
        stdio
            .send(&notification("notifications/initialized", json!({})))
            .await;
        (stdio, result)
    }

    async fn send(&mut self, message: &Value) {
        self.writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("a frame within 10 s")
            .unwrap()
            .expect("the server keeps its output open");
        serde_json::from_str(&line).unwrap()
    }

    /// Send `message`; answer the server's requests with `answer` until the response.
    async fn call(&mut self, message: Value, mut answer: impl FnMut(&Value) -> Value) -> Seen {
        let id = message["id"].clone();
        self.send(&message).await;
        let mut seen = Seen::default();
        loop {
            let frame = self.next().await;
            match (frame.get("method"), frame.get("id")) {
                (Some(_), Some(asked_id)) => {
                    let reply = json!({"jsonrpc": "2.0", "id": asked_id, "result": answer(&frame)});
                    seen.asked.push(frame);
                    self.send(&reply).await;
                }
                (Some(_), None) => seen.notifications.push(frame),
                (None, Some(frame_id)) if *frame_id == id => {
                    seen.response = frame;
                    return seen;
                }
                _ => panic!("unexpected frame {frame}"),
            }
        }
    }
}

// ---- Streamable HTTP -----------------------------------------------------------------------

struct Http {
    router: axum::Router,
    session: String,
    version: String,
}

fn post(body: &Value, session: Option<&str>, version: Option<&str>) -> Request<Body> {
    let mut builder = Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    if let Some(version) = version {
        builder = builder.header("mcp-protocol-version", version);
    }
    builder.body(Body::from(body.to_string())).unwrap()
}

fn get(session: &str, last_event_id: Option<&str>) -> Request<Body> {
    let mut builder = Request::get("/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session);
    if let Some(id) = last_event_id {
        builder = builder.header("last-event-id", id);
    }
    builder.body(Body::empty()).unwrap()
}

async fn json_body(response: axum::response::Response) -> Value {
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// One Server-Sent Event.
#[derive(Debug, Default)]
struct Event {
    id: Option<String>,
    data: Option<String>,
    retry: Option<u64>,
}

impl Event {
    fn message(&self) -> Option<Value> {
        self.data
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| serde_json::from_str(d).unwrap())
    }
}

/// Reads an event stream as it arrives.
struct Sse {
    body: axum::body::BodyDataStream,
    buffer: String,
}

impl Sse {
    fn of(response: axum::response::Response) -> Sse {
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream"),
            "an event stream"
        );
        Sse {
            body: response.into_body().into_data_stream(),
            buffer: String::new(),
        }
    }

    /// The next event; `None` once the stream ends. Keep-alive comments are skipped.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let raw: String = self.buffer.drain(..end + 2).collect();
                let mut event = Event::default();
                for line in raw.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        event.id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        event.data = Some(v.strip_prefix(' ').unwrap_or(v).to_owned());
                    } else if let Some(v) = line.strip_prefix("retry:") {
                        event.retry = v.trim().parse().ok();
                    }
                }
                if event.id.is_none() && event.data.is_none() && event.retry.is_none() {
                    continue;
                }
                return Some(event);
            }
            let chunk = tokio::time::timeout(WAIT, self.body.next())
                .await
                .expect("an event within 10 s")?;
            self.buffer
                .push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        }
    }
}

impl Http {
    /// A session opened with `initialize` (and `notifications/initialized`); the result.
    async fn open(app: &App, version: &str, capabilities: Value) -> (Http, Value) {
        Http::open_on(app.router(), version, capabilities).await
    }

    async fn open_on(router: axum::Router, version: &str, capabilities: Value) -> (Http, Value) {
        let response = router
            .clone()
            .oneshot(post(&initialize(0, version, capabilities), None, None))
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let result = json_body(response).await;
        let negotiated = result["result"]["protocolVersion"]
            .as_str()
            .unwrap()
            .to_owned();
        let http = Http {
            router,
            session,
            version: negotiated,
        };
        let accepted = http
            .send(&notification("notifications/initialized", json!({})))
            .await;
        assert_eq!(accepted.status(), 202);
        (http, result)
    }

    async fn send(&self, body: &Value) -> axum::response::Response {
        self.router
            .clone()
            .oneshot(post(body, Some(&self.session), Some(&self.version)))
            .await
            .unwrap()
    }

    async fn get(&self, last_event_id: Option<&str>) -> axum::response::Response {
        self.router
            .clone()
            .oneshot(get(&self.session, last_event_id))
            .await
            .unwrap()
    }

    /// POST `message`; read its JSON or event-stream answer, answering the server's
    /// requests (with POSTs of their own) until the response.
    async fn call(&self, message: Value, mut answer: impl FnMut(&Value) -> Value) -> Seen {
        let response = self.send(&message).await;
        assert_eq!(response.status(), 200, "{message}");
        let streamed = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream");
        if !streamed {
            return Seen {
                response: json_body(response).await,
                ..Seen::default()
            };
        }
        let mut sse = Sse::of(response);
        let mut seen = Seen::default();
        while let Some(event) = sse.next().await {
            let Some(frame) = event.message() else {
                continue;
            };
            match (frame.get("method"), frame.get("id")) {
                (Some(_), Some(asked_id)) => {
                    let reply = json!({"jsonrpc": "2.0", "id": asked_id, "result": answer(&frame)});
                    seen.asked.push(frame);
                    assert_eq!(self.send(&reply).await.status(), 202);
                }
                (Some(_), None) => seen.notifications.push(frame),
                (None, Some(_)) => {
                    seen.response = frame;
                    return seen;
                }
                _ => panic!("unexpected frame {frame}"),
            }
        }
        panic!("the stream ended without a response")
    }
}

/// A session on either transport, so each behaviour is checked on both.
enum Client {
    Stdio(Stdio),
    Http(Http),
}

impl Client {
    async fn both(app: &App, version: &str, capabilities: Value) -> Vec<Client> {
        let (stdio, _) = Stdio::open(app, version, capabilities.clone()).await;
        let (http, _) = Http::open(app, version, capabilities).await;
        vec![Client::Stdio(stdio), Client::Http(http)]
    }

    fn name(&self) -> &'static str {
        match self {
            Client::Stdio(_) => "stdio",
            Client::Http(_) => "http",
        }
    }

    async fn call(&mut self, message: Value, answer: impl FnMut(&Value) -> Value) -> Seen {
        match self {
            Client::Stdio(stdio) => stdio.call(message, answer).await,
            Client::Http(http) => http.call(message, answer).await,
        }
    }

    async fn request(&mut self, message: Value) -> Value {
        self.call(message, |asked| panic!("unexpected server request {asked}"))
            .await
            .response
    }
}

// ---- the handshake -------------------------------------------------------------------------

#[tokio::test]
async fn initialize_negotiates_the_version_and_describes_the_server() {
    let app = build(interactive().instructions("Use the tools."));
    for (asked, agreed) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        // Unknown and modern versions get the newest handshake revision as a counter-offer.
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let (_, stdio) = Stdio::open(&app, asked, json!({})).await;
        let (_, http) = Http::open(&app, asked, json!({})).await;
        for result in [stdio, http] {
            let result = &result["result"];
            assert_eq!(result["protocolVersion"], agreed, "{asked}");
            assert_eq!(result["serverInfo"]["name"], "interactive");
            assert_eq!(result["instructions"], "Use the tools.");
            assert_eq!(
                result["capabilities"]["tools"],
                json!({"listChanged": true})
            );
            assert_eq!(
                result["capabilities"]["resources"],
                json!({"listChanged": true, "subscribe": true})
            );
            assert_eq!(result["capabilities"]["logging"], json!({}));
            // Nothing of the stateless revision's result shape.
            assert!(result.get("resultType").is_none() && result.get("_meta").is_none());
        }
    }
}

#[tokio::test]
async fn handlers_see_what_the_handshake_recorded() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-06-18", json!({"sampling": {}, "roots": {}})).await {
        let seen = client.call(call(1, "client", json!({})), agreeable).await;
        assert_eq!(
            seen.text(),
            r#"legacy-test 1.0.0 speaks 2025-06-18 declaring ["roots", "sampling"]"#,
            "{}",
            client.name()
        );
    }
}

#[tokio::test]
async fn only_the_enabled_versions_are_negotiated() {
    let app = build(interactive().legacy_versions(["2025-06-18"]));
    let (_, result) = Stdio::open(&app, "2025-11-25", json!({})).await;
    assert_eq!(result["result"]["protocolVersion"], "2025-06-18");
    // None enabled: the handshake is refused naming the versions served (S-054).
    let app = build(interactive().legacy_versions([]));
    let (_, refused) = Stdio::open(&app, "2025-11-25", json!({})).await;
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(refused["error"]["data"]["supported"], json!(["2026-07-28"]));
    let response = app
        .router()
        .oneshot(post(&initialize(1, "2025-11-25", json!({})), None, None))
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert!(response.headers().get("mcp-session-id").is_none());
}

#[tokio::test]
async fn session_ids_are_unguessable_visible_ascii() {
    let app = build(interactive());
    let (a, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let (b, _) = Http::open(&app, "2025-11-25", json!({})).await;
    assert_ne!(a.session, b.session);
    assert!(a.session.len() >= 40, "sealed with a random 192-bit nonce");
    assert!(a.session.bytes().all(|c| (0x21..=0x7e).contains(&c)));
}

#[tokio::test]
async fn malformed_handshakes_are_refused_and_nothing_is_opened() {
    let app = build(interactive());
    let router = app.router();
    for params in [
        json!({}),
        json!({"protocolVersion": 7, "capabilities": {}}),
        json!({"protocolVersion": "2025-11-25", "capabilities": []}),
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": "me"}),
    ] {
        let body = request(1, "initialize", params.clone());
        let response = router
            .clone()
            .oneshot(post(&body, None, None))
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{params}");
        assert!(response.headers().get("mcp-session-id").is_none());
        assert_eq!(json_body(response).await["error"]["code"], -32602);
        let mut stdio = Stdio::start(&app);
        stdio.send(&body).await;
        assert_eq!(stdio.next().await["error"]["code"], -32602, "{params}");
    }
}

#[tokio::test]
async fn requests_need_an_open_session_first() {
    let app = build(interactive());
    let router = app.router();
    let list = request(1, "tools/list", json!({}));
    // HTTP: a handshake revision without a session is 400, an unknown session 404.
    let response = router
        .clone()
        .oneshot(post(&list, None, Some("2025-11-25")))
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert!(json_body(response).await["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Mcp-Session-Id"));
    let response = router
        .clone()
        .oneshot(post(&list, Some("no-such-session"), Some("2025-11-25")))
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    // stdio: a request before initialize is refused and decides nothing; initialize
    // still opens the session afterwards.
    let mut stdio = Stdio::start(&app);
    stdio.send(&list).await;
    let refused = stdio.next().await;
    assert_eq!(refused["error"]["code"], -32602);
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("sends initialize first"));
    stdio.send(&initialize(2, "2025-11-25", json!({}))).await;
    assert_eq!(
        stdio.next().await["result"]["protocolVersion"],
        "2025-11-25"
    );
    stdio.send(&initialize(3, "2025-11-25", json!({}))).await;
    let again = stdio.next().await;
    assert_eq!(again["error"]["code"], -32600, "one handshake per session");
}

#[tokio::test]
async fn ping_and_set_level_answer_empty_results() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", json!({})).await {
        let pong = client.request(request(1, "ping", json!({}))).await;
        assert_eq!(pong["result"], json!({}), "{}", client.name());
        let set = client
            .request(request(2, "logging/setLevel", json!({"level": "warning"})))
            .await;
        assert_eq!(set["result"], json!({}));
        let bad = client
            .request(request(3, "logging/setLevel", json!({"level": "loud"})))
            .await;
        assert_eq!(bad["error"]["code"], -32602);
        // The stateless revision's own methods do not exist in a session.
        let discover = client
            .request(request(4, "server/discover", json!({})))
            .await;
        assert_eq!(discover["error"]["code"], -32601);
    }
}

#[tokio::test]
async fn the_session_log_level_filters_log_messages() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", json!({})).await {
        // No level set yet: no log messages.
        let quiet = client.call(call(1, "chatty", json!({})), agreeable).await;
        assert_eq!(quiet.text(), "logged");
        assert!(quiet.notifications.is_empty(), "{}", client.name());
        client
            .request(request(2, "logging/setLevel", json!({"level": "error"})))
            .await;
        let loud = client.call(call(3, "chatty", json!({})), agreeable).await;
        let levels: Vec<&str> = loud
            .notifications
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .map(|n| n["params"]["level"].as_str().unwrap())
            .collect();
        assert_eq!(
            levels,
            ["error", "critical", "alert", "emergency"],
            "{}",
            client.name()
        );
        assert_eq!(loud.notifications[0]["params"]["logger"], "chatty");
    }
}

#[tokio::test]
async fn progress_flows_before_the_response() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-06-18", json!({})).await {
        let message = request(
            1,
            "tools/call",
            json!({"name": "crunch", "arguments": {"steps": 3}, "_meta": {"progressToken": "p1"}}),
        );
        let seen = client.call(message, agreeable).await;
        assert_eq!(seen.text(), "3 steps, progress requested: true");
        let progress: Vec<f64> = seen
            .notifications
            .iter()
            .map(|n| {
                assert_eq!(n["params"]["progressToken"], "p1");
                n["params"]["progress"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(progress, [1.0, 2.0, 3.0], "{}", client.name());
    }
}

// ---- wire shapes per version ---------------------------------------------------------------

#[tokio::test]
async fn results_have_the_shape_of_the_negotiated_version() {
    let app = build(mcp_workspace_tests::server());
    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        for mut client in Client::both(&app, version, json!({})).await {
            let sum = client
                .request(call(1, "add", json!({"a": 2, "b": 3})))
                .await;
            let result = &sum["result"];
            assert_eq!(result["content"][0]["text"], "5");
            for field in ["resultType", "ttlMs", "cacheScope", "_meta"] {
                assert!(
                    result.get(field).is_none(),
                    "{version}: {field} in {result}"
                );
            }
            // Structured content is an object in every handshake revision.
            assert!(result.get("structuredContent").is_none(), "{result}");
            let order = client
                .request(call(
                    2,
                    "place_order",
                    json!({"sku": "discontinued", "quantity": 1}),
                ))
                .await;
            let structured = order["result"].get("structuredContent");
            if version == "2025-03-26" {
                assert!(structured.is_none(), "not in 2025-03-26");
            } else {
                // S-184: in the error shape the tool's output schema admits.
                assert_eq!(
                    structured,
                    Some(&json!({"error": {
                        "message": "That product is discontinued; pick another SKU.",
                        "detail": {"sku": "discontinued"}
                    }}))
                );
            }
            let listed = client.request(request(3, "tools/list", json!({}))).await;
            let tools = listed["result"]["tools"].as_array().unwrap();
            let add = tools.iter().find(|t| t["name"] == "add").unwrap();
            assert!(
                add.get("outputSchema").is_none(),
                "an integer schema is not an object"
            );
            let order_tool = tools.iter().find(|t| t["name"] == "place_order").unwrap();
            assert_eq!(
                order_tool.get("outputSchema").is_some(),
                version != "2025-03-26",
                "{version}"
            );
            assert!(listed["result"].get("ttlMs").is_none());
        }
    }
}

#[tokio::test]
async fn a_missing_resource_is_the_handshake_code() {
    let app = build(mcp_workspace_tests::server());
    for mut client in Client::both(&app, "2025-11-25", json!({})).await {
        let missing = client
            .request(request(
                1,
                "resources/read",
                json!({"uri": "library://books/999"}),
            ))
            .await;
        assert_eq!(missing["error"]["code"], -32002, "{}", client.name());
        assert_eq!(missing["error"]["data"]["uri"], "library://books/999");
        let unknown = client.request(call(2, "nope", json!({}))).await;
        assert_eq!(unknown["error"]["code"], -32602);
    }
}

// ---- one handler, both eras: the server's own requests -------------------------------------

#[tokio::test]
async fn an_elicitation_is_a_request_to_the_client_and_the_handler_runs_again() {
    let app = build(interactive());
    for version in ["2025-11-25", "2025-06-18"] {
        for mut client in Client::both(&app, version, all_caps()).await {
            let seen = client
                .call(
                    call(1, "transfer", json!({"amount": 500, "to": "bob"})),
                    agreeable,
                )
                .await;
            assert_eq!(
                seen.text(),
                "Sent 500 cents to bob (quoted 500 on round 1).",
                "{version} {}",
                client.name()
            );
            assert_eq!(seen.asked.len(), 1);
            let params = &seen.asked[0]["params"];
            assert_eq!(seen.asked[0]["method"], "elicitation/create");
            assert_eq!(params["message"], "Send 500 cents to bob?");
            assert_eq!(
                params["requestedSchema"]["properties"]["confirm"]["type"],
                "boolean"
            );
            // `mode` arrived with 2025-11-25.
            assert_eq!(params.get("mode").is_some(), version == "2025-11-25");
            let declined = client
                .call(
                    call(2, "transfer", json!({"amount": 1, "to": "eve"})),
                    |_| json!({"action": "decline"}),
                )
                .await;
            assert_eq!(declined.text(), "Transfer declined.");
        }
    }
}

#[tokio::test]
async fn several_questions_go_out_together_and_later_ones_in_later_rounds() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", all_caps()).await {
        let seen = client.call(call(1, "gather", json!({})), agreeable).await;
        assert_eq!(seen.text(), "true / in short / file:///work");
        let mut methods: Vec<&str> = seen
            .asked
            .iter()
            .map(|a| a["method"].as_str().unwrap())
            .collect();
        methods.sort_unstable();
        assert_eq!(
            methods,
            ["elicitation/create", "roots/list", "sampling/createMessage"],
            "{}",
            client.name()
        );
        // Request ids of the server are unique within the session.
        let mut ids: Vec<String> = seen.asked.iter().map(|a| a["id"].to_string()).collect();
        ids.dedup();
        assert_eq!(ids.len(), 3);

        let seen = client
            .call(call(2, "checkout", json!({})), |asked| {
                if asked["params"]["message"] == "How should we ship?" {
                    json!({"action": "accept", "content": {"speed": "express", "note": "back door"}})
                } else {
                    json!({"action": "accept", "content": {"confirm": true}})
                }
            })
            .await;
        assert_eq!(seen.text(), "Shipping express (back door), confirmed: true");
        assert_eq!(seen.asked.len(), 2, "two rounds, one question each");
    }
}

#[tokio::test]
async fn url_elicitation_carries_an_id_and_needs_2025_11_25() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", all_caps()).await {
        let seen = client
            .call(
                call(1, "connect_account", json!({})),
                |_| json!({"action": "accept"}),
            )
            .await;
        assert_eq!(seen.text(), "signed in: true");
        let params = &seen.asked[0]["params"];
        assert_eq!(params["mode"], "url");
        assert_eq!(params["url"], "https://bank.example/signin");
        assert!(params["elicitationId"]
            .as_str()
            .is_some_and(|id| id.len() >= 16));
    }
    // 2025-06-18 has no URL mode: the client cannot have declared it.
    for mut client in Client::both(&app, "2025-06-18", json!({"elicitation": {}})).await {
        let refused = client.request(call(1, "connect_account", json!({}))).await;
        assert_eq!(refused["error"]["code"], -32021, "{}", client.name());
    }
}

// The handshake era sends URL questions as requests of the server's own: one with a URL a
// user should not open is never sent, and the call fails.
#[tokio::test]
async fn a_url_question_with_a_url_a_user_should_not_open_is_never_sent() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", all_caps()).await {
        let name = client.name();
        let seen = client
            .call(
                call(
                    1,
                    "open_page",
                    json!({"url": "https://bank.example/signin"}),
                ),
                |_| json!({"action": "decline"}),
            )
            .await;
        assert_eq!(seen.text(), "opened: false", "{name}");
        // S-283: mode "url", the message and the URL.
        assert_eq!(seen.asked[0]["params"]["mode"], "url");
        assert_eq!(seen.asked[0]["params"]["message"], "Open this page");
        assert_eq!(
            seen.asked[0]["params"]["url"],
            "https://bank.example/signin"
        );
        for (id, url) in (2..).zip(["http://bank.example/signin", "signin.html"]) {
            // `request` fails the test if the server asks the client anything.
            let refused = client
                .request(call(id, "open_page", json!({"url": url})))
                .await;
            // S-283: the question is not sent; the call fails naming the URL.
            assert_eq!(refused["error"]["code"], -32603, "{name}: {refused}");
            assert!(
                refused["error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(&format!("{url:?}"))),
                "{name}: {refused}"
            );
        }
    }
}

#[tokio::test]
async fn questions_the_client_did_not_declare_are_never_sent() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", json!({"roots": {}})).await {
        let refused = client
            .request(call(1, "transfer", json!({"amount": 1, "to": "x"})))
            .await;
        assert_eq!(refused["error"]["code"], -32021, "{}", client.name());
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {"form": {}}})
        );
        let tools = client
            .request(call(2, "sample_with_tools", json!({})))
            .await;
        assert_eq!(tools["error"]["code"], -32021);
    }
}

#[tokio::test]
async fn resources_and_prompts_ask_the_same_way() {
    let app = build(interactive());
    for mut client in Client::both(&app, "2025-11-25", all_caps()).await {
        let read = client
            .call(
                request(1, "resources/read", json!({"uri": "vault://alpha"})),
                agreeable,
            )
            .await;
        assert_eq!(
            read.response["result"]["contents"][0]["text"],
            "secret of alpha"
        );
        let prompt = client
            .call(
                request(
                    2,
                    "prompts/get",
                    json!({"name": "briefing", "arguments": {"topic": "tides"}}),
                ),
                agreeable,
            )
            .await;
        assert_eq!(
            prompt.response["result"]["messages"][0]["content"]["text"],
            "Brief a expert on tides."
        );
    }
}

#[tokio::test]
async fn a_client_error_answer_fails_the_call_with_its_code() {
    let app = build(interactive());
    let (mut stdio, _) = Stdio::open(&app, "2025-11-25", all_caps()).await;
    stdio
        .send(&call(1, "transfer", json!({"amount": 1, "to": "x"})))
        .await;
    let asked = stdio.next().await;
    assert_eq!(asked["method"], "elicitation/create");
    stdio
        .send(&json!({"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -1, "message": "User rejected"}}))
        .await;
    let failed = stdio.next().await;
    assert_eq!(failed["id"], 1);
    // S-291: the client's failure ends the call with the client's own error.
    assert_eq!(failed["error"]["code"], -1);
    assert!(failed["error"]["message"]
        .as_str()
        .unwrap()
        .contains("User rejected"));
}

#[tokio::test]
async fn an_unanswered_request_times_out_and_is_cancelled_towards_the_client() {
    let app = build(interactive().client_request_timeout(Duration::from_millis(200)));
    let (mut stdio, _) = Stdio::open(&app, "2025-11-25", all_caps()).await;
    stdio
        .send(&call(1, "transfer", json!({"amount": 1, "to": "x"})))
        .await;
    let asked = stdio.next().await;
    assert_eq!(asked["method"], "elicitation/create");
    let cancelled = stdio.next().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], asked["id"]);
    let failed = stdio.next().await;
    assert_eq!(failed["id"], 1);
    assert_eq!(failed["error"]["data"]["reason"], "timeout");
    // A late answer finds nothing waiting and changes nothing.
    stdio
        .send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept"}}))
        .await;
    let pong = stdio.call(request(2, "ping", json!({})), agreeable).await;
    assert_eq!(pong.response["result"], json!({}));
}

#[tokio::test]
async fn cancelling_a_call_withdraws_its_pending_question() {
    let app = build(interactive());
    let (mut stdio, _) = Stdio::open(&app, "2025-11-25", all_caps()).await;
    stdio
        .send(&call(7, "transfer", json!({"amount": 1, "to": "x"})))
        .await;
    let asked = stdio.next().await;
    stdio
        .send(&notification(
            "notifications/cancelled",
            json!({"requestId": 7, "reason": "changed my mind"}),
        ))
        .await;
    let withdrawn = stdio.next().await;
    assert_eq!(withdrawn["method"], "notifications/cancelled");
    assert_eq!(withdrawn["params"]["requestId"], asked["id"]);
    // No response for the cancelled call: the next frame answers the next request.
    let pong = stdio.call(request(8, "ping", json!({})), agreeable).await;
    assert!(pong.notifications.is_empty() && pong.asked.is_empty());
}

#[tokio::test]
async fn a_cancelled_http_call_ends_its_stream_without_a_response() {
    let (app, probe) = {
        let probe = Arc::new(Probe::default());
        let app = build(mcp_workspace_tests::interactive_server(probe.clone()));
        (app, probe)
    };
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let cancel = |id: u64| notification("notifications/cancelled", json!({"requestId": id}));
    // Streamed (it reports progress first): the stream ends after what was sent.
    let message = request(
        1,
        "tools/call",
        json!({"name": "wait_for_cancel", "arguments": {}, "_meta": {"progressToken": 1}}),
    );
    let mut stream = Sse::of(http.send(&message).await);
    stream.next().await.expect("the priming event");
    let progress = stream.next().await.unwrap().message().unwrap();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(http.send(&cancel(1)).await.status(), 202);
    assert!(
        stream.next().await.is_none(),
        "no response after a cancellation"
    );
    // Not streamed: the POST is answered with no content.
    let waiting = call(2, "wait_for_cancel", json!({}));
    let plain = http.send(&waiting);
    let canceller = async {
        while probe.started.load(std::sync::atomic::Ordering::SeqCst) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(http.send(&cancel(2)).await.status(), 202);
    };
    let (response, ()) = tokio::join!(plain, canceller);
    assert_eq!(response.status(), 204);
    assert_eq!(probe.finished.load(std::sync::atomic::Ordering::SeqCst), 0);
}

// ---- session-wide notifications -------------------------------------------------------------

/// Call `toggle`; the methods of the next `frames` frames (the response as "response"),
/// sorted, since notifications and the response may come in either order.
async fn toggle_and_listen(stdio: &mut Stdio, id: u64, frames: usize) -> Vec<String> {
    stdio.send(&call(id, "toggle", json!({}))).await;
    let mut heard = Vec::new();
    while heard.len() < frames {
        let frame = stdio.next().await;
        if frame["method"] == "notifications/resources/updated" {
            assert_eq!(frame["params"]["uri"], "vault://alpha");
        }
        heard.push(frame["method"].as_str().unwrap_or("response").to_owned());
    }
    heard.sort();
    heard
}

#[tokio::test]
async fn stdio_sessions_hear_list_changes_and_subscribed_updates() {
    let app = build(interactive());
    let (mut stdio, _) = Stdio::open(&app, "2025-11-25", json!({})).await;
    let missing = stdio
        .call(
            request(1, "resources/subscribe", json!({"uri": "nope://x"})),
            agreeable,
        )
        .await;
    assert_eq!(missing.response["error"]["code"], -32002);
    let subscribed = stdio
        .call(
            request(2, "resources/subscribe", json!({"uri": "vault://alpha"})),
            agreeable,
        )
        .await;
    assert_eq!(subscribed.response["result"], json!({}));
    // `toggle` announces an update of vault://alpha and changes the tool list.
    let heard = toggle_and_listen(&mut stdio, 3, 3).await;
    assert_eq!(
        heard,
        [
            "notifications/resources/updated",
            "notifications/tools/list_changed",
            "response"
        ]
    );
    let unsubscribed = stdio
        .call(
            request(4, "resources/unsubscribe", json!({"uri": "vault://alpha"})),
            agreeable,
        )
        .await;
    assert_eq!(unsubscribed.response["result"], json!({}));
    let heard = toggle_and_listen(&mut stdio, 5, 2).await;
    assert_eq!(heard, ["notifications/tools/list_changed", "response"]);
}

#[tokio::test]
async fn http_sessions_hear_changes_on_their_get_stream() {
    let app = build(interactive());
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let mut stream = Sse::of(http.get(None).await);
    http.call(
        request(1, "resources/subscribe", json!({"uri": "vault://alpha"})),
        agreeable,
    )
    .await;
    let toggled = http.call(call(2, "toggle", json!({})), agreeable).await;
    assert!(
        toggled.notifications.is_empty(),
        "session notifications go to the GET stream"
    );
    let mut heard = Vec::new();
    for _ in 0..2 {
        let event = stream.next().await.expect("an event");
        assert!(event.id.is_some(), "resumable events carry ids");
        heard.push(
            event.message().unwrap()["method"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    heard.sort();
    assert_eq!(
        heard,
        [
            "notifications/resources/updated",
            "notifications/tools/list_changed"
        ]
    );
}

// ---- HTTP sessions -------------------------------------------------------------------------

#[tokio::test]
async fn a_deleted_session_is_gone() {
    let app = build(interactive());
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let delete = Request::delete("/mcp")
        .header("host", "127.0.0.1")
        .header("mcp-session-id", &http.session)
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        http.router.clone().oneshot(delete).await.unwrap().status(),
        200
    );
    let after = http.send(&request(1, "tools/list", json!({}))).await;
    assert_eq!(after.status(), 404);
    assert_eq!(json_body(after).await["error"]["code"], -32600);
    assert_eq!(http.get(None).await.status(), 404);
}

#[tokio::test]
async fn idle_sessions_expire_and_the_store_is_bounded() {
    let app = build(interactive().session_idle_timeout(Duration::from_millis(150)));
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let ping = request(1, "ping", json!({}));
    assert_eq!(http.send(&ping).await.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        http.send(&ping).await.status(),
        404,
        "expired after being idle"
    );

    let app = build(interactive().max_sessions(2));
    let router = app.router();
    let (first, _) = Http::open_on(router.clone(), "2025-11-25", json!({})).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (second, _) = Http::open_on(router.clone(), "2025-11-25", json!({})).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    // Using the first makes the second the least recently used.
    assert_eq!(first.send(&ping).await.status(), 200);
    let (third, _) = Http::open_on(router, "2025-11-25", json!({})).await;
    assert_eq!(second.send(&ping).await.status(), 404, "evicted");
    assert_eq!(first.send(&ping).await.status(), 200);
    assert_eq!(third.send(&ping).await.status(), 200);
}

#[tokio::test]
async fn the_version_header_must_name_the_negotiated_version() {
    let app = build(interactive());
    let (http, _) = Http::open(&app, "2025-06-18", json!({})).await;
    let ping = request(1, "ping", json!({}));
    let wrong = http
        .router
        .clone()
        .oneshot(post(&ping, Some(&http.session), Some("2025-03-26")))
        .await
        .unwrap();
    assert_eq!(wrong.status(), 400);
    // Absent, the session's version applies.
    let absent = http
        .router
        .clone()
        .oneshot(post(&ping, Some(&http.session), None))
        .await
        .unwrap();
    assert_eq!(absent.status(), 200);
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let app = build(interactive());
    let router = app.router();
    let mut open = post(&initialize(0, "2025-11-25", json!({})), None, None);
    open.extensions_mut().insert(Principal::new("alice"));
    let response = router.clone().oneshot(open).await.unwrap();
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let who = call(1, "whoami", json!({}));
    let mut as_bob = post(&who, Some(&session), None);
    as_bob.extensions_mut().insert(Principal::new("bob"));
    assert_eq!(router.clone().oneshot(as_bob).await.unwrap().status(), 404);
    let anonymous = post(&who, Some(&session), None);
    assert_eq!(
        router.clone().oneshot(anonymous).await.unwrap().status(),
        404
    );
    let mut as_alice = post(&who, Some(&session), None);
    as_alice.extensions_mut().insert(Principal::new("alice"));
    let answer = json_body(router.oneshot(as_alice).await.unwrap()).await;
    assert_eq!(answer["result"]["content"][0]["text"], "alice");
}

#[tokio::test]
async fn a_released_stream_is_resumed_with_last_event_id() {
    let app = build(interactive());
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let message = request(
        1,
        "tools/call",
        json!({"name": "detach", "arguments": {}, "_meta": {"progressToken": 9}}),
    );
    let mut first = Sse::of(http.send(&message).await);
    let priming = first.next().await.unwrap();
    assert_eq!(
        priming.data.as_deref(),
        Some(""),
        "a priming event comes first"
    );
    let priming_id = priming.id.expect("with an id");
    let progress = first.next().await.unwrap();
    assert_eq!(progress.message().unwrap()["params"]["progress"], 1.0);
    let last_id = progress.id.unwrap();
    let retry = first.next().await.unwrap();
    assert!(
        retry.retry.is_some(),
        "the release suggests when to come back"
    );
    assert!(
        first.next().await.is_none(),
        "then the connection is let go"
    );
    // The client comes back after the last event it saw, and gets the rest.
    let mut resumed = Sse::of(http.get(Some(&last_id)).await);
    let second = resumed.next().await.unwrap().message().unwrap();
    assert_eq!(second["params"]["progress"], 2.0);
    let done = resumed.next().await.unwrap().message().unwrap();
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["content"][0]["text"], "reattached");
    assert!(
        resumed.next().await.is_none(),
        "the stream ends with the response"
    );
    // Replaying from the priming event gives everything again.
    let mut replay = Sse::of(http.get(Some(&priming_id)).await);
    let mut messages = Vec::new();
    while let Some(event) = replay.next().await {
        messages.extend(event.message());
    }
    assert_eq!(messages.len(), 3);
}

#[tokio::test]
async fn a_dropped_connection_does_not_cancel_a_handshake_era_call() {
    let app = build(interactive());
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let message = request(
        1,
        "tools/call",
        json!({"name": "crunch", "arguments": {"steps": 2}, "_meta": {"progressToken": 1}}),
    );
    let mut stream = Sse::of(http.send(&message).await);
    let priming = stream.next().await.unwrap();
    drop(stream);
    let mut resumed = Sse::of(http.get(priming.id.as_deref()).await);
    let mut last = Value::Null;
    while let Some(event) = resumed.next().await {
        if let Some(message) = event.message() {
            last = message;
        }
    }
    assert_eq!(
        last["result"]["content"][0]["text"],
        "2 steps, progress requested: true"
    );
}

// ---- both eras, one server -----------------------------------------------------------------

fn modern(id: u64, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    request(id, method, params)
}

#[tokio::test]
async fn both_eras_interleave_on_one_http_endpoint() {
    // S-056
    let app = build(interactive());
    let router = app.router();
    let (legacy, _) = Http::open_on(router.clone(), "2025-11-25", all_caps()).await;
    for round in 0..3u64 {
        let old = legacy
            .call(
                call(10 + round, "transfer", json!({"amount": round, "to": "l"})),
                agreeable,
            )
            .await;
        assert!(old.text().starts_with("Sent"), "{}", old.response);
        assert!(old.response["result"].get("resultType").is_none());
        // A modern request on the same endpoint, even carrying the session id (S-111).
        let message = modern(
            20 + round,
            "tools/call",
            json!({"name": "transfer", "arguments": {"amount": round, "to": "m"}}),
        );
        let request = mcp_runtime::testing::http_request(&message.to_string()).unwrap();
        let mut request = request;
        request
            .headers_mut()
            .insert("mcp-session-id", legacy.session.parse().unwrap());
        let response = router.clone().oneshot(request).await.unwrap();
        // S-018: the session an earlier request opened lends this one nothing: its own
        // _meta makes it a modern request, answered as one.
        assert!(response.headers().get("mcp-session-id").is_none());
        let new = json_body(response).await;
        assert_eq!(new["result"]["resultType"], "input_required", "{new}");
        assert!(new["result"]["inputRequests"]["confirm"].is_object());
    }
}

#[tokio::test]
async fn the_first_request_decides_a_stdio_process() {
    // S-055: a modern process refuses the handshake later.
    let app = build(interactive());
    let mut stdio = Stdio::start(&app);
    let discovered = stdio
        .call(modern(1, "server/discover", json!({})), agreeable)
        .await;
    assert!(discovered.response["result"]["supportedVersions"].is_array());
    stdio.send(&initialize(2, "2025-11-25", json!({}))).await;
    assert_eq!(stdio.next().await["error"]["code"], -32600);
    // A handshake-era process still serves a request carrying modern _meta statelessly.
    let (mut stdio, _) = Stdio::open(&app, "2025-11-25", json!({})).await;
    let stateless = stdio
        .call(
            modern(3, "tools/call", json!({"name": "whoami", "arguments": {}})),
            agreeable,
        )
        .await;
    assert_eq!(stateless.response["result"]["resultType"], "complete");
    let legacy = stdio.call(call(4, "whoami", json!({})), agreeable).await;
    assert!(legacy.response["result"].get("resultType").is_none());
}

// ---- 2025-03-26 batches --------------------------------------------------------------------

#[tokio::test]
async fn batches_are_served_in_2025_03_26_only() {
    let app = build(interactive());
    let batch = json!([
        request(1, "ping", json!({})),
        notification("notifications/roots/list_changed", json!({})),
        call(2, "whoami", json!({})),
        {"jsonrpc": "2.0", "id": 3},
    ]);
    let (mut stdio, _) = Stdio::open(&app, "2025-03-26", json!({})).await;
    stdio.send(&batch).await;
    let answers = stdio.next().await;
    let answers = answers.as_array().expect("an array of responses");
    assert_eq!(answers.len(), 3);
    assert_eq!(
        answers[0]["error"]["code"], -32600,
        "the malformed member first"
    );
    assert_eq!(answers[1]["result"], json!({}));
    assert_eq!(answers[2]["result"]["content"][0]["text"], "anonymous");

    let (http, _) = Http::open(&app, "2025-03-26", json!({})).await;
    let answers = json_body(http.send(&batch).await).await;
    assert_eq!(answers.as_array().map(Vec::len), Some(3));

    let (http, _) = Http::open(&app, "2025-06-18", json!({})).await;
    let refused = http.send(&batch).await;
    assert_eq!(refused.status(), 400);
    assert_eq!(json_body(refused).await["error"]["code"], -32600);
    let (mut stdio, _) = Stdio::open(&app, "2025-06-18", json!({})).await;
    stdio.send(&batch).await;
    assert_eq!(stdio.next().await["error"]["code"], -32600);
}

// ---- the in-process handshake-era client -------------------------------------------------

#[tokio::test]
async fn the_test_client_answers_the_servers_questions_in_the_handshake_era() {
    use mcp_runtime::testing::TestClient;
    let app = build(interactive());
    let client = TestClient::legacy(app.clone(), "2025-06-18")
        .with_capabilities(all_caps())
        .on_elicit(|question| async move {
            assert_eq!(question["message"], "Send 5 cents to ann?");
            json!({"action": "accept", "content": {"confirm": true}})
        });
    assert_eq!(client.discover().await["protocolVersion"], "2025-06-18");
    let sent = client
        .call_tool("transfer", json!({"amount": 5, "to": "ann"}))
        .await;
    assert_eq!(
        sent["content"][0]["text"],
        "Sent 5 cents to ann (quoted 5 on round 1)."
    );
    // Without a handler, the server's question gets an error back.
    let silent = TestClient::legacy(app, "2025-11-25").with_capabilities(all_caps());
    let refused = silent
        .call_tool("transfer", json!({"amount": 5, "to": "ann"}))
        .await;
    assert_eq!(refused["error"]["code"], -32601);
    silent
        .request("logging/setLevel", json!({"level": "emergency"}))
        .await;
    let (logs, _) = silent
        .request_with_notifications("tools/call", json!({"name": "chatty", "arguments": {}}))
        .await;
    assert_eq!(logs.len(), 1);
    // subscriptions/listen belongs to 2026-07-28.
    let Err(listen) = silent.listen(json!({})) else {
        panic!("a handshake-era client listened");
    };
    assert_eq!(listen["error"]["code"], -32601);
}

// ---- hostile input on a session -----------------------------------------------------------

#[tokio::test]
async fn bad_session_traffic_gets_clear_errors_and_the_session_survives() {
    let app = build(interactive());
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let raw = |body: &str, session: &str| {
        Request::post("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", session)
            .body(Body::from(body.to_owned()))
            .unwrap()
    };
    let cases: Vec<(&str, String, u16, i64)> = vec![
        ("malformed JSON", "{".into(), 400, -32700),
        (
            "no method",
            r#"{"jsonrpc":"2.0","id":1}"#.into(),
            400,
            -32600,
        ),
        (
            "wrong jsonrpc",
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.into(),
            400,
            -32600,
        ),
        (
            "params not an object",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#.into(),
            400,
            -32602,
        ),
        (
            "a batch outside 2025-03-26",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.into(),
            400,
            -32600,
        ),
        (
            "unknown method",
            r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#.into(),
            200,
            -32601,
        ),
        (
            "subscribe without a uri",
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{}}"#.into(),
            200,
            -32602,
        ),
    ];
    for (what, body, status, code) in cases {
        let response = http
            .router
            .clone()
            .oneshot(raw(&body, &http.session))
            .await
            .unwrap();
        assert_eq!(response.status(), status, "{what}");
        let answer = json_body(response).await;
        assert_eq!(answer["error"]["code"], code, "{what}: {answer}");
        assert!(answer["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    // initialize names no session: sent with one, it opens another.
    let again = http
        .router
        .clone()
        .oneshot(raw(
            &initialize(1, "2025-11-25", json!({})).to_string(),
            &http.session,
        ))
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    assert_ne!(again.headers()["mcp-session-id"], http.session.as_str());
    // A session id that is not visible ASCII, and a GET that does not take event streams.
    let mut bad_id = raw(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, "x");
    bad_id.headers_mut().insert(
        "mcp-session-id",
        axum::http::HeaderValue::from_bytes(b"caf\xe9").unwrap(),
    );
    assert_eq!(
        http.router.clone().oneshot(bad_id).await.unwrap().status(),
        400
    );
    let plain_get = Request::get("/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json")
        .header("mcp-session-id", &http.session)
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        http.router
            .clone()
            .oneshot(plain_get)
            .await
            .unwrap()
            .status(),
        406
    );
    // An answer to nothing, and garbage Last-Event-IDs, change nothing.
    let stray = json!({"jsonrpc": "2.0", "id": 999, "result": {}});
    assert_eq!(http.send(&stray).await.status(), 202);
    for last in ["garbage", "99-1", "0-999999"] {
        let response = http.get(Some(last)).await;
        assert_eq!(response.status(), 200, "{last}: the session stream instead");
    }
    // The session still works.
    let pong = http.call(request(2, "ping", json!({})), agreeable).await;
    assert_eq!(pong.response["result"], json!({}));
}

/// Session ids are portable between instances sharing the seal key: a load balancer that
/// hashes `Mcp-Session-Id` sends a session's messages to one instance, which need not be
/// the one that answered `initialize`. An ended id stays ended there; an id from another
/// key, or altered, opens nothing.
#[tokio::test]
async fn a_session_id_opens_its_session_on_another_instance_with_the_same_key() {
    let key = mcp_runtime::SealKey::from_bytes([9; 32]);
    let first = build(interactive().seal_key(key.clone()));
    let second = build(interactive().seal_key(key));
    let stranger = build(interactive().seal_key(mcp_runtime::SealKey::from_bytes([8; 32])));
    let (opened, _) = Http::open(&first, "2025-06-18", json!({"elicitation": {}})).await;

    // The second instance has never seen the session, and serves it as negotiated: the
    // revision and the client's capabilities travel in the id.
    let moved = Http {
        router: second.router(),
        session: opened.session.clone(),
        version: opened.version.clone(),
    };
    let listed = moved.send(&request(1, "tools/list", json!({}))).await;
    assert_eq!(listed.status(), 200);
    assert!(json_body(listed).await["result"]["tools"].is_array());
    let wrong_version = moved
        .router
        .clone()
        .oneshot(post(
            &request(2, "ping", json!({})),
            Some(&moved.session),
            Some("2025-11-25"),
        ))
        .await
        .unwrap();
    assert_eq!(
        wrong_version.status(),
        400,
        "still the negotiated 2025-06-18"
    );

    // Another key, or a changed id: unknown.
    let foreign = Http {
        router: stranger.router(),
        session: opened.session.clone(),
        version: opened.version.clone(),
    };
    assert_eq!(
        foreign.send(&request(3, "ping", json!({}))).await.status(),
        404
    );
    let mut altered = opened.session.clone();
    let last = altered.pop().unwrap();
    altered.push(if last == 'A' { 'B' } else { 'A' });
    let tampered = Http {
        router: second.router(),
        session: altered,
        version: opened.version.clone(),
    };
    assert_eq!(
        tampered.send(&request(4, "ping", json!({}))).await.status(),
        404
    );

    // Ended where it lives: it does not open again there.
    let delete = Request::delete("/mcp")
        .header("host", "127.0.0.1")
        .header("mcp-session-id", &moved.session)
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        moved.router.clone().oneshot(delete).await.unwrap().status(),
        200
    );
    assert_eq!(
        moved.send(&request(5, "ping", json!({}))).await.status(),
        404
    );
}

#[tokio::test]
async fn the_handshake_era_ignores_mirrored_headers() {
    // `x-mcp-header` came with 2026-07-28: a 2025-11-25 session over HTTP calls a tool that
    // mirrors arguments without any `Mcp-Param-*` header, and one sent anyway is ignored.
    let ledger = Arc::new(mcp_workspace_tests::gateway::Ledger::default());
    let app = build(mcp_workspace_tests::gateway_server(ledger.clone()));
    let (http, _) = Http::open(&app, "2025-11-25", json!({})).await;
    let arguments = json!({"tenant": "acme", "region": "us", "units": 2});
    let seen = http
        .call(call(1, "move_stock", arguments.clone()), agreeable)
        .await;
    assert_eq!(
        seen.text(),
        "2 units for acme in Us (dry run: false, note: none)"
    );
    let mut request = post(
        &call(2, "move_stock", arguments),
        Some(&http.session),
        Some(&http.version),
    );
    request
        .headers_mut()
        .insert("mcp-param-region", "eu".parse().unwrap());
    let response = app.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(ledger.calls.load(std::sync::atomic::Ordering::SeqCst), 2);
}
