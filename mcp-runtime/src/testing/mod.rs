//! Test support (feature `testing`): an in-process client for each protocol era
//! ([`TestClient`] for 2026-07-28, [`LegacyTestClient`] for the handshake era) and a
//! transcript runner that replays recorded exchanges over both transports. With the
//! `oauth` feature, [`TestIssuer`] mints access tokens for tests of secured servers.
//! [`check_store`] checks a [`Store`](crate::store::Store) of your own against the
//! contract the server relies on.
//!
//! ```no_run
//! # async fn demo(app: mcp_runtime::App) {
//! use mcp_runtime::testing::TestClient;
//! let client = TestClient::new(app);
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await;
//! assert_eq!(result["structuredContent"], 5);
//! # }
//! ```

use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::core::{Notifier, Transport};

/// The notification stream [`TestClient::listen`] opens.
pub use crate::core::Subscription;
use crate::era::modern::{self, Answer, Inbound};
use crate::policy::auth::Principal;
use crate::protocol::jsonrpc::Message;
use crate::protocol::{meta, version};
use crate::App;

#[cfg(feature = "oauth")]
mod issuer;
mod store;

#[cfg(feature = "oauth")]
pub use issuer::{TestIssuer, TokenBuilder};
pub use store::check_store;

/// The `_meta` a modern client sends when it declares no optional capability.
pub fn default_meta() -> Value {
    json!({
        meta::PROTOCOL_VERSION: version::MODERN,
        meta::CLIENT_CAPABILITIES: {},
        meta::CLIENT_INFO: {"name": "mcp-runtime-test-client", "version": "0"},
    })
}

/// Calls a built server in process, through the modern era adapter (no transport).
pub struct TestClient {
    app: App,
    next_id: std::sync::atomic::AtomicU64,
    principal: Option<Principal>,
    capabilities: Option<Value>,
}

impl TestClient {
    /// A client of `app`.
    pub fn new(app: App) -> Self {
        TestClient {
            app,
            next_id: std::sync::atomic::AtomicU64::new(1),
            principal: None,
            capabilities: None,
        }
    }

    /// The same client declaring these `clientCapabilities` on every request, e.g.
    /// `{"extensions": {"io.modelcontextprotocol/tasks": {}}}`.
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// The same server, called as `principal` (as an authentication layer would set it).
    pub fn as_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    fn inbound(&self) -> Inbound {
        let mut inbound = Inbound::new(Transport::InProcess);
        inbound.principal = self.principal.clone();
        inbound
    }

    fn envelope(&self, method: &str, params: Value) -> Value {
        let mut params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        params.entry("_meta").or_insert_with(|| {
            let mut meta = default_meta();
            if let (Some(caps), Value::Object(map)) = (&self.capabilities, &mut meta) {
                map.insert(meta::CLIENT_CAPABILITIES.into(), caps.clone());
            }
            meta
        });
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    /// Send a request and collect the notifications it produced before its response:
    /// `(notifications, response)`.
    pub async fn request_with_notifications(
        &self,
        method: &str,
        params: Value,
    ) -> (Vec<Value>, Value) {
        let Ok(Message::Request { id, method, params }) =
            Message::from_value(self.envelope(method, params))
        else {
            return (Vec::new(), Value::Null);
        };
        let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
        let mut inbound = self.inbound();
        inbound.notifier = Some(Notifier::new(tx));
        let answer = modern::handle_request(self.app.core(), id, method, params, inbound).await;
        let mut notifications = Vec::new();
        while let Ok(frame) = rx.try_recv() {
            notifications.push(serde_json::from_slice(&frame).unwrap_or(Value::Null));
        }
        (notifications, answer.into_message())
    }

    /// Open a `subscriptions/listen` subscription with these params (`_meta` is added), or
    /// get the error response.
    pub fn listen(&self, params: Value) -> Result<Subscription, Value> {
        match Message::from_value(self.envelope("subscriptions/listen", params)) {
            Ok(Message::Request { id, params, .. }) => {
                modern::listen(self.app.core(), &id, params, self.principal.as_ref())
                    .map_err(Answer::into_message)
            }
            _ => Err(Value::Null),
        }
    }

    /// Send `method` with `params` (an object; `_meta` is added when absent) and return the
    /// whole JSON-RPC response.
    pub async fn request(&self, method: &str, params: Value) -> Value {
        self.message(self.envelope(method, params))
            .await
            .unwrap_or(Value::Null)
    }

    /// Send one raw message; `None` for notifications.
    pub async fn message(&self, message: Value) -> Option<Value> {
        match Message::from_value(message) {
            Ok(Message::Request { id, method, params }) => Some(
                modern::handle_request(self.app.core(), id, method, params, self.inbound())
                    .await
                    .into_message(),
            ),
            Ok(_) => None,
            Err(m) => Some(crate::protocol::jsonrpc::error_response(
                m.id.as_ref(),
                &m.error,
            )),
        }
    }

    /// Call a tool and return the `result` object (or the error response when there is none).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Value {
        let response = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await;
        match response.get("result") {
            Some(result) => result.clone(),
            None => response,
        }
    }
}

