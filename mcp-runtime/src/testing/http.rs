//! Streamable HTTP in tests: the requests a conforming client sends, and a client that
//! sends them to a router in process (no socket).

use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Request};
use serde_json::{json, Value};
use tower::ServiceExt as _;

use super::client::result_or_response;
use super::{bounds, with_meta, Answers};
use crate::protocol::answers::{answering_methods, RoundTrip};
use crate::App;

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
        let header =
            axum::http::HeaderValue::from_str(&crate::protocol::exchange::header_encoding(&text))
                .map_err(|e| e.to_string())?;
        request
            .headers_mut()
            .insert(mirrored.header.clone(), header);
    }
    Ok(request)
}

/// Sends real Streamable HTTP requests, headers included, to a router in process: no
/// socket, no port. It speaks 2026-07-28: every request carries its `_meta` and the
/// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers a conforming
/// client sends, so what it tests is what a gateway and the server see.
///
/// By default it posts to `/mcp` of [`App::router`]. Give it your own service with
/// [`via`](HttpTestClient::via) (the MCP endpoint mounted in it, your middleware in
/// front) and the path with [`path`](HttpTestClient::path). Like
/// [`TestClient`](super::TestClient), it answers the server's questions with the
/// [`Answers`] given to [`answers`](HttpTestClient::answers) (or to
/// [`on_elicit`](HttpTestClient::on_elicit), [`on_sample`](HttpTestClient::on_sample) and
/// [`on_roots`](HttpTestClient::on_roots)), each round a new HTTP request.
///
/// ```no_run
/// # async fn demo(app: mcp_runtime::App) {
/// use mcp_runtime::testing::HttpTestClient;
/// use serde_json::json;
///
/// let client = HttpTestClient::new(&app).bearer("a-token");
/// let response = client.call_tool("add", json!({"a": 2, "b": 3})).await;
/// assert_eq!(response.status, 200);
/// assert_eq!(response.result()["structuredContent"], 5);
/// # }
/// ```
pub struct HttpTestClient {
    app: App,
    router: axum::Router,
    path: String,
    headers: HeaderMap,
    capabilities: Option<Value>,
    answers: Answers,
    next_id: AtomicU64,
}

impl HttpTestClient {
    /// A client of `app`'s own router ([`App::router`]), posting to `/mcp`.
    pub fn new(app: &App) -> Self {
        HttpTestClient {
            app: app.clone(),
            router: app.router(),
            path: "/mcp".into(),
            headers: HeaderMap::new(),
            capabilities: None,
            answers: Answers::default(),
            next_id: AtomicU64::new(1),
        }
    }

    /// Send every request through `router` instead: your service, with the MCP endpoint
    /// mounted in it (see [`path`](HttpTestClient::path)) and your middleware in front.
    /// `app` (given to [`new`](HttpTestClient::new)) still says which arguments of a tool
    /// are mirrored into `Mcp-Param-*` headers.
    pub fn via(mut self, router: axum::Router) -> Self {
        self.router = router;
        self
    }

    /// Post to `path` instead of `/mcp`.
    pub fn path(mut self, path: &str) -> Self {
        self.path = path.to_owned();
        self
    }

    /// Add a header to every request (e.g. one your own authentication middleware reads).
    /// A name or value that is not a valid header is ignored, so the request goes out
    /// without it.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            self.headers.insert(name, value);
        }
        self
    }

    /// Send `Authorization: Bearer {token}` with every request.
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Declare these client capabilities in every request's `_meta`.
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    answering_methods!(answers);

    /// Send `method` with `params` (an object; `_meta` is added when absent) and return
    /// the last HTTP response, after answering the server's questions with the client's
    /// handlers (each round is a new HTTP request).
    pub async fn request(&self, method: &str, params: Value) -> HttpResponse {
        let params = self.with_meta(params);
        let mut trip = Posted {
            client: self,
            method,
        };
        let bounds = bounds(&self.answers);
        let Ok(ended) = self.answers.rounds(&mut trip, params, bounds).await;
        ended.reply.0
    }

    /// Call a tool: the HTTP response (its [`result`](HttpResponse::result) is the tool's
    /// result).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> HttpResponse {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// Post `body` as it is (no `_meta` added, no rounds answered), with the headers a
    /// conforming client derives from it and the client's own headers.
    pub async fn post(&self, body: &str) -> HttpResponse {
        match http_request_for(&self.app, body) {
            Ok(mut request) => {
                *request.uri_mut() = match self.path.parse() {
                    Ok(uri) => uri,
                    Err(_) => return HttpResponse::failed(format!("bad path {:?}", self.path)),
                };
                self.send(request).await
            }
            Err(error) => HttpResponse::failed(error),
        }
    }

    /// Send any request (a GET, a request with headers of your choosing) through the
    /// router, with the client's own headers added where the request has none of that
    /// name.
    pub async fn send(&self, mut request: Request<Body>) -> HttpResponse {
        for (name, value) in &self.headers {
            if !request.headers().contains_key(name) {
                request.headers_mut().insert(name.clone(), value.clone());
            }
        }
        let response = match self.router.clone().oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        match axum::body::to_bytes(response.into_body(), usize::MAX).await {
            Ok(bytes) => HttpResponse {
                status,
                headers,
                text: String::from_utf8_lossy(&bytes).into_owned(),
            },
            Err(error) => HttpResponse::failed(format!("reading the body: {error}")),
        }
    }

    fn with_meta(&self, params: Value) -> Value {
        with_meta(params, || self.answers.declare(self.capabilities.as_ref()))
    }
}

