//! Views (the MCP Apps extension, `io.modelcontextprotocol/ui`) in both eras and over both
//! transports: the extension announced only by a server with a view, `_meta.ui` on tool
//! and resource listings and on read contents, app-only tools kept from clients that did
//! not declare the extension (unlisted, -32021 when called) and served to those that did,
//! the ordinary result for clients without the extension, and the rules checked when the
//! server is built.

#[cfg(feature = "legacy")]
use axum::body::Body;
#[cfg(feature = "legacy")]
use axum::http::Request;
use mcp_runtime::testing::{HttpTestClient, TestClient};
use mcp_runtime::{App, BuildError, Server};
use serde_json::{json, Value};
#[cfg(feature = "legacy")]
use tower::ServiceExt;

const UI: &str = "io.modelcontextprotocol/ui";
const MIME: &str = "text/html;profile=mcp-app";

/// A server with a view, a tool rendered in it, an app-only tool and a model-only tool.
mod board {
    use mcp_runtime::prelude::*;
    use mcp_runtime::{Cursor, Page};

    /// The board.
    #[view(
        "ui://board/main",
        title = "Board",
        csp(
            connect("https://api.board.example"),
            resource("https://*.cdn.board.example"),
            frame("https://player.board.example"),
            base_uri("https://cdn.board.example")
        ),
        permissions(clipboard_write, geolocation),
        domain = "board.views.example",
        prefers_border = false
    )]
    pub fn main_view() -> &'static str {
        "<!DOCTYPE html><html><body><table></table></body></html>"
    }

    /// A view whose function names another MIME type: served as a view's all the same.
    #[view("ui://board/raw")]
    pub fn raw_view() -> ResourceContents {
        ResourceContents::text("ui://board/raw", "text/plain", "<!DOCTYPE html><p>raw</p>")
    }

    /// The cards of the board, three at a time.
    #[tool(read_only, ui = "ui://board/main")]
    pub async fn cards(after: Cursor<u32>) -> Page<u32> {
        let start = after.position().copied().unwrap_or(0);
        let items: Vec<u32> = (start + 1..=(start + 3).min(7)).collect();
        let next = items.last().copied().filter(|last| *last < 7);
        after.page(items, next)
    }

    /// More cards, for the board's button.
    #[tool(read_only, visibility = app, continues = "cards")]
    pub async fn more_cards(after: Cursor<u32>) -> Page<u32> {
        cards(after).await
    }

    /// For the model only.
    #[tool(visibility = model)]
    pub async fn summary() -> &'static str {
        "7 cards"
    }
}

/// A tool that claims to continue the pages of one that has none (built only by the test
/// that expects the refusal).
mod unpaged {
    use mcp_runtime::prelude::*;
    use mcp_runtime::{Cursor, Page};

    /// Lists, without pages.
    #[tool]
    pub async fn everything() -> Vec<u32> {
        vec![1, 2, 3]
    }

    /// Claims to continue `everything`'s pages.
    #[tool(visibility = app, continues = "everything")]
    pub async fn everything_more(after: Cursor<u32>) -> Page<u32> {
        after.page(vec![4], None)
    }
}

/// A server without a view.
mod plain {
    use mcp_runtime::prelude::*;