/// A handshake-era client of a built server (feature `legacy`): it opens a session with
/// `initialize` over an in-memory stdio stream, as a 2025-era host would, and answers the
/// server's own requests (`elicitation/create`, `sampling/createMessage`, `roots/list`)
/// with the function given to [`LegacyTestClient::answering`].
///
/// ```no_run
/// # async fn demo(app: mcp_runtime::App) -> Result<(), String> {
/// use mcp_runtime::testing::LegacyTestClient;
/// use serde_json::json;
///
/// let mut client = LegacyTestClient::connect(&app, "2025-06-18", json!({"elicitation": {}}))
///     .await?
///     .answering(|_method, _params| json!({"action": "accept", "content": {"confirm": true}}));
/// let result = client.call_tool("delete_order", json!({"id": 2})).await?;
/// assert_eq!(result["content"][0]["text"], "Order 2 deleted.");
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "legacy")]
pub struct LegacyTestClient {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next_id: u64,
    answer: Option<Box<Answerer>>,
    initialized: Value,
}

#[cfg(feature = "legacy")]
type Answerer = dyn FnMut(&str, &Value) -> Value + Send;

#[cfg(feature = "legacy")]
impl LegacyTestClient {
    /// How long the client waits for any one message from the server.
    const WAIT: std::time::Duration = std::time::Duration::from_secs(30);

    /// Serve `app` on an in-memory stream and open a session speaking `version`, declaring
    /// `capabilities` (a `ClientCapabilities` object).
    pub async fn connect(app: &App, version: &str, capabilities: Value) -> Result<Self, String> {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let serving = app.clone();
        tokio::spawn(async move { serving.serve_io(server_read, server_write).await });
        let (read, writer) = tokio::io::split(client);
        let mut client = LegacyTestClient {
            writer,
            lines: BufReader::new(read).lines(),
            next_id: 1,
            answer: None,
            initialized: Value::Null,
        };
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "mcp-runtime-legacy-test-client", "version": "0"},
        });
        let (_, response) = client
            .request_with_notifications("initialize", params)
            .await?;
        let Some(result) = response.get("result") else {
            return Err(format!("initialize failed: {response}"));
        };
        client.initialized = result.clone();
        client
            .notify("notifications/initialized", json!({}))
            .await?;
        Ok(client)
    }

    /// Answer the server's requests with `answer(method, params)`, which returns the
    /// result. Without it, every server request gets a JSON-RPC error.
    pub fn answering(mut self, answer: impl FnMut(&str, &Value) -> Value + Send + 'static) -> Self {
        self.answer = Some(Box::new(answer));
        self
    }

    /// The `InitializeResult` the server answered with.
    pub fn initialize_result(&self) -> &Value {
        &self.initialized
    }

    async fn write(&mut self, message: &Value) -> Result<(), String> {
        self.writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .map_err(|e| format!("the server's input is closed: {e}"))
    }

    async fn read(&mut self) -> Result<Value, String> {
        let line = tokio::time::timeout(Self::WAIT, self.lines.next_line())
            .await
            .map_err(|_| "no message from the server within 30 s".to_owned())?
            .map_err(|e| e.to_string())?
            .ok_or("the server closed its output")?;
        serde_json::from_str(&line).map_err(|e| format!("the server wrote invalid JSON: {e}"))
    }

    /// Send a notification.
    pub async fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Send a request; answer the server's requests meanwhile; return the notifications
    /// that came before the response, and the whole response.
    pub async fn request_with_notifications(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<(Vec<Value>, Value), String> {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        let mut notifications = Vec::new();
        loop {
            let frame = self.read().await?;
            match (frame.get("method").and_then(Value::as_str), frame.get("id")) {
                (Some(asked), Some(asked_id)) => {
                    let reply = match self.answer.as_mut() {
                        Some(answer) => json!({
                            "jsonrpc": "2.0",
                            "id": asked_id,
                            "result": answer(asked, frame.get("params").unwrap_or(&Value::Null)),
                        }),
                        None => json!({
                            "jsonrpc": "2.0",
                            "id": asked_id,
                            "error": {"code": -32601, "message": format!("this test client does not answer {asked}")},
                        }),
                    };
                    self.write(&reply).await?;
                }
                (Some(_), None) => notifications.push(frame),
                (None, Some(answered)) if *answered == json!(id) => {
                    return Ok((notifications, frame))
                }
                // A message for an earlier request (say, one cancelled): not ours.
                _ => {}
            }
        }
    }

    /// Send a request and return the whole response.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        Ok(self.request_with_notifications(method, params).await?.1)
    }

    /// Call a tool and return the `result` object (or the error response when there is none).
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, String> {
        let response = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        Ok(match response.get("result") {
            Some(result) => result.clone(),
            None => response,
        })
    }
}