/// How a round of a request reaches the router: a POST of its own, whose JSON-RPC response
/// is read once.
struct Posted<'a> {
    client: &'a HttpTestClient,
    method: &'a str,
}

impl RoundTrip for Posted<'_> {
    type Reply = (HttpResponse, Value);
    type Error = std::convert::Infallible;

    async fn send(&mut self, params: &Value) -> Result<Self::Reply, Self::Error> {
        let body = json!({
            "jsonrpc": "2.0",
            "id": self.client.next_id.fetch_add(1, Ordering::Relaxed),
            "method": self.method,
            "params": params,
        });
        let response = self.client.post(&body.to_string()).await;
        let message = response.response();
        Ok((response, message))
    }

    fn result((_, message): &Self::Reply) -> Option<&Value> {
        message.get("result")
    }
}

/// What came back for one HTTP request: its status, headers and body, read as JSON or as
/// a Server-Sent Events stream.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub text: String,
}

impl HttpResponse {
    /// A response standing for a request the client could not build or read: status 0 and
    /// the reason as the body.
    fn failed(reason: String) -> Self {
        HttpResponse {
            status: 0,
            headers: HeaderMap::new(),
            text: format!("test client: {reason}"),
        }
    }

    /// A header's value as text, if present and visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Every JSON-RPC message in the body: the one JSON body, or each `data:` event of a
    /// Server-Sent Events stream, in order. Bodies that are neither give none.
    pub fn messages(&self) -> Vec<Value> {
        if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            return sse_messages(&self.text);
        }
        serde_json::from_str(&self.text).into_iter().collect()
    }

    /// The JSON-RPC response (the message with an `id` and a `result` or `error`), or
    /// `Null` when the body has none.
    pub fn response(&self) -> Value {
        self.messages()
            .into_iter()
            .rfind(|m| m.get("method").is_none() && m.get("id").is_some())
            .unwrap_or(Value::Null)
    }

    /// The response's `result`, or the whole response when it has none (an error).
    pub fn result(&self) -> Value {
        result_or_response(self.response())
    }

    /// The notifications streamed before the response (progress, log messages).
    pub fn notifications(&self) -> Vec<Value> {
        self.messages()
            .into_iter()
            .filter(|m| m.get("method").is_some() && m.get("id").is_none())
            .collect()
    }
}

/// The JSON of each event's `data` lines in a Server-Sent Events stream (the whole body:
/// its end ends the last event).
fn sse_messages(text: &str) -> Vec<Value> {
    // The body was read whole by the test client: no event is too large to keep.
    let mut reader = crate::protocol::sse::SseReader::new(usize::MAX);
    let mut messages = Vec::new();
    for part in [text.as_bytes(), b"\n\n"] {
        if reader.feed(part).is_err() {
            return messages;
        }
        while let Some(data) = reader.next_event() {
            if let Ok(message) = serde_json::from_str(&data) {
                messages.push(message);
            }
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_sent_events_are_read_as_messages() {
        let text = ": keep-alive\n\nevent: message\ndata: {\"method\":\"notifications/progress\"}\n\nid: 7\ndata: {\"id\":1,\ndata: \"result\":{}}\n\n";
        let response = HttpResponse {
            status: 200,
            headers: HeaderMap::from_iter([(
                axum::http::header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            )]),
            text: text.into(),
        };
        assert_eq!(
            response.notifications(),
            vec![json!({"method": "notifications/progress"})]
        );
        assert_eq!(response.response(), json!({"id": 1, "result": {}}));
        assert_eq!(response.result(), json!({}));
    }

    #[test]
    fn a_json_body_is_one_message() {
        let response = HttpResponse {
            status: 200,
            headers: HeaderMap::from_iter([(
                axum::http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )]),
            text: r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}}"#.into(),
        };
        assert_eq!(response.result()["error"]["code"], -32602);
        assert!(response.notifications().is_empty());
    }
}