    /// Adds.
    #[tool]
    pub async fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

fn app() -> App {
    Server::new("board", "1")
        .only_module(concat!(module_path!(), "::board"))
        .build()
        .unwrap()
}

fn plain_app() -> App {
    Server::new("plain", "1")
        .only_module(concat!(module_path!(), "::plain"))
        .build()
        .unwrap()
}

fn takes_views() -> Value {
    json!({"extensions": {UI: {"mimeTypes": [MIME]}}})
}

fn view_meta() -> Value {
    json!({
        "csp": {
            "connectDomains": ["https://api.board.example"],
            "resourceDomains": ["https://*.cdn.board.example"],
            "frameDomains": ["https://player.board.example"],
            "baseUriDomains": ["https://cdn.board.example"]
        },
        "permissions": {"clipboardWrite": {}, "geolocation": {}},
        "domain": "board.views.example",
        "prefersBorder": false
    })
}

/// A handshake-era session over Streamable HTTP: `initialize`, then requests with its
/// session id.
#[cfg(feature = "legacy")]
struct LegacyHttp {
    router: axum::Router,
    session: String,
    version: String,
    next: std::sync::atomic::AtomicU64,
}

#[cfg(feature = "legacy")]
impl LegacyHttp {
    async fn open(app: &App, capabilities: Value) -> (LegacyHttp, Value) {
        let router = app.router();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "views-test", "version": "0"}}});
        let response = router
            .clone()
            .oneshot(Self::post(&init, None, None))
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let result = Self::body(response).await;
        let http = LegacyHttp {
            router,
            session,
            version: "2025-11-25".into(),
            next: 1.into(),
        };
        let initialized =
            json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}});
        let accepted = http
            .router
            .clone()
            .oneshot(Self::post(
                &initialized,
                Some(&http.session),
                Some(&http.version),
            ))
            .await
            .unwrap();
        assert_eq!(accepted.status(), 202);
        (http, result["result"].clone())
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

    /// The response's JSON-RPC message, whether sent as JSON or as the last SSE event.
    async fn body(response: axum::response::Response) -> Value {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            return value;
        }
        text.lines()
            .rev()
            .filter_map(|line| line.strip_prefix("data:"))
            .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .unwrap_or(Value::Null)
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self
            .router
            .clone()
            .oneshot(Self::post(&body, Some(&self.session), Some(&self.version)))
            .await
            .unwrap();
        Self::body(response).await
    }
}

/// Every client of one kind the tests compare: a response (`{"result": ..}` or
/// `{"error": ..}`) for a request, as the client declares `capabilities` (or nothing).
enum Client {
    Modern(TestClient),
    ModernHttp(HttpTestClient),
    #[cfg(feature = "legacy")]
    Legacy(TestClient),
    #[cfg(feature = "legacy")]
    LegacyHttp(LegacyHttp),
}

impl Client {
    async fn all(app: &App, capabilities: Option<Value>) -> Vec<(&'static str, Client)> {
        #[cfg(feature = "legacy")]
        let caps = capabilities.clone().unwrap_or_else(|| json!({}));
        let with = |client: TestClient| match &capabilities {
            Some(caps) => client.with_capabilities(caps.clone()),
            None => client,
        };
        let http = HttpTestClient::new(app);
        let http = match &capabilities {
            Some(caps) => http.with_capabilities(caps.clone()),
            None => http,
        };
        #[allow(unused_mut)]
        let mut clients = vec![
            (
                "2026-07-28 in process",
                Client::Modern(with(TestClient::new(app.clone()))),
            ),
            ("2026-07-28 http", Client::ModernHttp(http)),
        ];
        #[cfg(feature = "legacy")]
        clients.extend([
            (
                "2025-11-25 stdio",
                Client::Legacy(with(TestClient::legacy(app.clone(), "2025-11-25"))),
            ),
            (
                "2025-11-25 http",
                Client::LegacyHttp(LegacyHttp::open(app, caps).await.0),
            ),
        ]);
        clients
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        match self {
            Client::Modern(c) => c.request(method, params).await,
            Client::ModernHttp(c) => c.request(method, params).await.response(),
            #[cfg(feature = "legacy")]
            Client::Legacy(c) => c.request(method, params).await,
            #[cfg(feature = "legacy")]
            Client::LegacyHttp(c) => c.request(method, params).await,
        }
    }

    /// The capabilities the server announced to this client.
    #[cfg_attr(not(feature = "legacy"), allow(unused_variables))]
    async fn capabilities(&self, app: &App, declared: Value) -> Value {
        match self {
            Client::Modern(c) => c.discover().await["capabilities"].clone(),
            #[cfg(feature = "legacy")]
            Client::Legacy(c) => c.discover().await["capabilities"].clone(),
            Client::ModernHttp(_) => {
                self.request("server/discover", json!({})).await["result"]["capabilities"].clone()
            }
            #[cfg(feature = "legacy")]
            Client::LegacyHttp(_) => {
                LegacyHttp::open(app, declared).await.1["capabilities"].clone()
            }
        }
    }

    fn modern(&self) -> bool {
        matches!(self, Client::Modern(_) | Client::ModernHttp(_))
    }
}

fn tool<'a>(listed: &'a Value, name: &str) -> Option<&'a Value> {
    listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .find(|t| t["name"] == name)
}