/// One step of a transcript: a message the client sends and what it must get back.
#[derive(Debug, Clone)]
pub struct Step {
    /// Line number in the transcript, for failure messages.
    pub line: usize,
    /// The message sent (raw text, so malformed input can be replayed too).
    pub send: String,
    /// The expected response, if one is expected.
    pub expect: Option<Value>,
    /// Expected HTTP status (checked over HTTP only).
    pub status: Option<u16>,
}

/// A recorded exchange.
///
/// Format, one item per line: `> MESSAGE` is sent by the client; `< [STATUS] RESPONSE` is the
/// expected answer (the optional HTTP status is checked over HTTP only); `#` starts a comment.
/// In expected JSON the string `"<any>"` matches any value; objects must have the same keys.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The steps in order.
    pub steps: Vec<Step>,
}

impl Transcript {
    /// Parse a transcript.
    pub fn parse(text: &str) -> Result<Transcript, String> {
        let mut steps: Vec<Step> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let number = index + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(send) = line.strip_prefix('>') {
                steps.push(Step {
                    line: number,
                    send: send.trim().to_owned(),
                    expect: None,
                    status: None,
                });
            } else if let Some(rest) = line.strip_prefix('<') {
                let rest = rest.trim();
                let (status, body) = match rest.split_once(' ') {
                    Some((code, body))
                        if code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit()) =>
                    {
                        (code.parse().ok(), body)
                    }
                    _ => (None, rest),
                };
                let expect: Value =
                    serde_json::from_str(body).map_err(|e| format!("line {number}: {e}"))?;
                let step = steps
                    .last_mut()
                    .ok_or(format!("line {number}: an answer before any message"))?;
                step.expect = Some(expect);
                step.status = status;
            } else {
                return Err(format!("line {number}: lines start with >, < or #"));
            }
        }
        Ok(Transcript { steps })
    }

    /// Replay over the stdio framing (an in-memory byte stream).
    pub async fn replay_stdio(&self, app: &App) -> Result<(), String> {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let app = app.clone();
        let serving = tokio::spawn(async move { app.serve_io(server_read, server_write).await });
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();
        for step in &self.steps {
            client_write
                .write_all(step.send.as_bytes())
                .await
                .map_err(|e| e.to_string())?;
            client_write
                .write_all(b"\n")
                .await
                .map_err(|e| e.to_string())?;
            if let Some(expect) = &step.expect {
                let line =
                    tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
                        .await
                        .map_err(|_| format!("line {}: no answer within 10 s", step.line))?
                        .map_err(|e| e.to_string())?
                        .ok_or(format!("line {}: the server closed its output", step.line))?;
                let actual: Value = serde_json::from_str(&line)
                    .map_err(|e| format!("line {}: not JSON: {e}: {line}", step.line))?;
                compare(step, expect, &actual)?;
            }
        }
        // Closing our side is EOF for the server, which then drains and closes its output.
        client_write.shutdown().await.map_err(|e| e.to_string())?;
        let rest = lines.next_line().await.map_err(|e| e.to_string())?;
        if let Some(extra) = rest {
            return Err(format!("unexpected output after the transcript: {extra}"));
        }
        serving
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    }

    /// Replay over Streamable HTTP (the router, in process), with the headers a client sends.
    pub async fn replay_http(&self, app: &App) -> Result<(), String> {
        use tower::ServiceExt as _;
        let router = app.router();
        for step in &self.steps {
            let request = http_request_for(app, &step.send)?;
            let response = router
                .clone()
                .oneshot(request)
                .await
                .map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .map_err(|e| e.to_string())?;
            match &step.expect {
                Some(expect) => {
                    if let Some(want) = step.status {
                        if want != status {
                            return Err(format!(
                                "line {}: HTTP status {status}, expected {want}",
                                step.line
                            ));
                        }
                    }
                    let actual: Value = serde_json::from_slice(&bytes).map_err(|e| {
                        format!(
                            "line {}: body is not JSON ({e}): {}",
                            step.line,
                            String::from_utf8_lossy(&bytes)
                        )
                    })?;
                    compare(step, expect, &actual)?;
                }
                None if status != 202 => {
                    return Err(format!(
                        "line {}: expected 202 for a notification, got {status}",
                        step.line
                    ));
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// Build the POST a conforming client would send for `body`, mirroring headers from it.
pub fn http_request(body: &str) -> Result<axum::http::Request<axum::body::Body>, String> {
    let mut builder = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        if let Some(version) = value
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str)
        {
            builder = builder.header("mcp-protocol-version", version);
        }
        if let Some(method) = value.get("method").and_then(Value::as_str) {
            builder = builder.header("mcp-method", method);
        }
        if let Some(name) = value
            .pointer("/params/name")
            .or_else(|| value.pointer("/params/uri"))
            .and_then(Value::as_str)
        {
            builder = builder.header("mcp-name", name);
        }
    }
    builder
        .body(axum::body::Body::from(body.to_owned()))
        .map_err(|e| e.to_string())
}

/// [`http_request`] plus what a conforming client adds for `app`'s tools: an
/// `Mcp-Param-{Name}` header for each argument the called tool mirrors (`x-mcp-header`)
/// that has a value, encoded as clients do (`=?base64?..?=` when the text is not plain
/// visible ASCII).
pub fn http_request_for(
    app: &App,
    body: &str,
) -> Result<axum::http::Request<axum::body::Body>, String> {
    let mut request = http_request(body)?;
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return Ok(request);
    };
    if value.get("method").and_then(Value::as_str) != Some("tools/call") {
        return Ok(request);
    }
    let Some(name) = value.pointer("/params/name").and_then(Value::as_str) else {
        return Ok(request);
    };
    let snapshot = app.core().live.load();
    let Some(tool) = snapshot.catalog.get(name) else {
        return Ok(request);
    };
    for mirrored in &tool.mirrored {
        let mut argument = value.pointer("/params/arguments");
        for key in &mirrored.path {
            argument = argument.and_then(|a| a.get(key));
        }
        let text = match argument {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
        let header = axum::http::HeaderValue::from_str(&client_encoding(&text))
            .map_err(|e| e.to_string())?;
        request
            .headers_mut()
            .insert(mirrored.header.clone(), header);
    }
    Ok(request)
}

/// A header value as a client writes it: as it is when it is plain visible ASCII (inner
/// spaces and tabs allowed), else Base64 between the `=?base64?` and `?=` markers.
fn client_encoding(text: &str) -> String {
    use base64::Engine as _;
    let plain = !text.is_empty()
        && text.trim_matches([' ', '\t']) == text
        && text.chars().all(|c| c == '\t' || (' '..='~').contains(&c))
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    if plain {
        text.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        format!("=?base64?{encoded}?=")
    }
}

fn compare(step: &Step, expect: &Value, actual: &Value) -> Result<(), String> {
    if matches(expect, actual) {
        Ok(())
    } else {
        Err(format!(
            "line {}: response differs\n  expected: {expect}\n  actual:   {actual}",
            step.line
        ))
    }
}

/// Whether `actual` matches the pattern `expect` (`"<any>"` matches anything).
pub fn matches(expect: &Value, actual: &Value) -> bool {
    match (expect, actual) {
        (Value::String(s), _) if s == "<any>" => true,
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len()
                && e.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av)))
        }
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| matches(x, y))
        }
        (Value::Number(e), Value::Number(a)) => e.as_f64() == a.as_f64(),
        _ => expect == actual,
    }
}