// The extension is announced, in `server/discover` and in `initialize`, by a server with a
// view, whatever the client declared; a server without views announces nothing.
#[tokio::test]
async fn the_extension_is_announced_when_a_view_exists() {
    let app = app();
    for declared in [None, Some(takes_views())] {
        for (kind, client) in Client::all(&app, declared.clone()).await {
            let caps = client
                .capabilities(&app, declared.clone().unwrap_or_else(|| json!({})))
                .await;
            assert_eq!(
                caps["extensions"][UI],
                json!({"mimeTypes": [MIME]}),
                "{kind}: {caps}"
            );
            // The Tasks extension stays out of the handshake era, the UI one does not.
            assert!(caps["extensions"]
                .get("io.modelcontextprotocol/tasks")
                .is_none());
        }
    }
    let plain = plain_app();
    for (kind, client) in Client::all(&plain, Some(takes_views())).await {
        let caps = client.capabilities(&plain, takes_views()).await;
        assert!(caps.get("extensions").is_none(), "{kind}: {caps}");
    }
}

// `_meta.ui` on the view's `resources/list` entry and its read contents, which are
// `text/html;profile=mcp-app` whatever the function returned, for every client (a view is
// read as any resource).
#[tokio::test]
async fn views_are_listed_and_read_with_their_ui_meta() {
    let app = app();
    for declared in [None, Some(takes_views())] {
        for (kind, client) in Client::all(&app, declared.clone()).await {
            let listed = client.request("resources/list", json!({})).await;
            let entry = &listed["result"]["resources"][0];
            assert_eq!(entry["uri"], "ui://board/main", "{kind}: {listed}");
            assert_eq!(entry["name"], "main_view");
            assert_eq!(entry["title"], "Board");
            assert_eq!(entry["mimeType"], MIME);
            assert_eq!(entry["_meta"]["ui"], view_meta(), "{kind}");

            let read = client
                .request("resources/read", json!({"uri": "ui://board/main"}))
                .await;
            let contents = &read["result"]["contents"];
            assert_eq!(contents.as_array().map(Vec::len), Some(1), "{kind}: {read}");
            assert_eq!(contents[0]["uri"], "ui://board/main");
            assert_eq!(contents[0]["mimeType"], MIME);
            assert_eq!(contents[0]["_meta"]["ui"], view_meta(), "{kind}");
            assert!(contents[0]["text"]
                .as_str()
                .unwrap()
                .starts_with("<!DOCTYPE html>"));

            let raw = client
                .request("resources/read", json!({"uri": "ui://board/raw"}))
                .await;
            let contents = &raw["result"]["contents"][0];
            assert_eq!(contents["mimeType"], MIME, "{kind}: {raw}");
            assert_eq!(contents["_meta"]["ui"], json!({}), "{kind}");
        }
    }
}

// `_meta.ui` on tools: `resourceUri` for the tool rendered in the view, `visibility` for
// the others; the app-only tool is listed only to clients that declared the extension.
#[tokio::test]
async fn tools_carry_ui_meta_and_app_only_tools_are_listed_to_hosts_only() {
    let app = app();
    for (kind, client) in Client::all(&app, Some(takes_views())).await {
        let listed = client.request("tools/list", json!({})).await;
        assert_eq!(
            tool(&listed, "cards").unwrap()["_meta"],
            json!({"ui": {"resourceUri": "ui://board/main"}}),
            "{kind}"
        );
        assert_eq!(
            tool(&listed, "more_cards").unwrap()["_meta"],
            json!({"ui": {"visibility": ["app"]}}),
            "{kind}"
        );
        assert_eq!(
            tool(&listed, "summary").unwrap()["_meta"],
            json!({"ui": {"visibility": ["model"]}}),
            "{kind}"
        );
        if client.modern() {
            // The list depends on what the client declared: never shared between callers.
            assert_eq!(
                listed["result"]["cacheScope"], "private",
                "{kind}: {listed}"
            );
        }
    }
    for (kind, client) in Client::all(&app, None).await {
        let listed = client.request("tools/list", json!({})).await;
        assert!(tool(&listed, "more_cards").is_none(), "{kind}: {listed}");
        assert!(tool(&listed, "cards").is_some(), "{kind}");
        assert!(tool(&listed, "summary").is_some(), "{kind}");
        if client.modern() {
            assert_eq!(
                listed["result"]["cacheScope"], "private",
                "{kind}: {listed}"
            );
        }
    }
    // A server without app-only tools keeps one list for everyone.
    let plain = plain_app();
    let listed = TestClient::new(plain)
        .request("tools/list", json!({}))
        .await;
    assert_eq!(listed["result"]["cacheScope"], "public", "{listed}");
    assert!(tool(&listed, "add").unwrap().get("_meta").is_none());
}

// An app-only tool answers a host that declared the extension, continuing the pages of the
// tool it serves; a client that did not declare it (or declared it without the HTML MIME
// type) is refused with -32021 naming the extension.
#[tokio::test]
async fn app_only_tools_answer_hosts_and_refuse_other_clients() {
    let app = app();
    for (kind, client) in Client::all(&app, Some(takes_views())).await {
        let first = client
            .request("tools/call", json!({"name": "cards", "arguments": {}}))
            .await;
        assert_eq!(
            first["result"]["structuredContent"]["items"],
            json!([1, 2, 3]),
            "{kind}: {first}"
        );
        let cursor = first["result"]["structuredContent"]["nextCursor"].clone();
        let more = client
            .request(
                "tools/call",
                json!({"name": "more_cards", "arguments": {"cursor": cursor}}),
            )
            .await;
        assert_eq!(
            more["result"]["structuredContent"]["items"],
            json!([4, 5, 6]),
            "{kind}: {more}"
        );
        // Its own cursor opens in the tool it continues, and the other way round.
        let last = client
            .request(
                "tools/call",
                json!({"name": "cards", "arguments": {"cursor": more["result"]["structuredContent"]["nextCursor"]}}),
            )
            .await;
        assert_eq!(
            last["result"]["structuredContent"]["items"],
            json!([7]),
            "{kind}: {last}"
        );
    }
    let half = json!({"extensions": {UI: {}}});
    for declared in [None, Some(half)] {
        for (kind, client) in Client::all(&app, declared.clone()).await {
            let refused = client
                .request("tools/call", json!({"name": "more_cards", "arguments": {}}))
                .await;
            assert_eq!(refused["error"]["code"], -32021, "{kind}: {refused}");
            assert_eq!(
                refused["error"]["data"]["requiredCapabilities"],
                json!({"extensions": {UI: {"mimeTypes": [MIME]}}}),
                "{kind}"
            );
        }
    }
}

// What a client without the extension gets from a tool rendered in a view is the tool's
// ordinary result, the same as a host gets: text blocks and structured content.
#[tokio::test]
async fn clients_without_the_extension_get_the_plain_result() {
    let app = app();
    let hosts = Client::all(&app, Some(takes_views())).await;
    let others = Client::all(&app, None).await;
    for ((kind, host), (_, other)) in hosts.iter().zip(&others) {
        let call = json!({"name": "cards", "arguments": {}});
        let hosted = host.request("tools/call", call.clone()).await;
        let plain = other.request("tools/call", call).await;
        let strip = |v: &Value| {
            let mut result = v["result"].clone();
            // The cursor is sealed afresh on every call.
            result["structuredContent"]["nextCursor"] = Value::Null;
            result["content"] = json!(result["content"].as_array().map(Vec::len));
            result
        };
        assert_eq!(strip(&hosted), strip(&plain), "{kind}");
        assert_eq!(
            plain["result"]["content"][0]["type"], "text",
            "{kind}: {plain}"
        );
        assert!(plain["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Items 1-3"));
        assert_eq!(
            plain["result"]["structuredContent"]["items"],
            json!([1, 2, 3])
        );
        // The model-only tool is the model's: callable by every client.
        let summary = other
            .request("tools/call", json!({"name": "summary", "arguments": {}}))
            .await;
        assert_eq!(summary["result"]["content"][0]["text"], "7 cards", "{kind}");
    }
}

// A tool's `ui` names a view the server serves: leaving the view out of the selection is
// refused when the server is built (the macro checks that a `#[view]` declares the URI;
// the server checks that it is served).
#[test]
fn a_tool_naming_a_view_the_server_does_not_serve_is_refused_at_build() {
    use mcp_runtime::tools;
    let errors = match Server::new("board", "1")
        .only(tools![board::cards, board::more_cards])
        .only_resources(mcp_runtime::resources![])
        .build()
    {
        Ok(_) => panic!("built without the view"),
        Err(mcp_runtime::Error::Build(errors)) => errors,
        Err(other) => panic!("{other}"),
    };
    assert!(
        errors.contains(&BuildError::InvalidTool {
            name: "cards".into(),
            problems: vec![
                "its `ui` names the view `ui://board/main`, which this server does not serve: declare it with #[view(\"ui://board/main\")] (and keep it in the server's selection)".into()
            ],
        }),
        "{errors:?}"
    );
    // Continuing the pages of a tool that has none is refused: its result carries no
    // cursor to continue from.
    let errors = match Server::new("unpaged", "1")
        .only_module(concat!(module_path!(), "::unpaged"))
        .build()
    {
        Ok(_) => panic!("built a continuation of a tool without pages"),
        Err(mcp_runtime::Error::Build(errors)) => errors,
        Err(other) => panic!("{other}"),
    };
    assert!(
        errors.contains(&BuildError::InvalidTool {
            name: "everything_more".into(),
            problems: vec![
                "it continues the pages of `everything`: both tools take a `Cursor` parameter"
                    .into()
            ],
        }),
        "{errors:?}"
    );
    // A tool that continues one not served is refused too.
    let errors = match Server::new("board", "1")
        .only(tools![board::more_cards])
        .build()
    {
        Ok(_) => panic!("built without `cards`"),
        Err(mcp_runtime::Error::Build(errors)) => errors,
        Err(other) => panic!("{other}"),
    };
    assert!(
        errors.contains(&BuildError::InvalidTool {
            name: "more_cards".into(),
            problems: vec![
                "it continues the pages of `cards`, which this server does not serve".into()
            ],
        }),
        "{errors:?}"
    );
}

// A tool added at run time with `_meta.ui.visibility: ["app"]` is kept from clients
// without the extension as a `#[tool(visibility = app)]` is; its `resourceUri` is published
// as given; a visibility the extension does not define is refused when the server is built.
#[tokio::test]
async fn run_time_tools_follow_their_published_visibility() {
    let app = Server::new("dynamic", "1")
        .only_module(concat!(module_path!(), "::plain"))
        .tool_from_json(
            json!({"name": "refresh", "inputSchema": {"type": "object"},
                   "_meta": {"ui": {"visibility": ["app"]}}}),
            |_ctx, _args| async {
                Ok(mcp_runtime::CallToolResult::structured(json!({"ok": true})))
            },
        )
        .build()
        .unwrap();
    let listed = TestClient::new(app.clone())
        .request("tools/list", json!({}))
        .await;
    assert!(tool(&listed, "refresh").is_none(), "{listed}");
    let host = TestClient::new(app.clone()).with_capabilities(takes_views());
    let listed = host.request("tools/list", json!({})).await;
    assert_eq!(
        tool(&listed, "refresh").unwrap()["_meta"],
        json!({"ui": {"visibility": ["app"]}})
    );
    let refused = TestClient::new(app)
        .request("tools/call", json!({"name": "refresh", "arguments": {}}))
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // Its `resourceUri` is published as given: the view may be served elsewhere (a
    // gateway's upstream serves its own views, and need not list them).
    let elsewhere = Server::new("dynamic", "1")
        .only_module(concat!(module_path!(), "::plain"))
        .tool_from_json(
            json!({"name": "remote", "inputSchema": {"type": "object"},
                   "_meta": {"ui": {"resourceUri": "ui://upstream/board"}}}),
            |_ctx, _args| async { Ok(mcp_runtime::CallToolResult::default()) },
        )
        .build()
        .unwrap();
    let listed = TestClient::new(elsewhere)
        .request("tools/list", json!({}))
        .await;
    assert_eq!(
        tool(&listed, "remote").unwrap()["_meta"],
        json!({"ui": {"resourceUri": "ui://upstream/board"}})
    );

    let bad = Server::new("dynamic", "1")
        .only_module(concat!(module_path!(), "::plain"))
        .tool_from_json(
            json!({"name": "odd", "inputSchema": {"type": "object"},
                   "_meta": {"ui": {"visibility": ["user"]}}}),
            |_ctx, _args| async { Ok(mcp_runtime::CallToolResult::default()) },
        )
        .build();
    match bad {
        Err(mcp_runtime::Error::Build(errors)) => assert!(
            errors
                .iter()
                .any(|e| e.to_string().contains("_meta.ui.visibility")),
            "{errors:?}"
        ),
        Ok(_) => panic!("a visibility of `user` was accepted"),
        Err(other) => panic!("{other}"),
    }
}
