//! Behaviour a user notices, through the in-process client and the HTTP router.

use axum::body::Body;
use axum::http::Request;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::{http_request, TestClient};
use serde_json::{json, Value};
use tower::ServiceExt as _;

// Link the library crate so its tools register (the linker drops unreferenced crates).
use extra_tools as _;

// The MCP endpoint inside an axum app, as the book shows it.
#[path = "behaviour/embedding.rs"]
mod embedding;

/// The names in a `tools/list` response, in order.
fn tool_names(list: &Value) -> Vec<&str> {
    list["result"]["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect()
}

#[tokio::test]
async fn items_from_a_linked_crate_register_themselves() {
    let app = Server::new("t", "1")
        .only_module("extra_tools")
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let list = client.request("tools/list", json!({})).await;
    let names = tool_names(&list);
    assert_eq!(names, ["echo", "text.reverse"]);
    let reversed = client
        .call_tool("text.reverse", json!({"text": "abc"}))
        .await;
    assert_eq!(reversed["content"][0]["text"], "cba");
    let motd = client
        .request("resources/read", json!({"uri": "extra://motd"}))
        .await;
    assert_eq!(
        motd["result"]["contents"][0]["text"],
        "Resources register across crates too."
    );
    let haiku = client
        .request(
            "prompts/get",
            json!({"name": "haiku", "arguments": {"topic": "rust"}}),
        )
        .await;
    assert_eq!(
        haiku["result"]["messages"][0]["content"]["text"],
        "Write a haiku about rust."
    );
}

#[tokio::test]
async fn an_explicit_list_restricts_the_served_tools() {
    use mcp_workspace_tests::fixtures;
    let app = Server::new("t", "1")
        .only(tools![fixtures::add, extra_tools::echo])
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let list = client.request("tools/list", json!({})).await;
    let names = tool_names(&list);
    assert_eq!(names, ["add", "echo"]);
}

#[tokio::test]
async fn pages_follow_sealed_cursors_and_tampered_cursors_are_refused() {
    // S-245..S-248
    let app = mcp_workspace_tests::server().page_size(4).build().unwrap();
    let client = TestClient::new(app);
    let first = client.request("tools/list", json!({})).await;
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 4);
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("a next cursor")
        .to_owned();
    let second = client
        .request("tools/list", json!({"cursor": cursor}))
        .await;
    let rest = tool_names(&second);
    assert_eq!(rest, ["place_order", "wipe"]);
    assert!(
        second["result"].get("nextCursor").is_none(),
        "the last page has no nextCursor"
    );
    assert_eq!(
        second["result"]["cacheScope"], first["result"]["cacheScope"],
        "S-240: one scope for all pages"
    );

    let mut tampered = cursor.clone().into_bytes();
    let i = tampered.len() - 3;
    tampered[i] = if tampered[i] == b'a' { b'b' } else { b'a' };
    let tampered = String::from_utf8(tampered).unwrap();
    for bad in [tampered.as_str(), "", "page-2", "v1.!!"] {
        let reply = client.request("tools/list", json!({"cursor": bad})).await;
        assert_eq!(reply["error"]["code"], -32602, "cursor {bad:?}: {reply}");
    }
}

#[tokio::test]
async fn cursors_resume_on_another_instance_with_the_same_key() {
    let key = SealKeyBytes::key();
    let a = TestClient::new(
        mcp_workspace_tests::server()
            .page_size(2)
            .seal_key(key.clone())
            .build()
            .unwrap(),
    );
    let b = TestClient::new(
        mcp_workspace_tests::server()
            .page_size(2)
            .seal_key(key)
            .build()
            .unwrap(),
    );
    let first = a.request("tools/list", json!({})).await;
    let cursor = first["result"]["nextCursor"].clone();
    let second = b.request("tools/list", json!({"cursor": cursor})).await;
    // S-021: the listing spans requests through the cursor the client sends back, so
    // another instance with the same key continues it.
    assert_eq!(second["result"]["tools"][0]["name"], "greet");
    let other = TestClient::new(mcp_workspace_tests::server().page_size(2).build().unwrap());
    let refused = other.request("tools/list", json!({"cursor": cursor})).await;
    assert_eq!(
        refused["error"]["code"], -32602,
        "a different key cannot open it"
    );
    // And says why, with what to set: a server without a key of its own makes one per
    // process (the `mcp call` workflow, one server per call), one with a key of its own
    // has another than the instance that issued the cursor.
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("sealed with another key") && message.contains("MCP_SEAL_KEY is not set"),
        "{message}"
    );
    let stranger = TestClient::new(
        mcp_workspace_tests::server()
            .page_size(2)
            .seal_key(mcp_runtime::SealKey::from_bytes([3; 32]))
            .build()
            .unwrap(),
    );
    let refused = stranger
        .request("tools/list", json!({"cursor": cursor}))
        .await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("another key than this server's") && message.contains("same MCP_SEAL_KEY"),
        "{message}"
    );
}

struct SealKeyBytes;
impl SealKeyBytes {
    fn key() -> mcp_runtime::SealKey {
        mcp_runtime::SealKey::from_bytes([42; 32])
    }
}

struct NoDestructiveTools;

impl Authorize for NoDestructiveTools {
    async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        assert_eq!(ctx.method(), "tools/call");
        match action {
            Action::CallTool { tool, .. } if tool.destructive == Some(true) => {
                Err(Denied::new(format!("{} is destructive", tool.name)))
            }
            _ => Ok(()),
        }
    }
}

#[tokio::test]
async fn the_authorize_hook_runs_before_every_call() {
    let client = TestClient::new(
        mcp_workspace_tests::server()
            .authorize(NoDestructiveTools)
            .build()
            .unwrap(),
    );
    let denied = client.call_tool("wipe", json!({})).await;
    // S-197: the application's access control runs before every call.
    assert_eq!(denied["error"]["code"], -31403);
    assert_eq!(denied["error"]["data"]["reason"], "wipe is destructive");
    let allowed = client.call_tool("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(allowed["structuredContent"], 2);
}

#[tokio::test]
async fn a_panicking_handler_fails_its_call_and_the_server_keeps_serving() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let failed = client.call_tool("explode", json!({})).await;
    assert_eq!(failed["error"]["code"], -32603);
    // The panic's own words stay in the server's log (S-276: no internal detail goes out).
    let message = failed["error"]["message"].as_str().unwrap();
    assert_eq!(message, "Internal error: tool explode failed unexpectedly");
    let fine = client.call_tool("add", json!({"a": 2, "b": 2})).await;
    assert_eq!(fine["structuredContent"], 4);
}

#[tokio::test]
async fn args_structs_take_the_whole_arguments_object() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let ok = client
        .call_tool("place_order", json!({"sku": "A-1", "quantity": 2}))
        .await;
    assert_eq!(
        ok["structuredContent"],
        json!({"order": 1001, "sku": "A-1"})
    );
    let bad = client
        .call_tool("place_order", json!({"sku": "A-1", "quantity": 0}))
        .await;
    assert_eq!(bad["isError"], true);
    assert!(
        bad["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("/quantity"),
        "{bad}"
    );
}

#[tokio::test]
async fn hostile_arguments_get_a_clear_error() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let mut deep = json!("x");
    for _ in 0..200 {
        deep = json!({ "n": deep });
    }
    let reply = client.call_tool("greet", json!({"name": deep})).await;
    // S-196: arguments nested too deep, or not in the schema, are refused.
    assert_eq!(reply["isError"], true);
    assert!(
        reply["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("nested deeper"),
        "{reply}"
    );
    let extra = client
        .call_tool("greet", json!({"name": "Ada", "admin": true}))
        .await;
    assert_eq!(
        extra["isError"], true,
        "unknown arguments are refused: {extra}"
    );
}

#[test]
fn a_tool_whose_schema_refers_outside_itself_stops_the_server_at_start() {
    /// An order as another service describes it.
    #[derive(serde::Deserialize)]
    struct RemoteOrder {}
    impl schemars::JsonSchema for RemoteOrder {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "RemoteOrder".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({"$ref": "https://schemas.example/order.json"})
        }
    }
    /// Files an order.
    #[tool]
    async fn file_order(_order: RemoteOrder) -> &'static str {
        "filed"
    }
    let error = Server::new("t", "1")
        .only(tools![file_order])
        .build()
        .err()
        .expect("build fails");
    let text = error.to_string();
    assert!(text.contains("tool `file_order`"), "{text}");
    // S-030: a remote $ref is not fetched: the server refuses to start instead.
    assert!(
        text.contains("remote $ref https://schemas.example/order.json is not fetched"),
        "{text}"
    );
}

/// Pairs of a name and a count, in JSON Schema draft-07, whose array-form `items` (a
/// tuple) and `dependencies` 2020-12 spells otherwise.
#[derive(serde::Deserialize)]
struct Tally(serde_json::Value);

impl schemars::JsonSchema for Tally {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tally".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                "card": {"type": "string"},
                "billing_address": {"type": "string"}
            },
            "dependencies": {"card": ["billing_address"]}
        })
    }
}

/// Counts a pair.
#[tool]
async fn tally(Args(tally): Args<Tally>) -> String {
    tally.0.to_string()
}

#[tokio::test]
async fn a_draft_07_tool_schema_is_validated_by_draft_07() {
    // S-026: the schema is published with its `$schema`, and its keywords mean what
    // draft-07 says.
    let client = TestClient::new(Server::new("t", "1").only(tools![tally]).build().unwrap());
    let list = client.request("tools/list", json!({})).await;
    assert_eq!(
        list["result"]["tools"][0]["inputSchema"]["$schema"],
        "http://json-schema.org/draft-07/schema#"
    );
    let ok = client
        .call_tool("tally", json!({"pair": ["apples", 3]}))
        .await;
    assert!(ok.get("isError").is_none(), "{ok}");
    assert_eq!(ok["content"][0]["text"], r#"{"pair":["apples",3]}"#);
    for (arguments, problem) in [
        (json!({"pair": [3, "apples"]}), "argument /pair/0"),
        (json!({"card": "4111"}), "billing_address"),
    ] {
        let refused = client.call_tool("tally", arguments).await;
        assert_eq!(refused["isError"], true, "{refused}");
        let text = refused["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(problem), "{text}");
    }
}

#[test]
fn a_tool_schema_no_validator_here_applies_stops_the_server_at_start() {
    // S-027: an unsupported dialect, and S-029: a schema invalid in its own dialect.
    mcp_workspace_tests::schema_type!(
        Custom,
        {"$schema": "https://schemas.example/my-dialect", "type": "object"}
    );
    mcp_workspace_tests::schema_type!(
        Misspelt,
        {"type": "object", "properties": {"n": {"type": "integr"}}}
    );
    /// Takes a schema in a dialect of its own.
    #[tool]
    async fn custom(Args(_c): Args<Custom>) -> &'static str {
        "ok"
    }
    /// Takes a schema with a typo.
    #[tool]
    async fn misspelt(Args(_m): Args<Misspelt>) -> &'static str {
        "ok"
    }
    let error = Server::new("t", "1")
        .only(tools![custom, misspelt])
        .build()
        .err()
        .expect("build fails");
    let text = error.to_string();
    assert!(
        text.contains("tool `custom` cannot be served: its input schema does not compile: the JSON Schema dialect https://schemas.example/my-dialect is not supported"),
        "{text}"
    );
    assert!(
        text.contains("http://json-schema.org/draft-07/schema"),
        "{text}"
    );
    assert!(
        text.contains("tool `misspelt` cannot be served: its input schema does not compile"),
        "{text}"
    );
}

#[test]
fn a_tool_whose_output_schema_is_invalid_stops_the_server_at_start() {
    // S-029: what the server publishes is valid in its dialect, output schemas included.
    #[derive(serde::Serialize)]
    struct Receipt {
        total: u32,
    }
    impl schemars::JsonSchema for Receipt {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Receipt".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({"type": "object", "properties": {"total": {"type": "integr"}}})
        }
    }
    /// Totals an order.
    #[tool]
    async fn total() -> Receipt {
        Receipt { total: 3 }
    }
    let error = Server::new("t", "1")
        .only(tools![total])
        .build()
        .err()
        .expect("build fails");
    let text = error.to_string();
    assert!(
        text.contains("tool `total` cannot be served: its output schema does not compile"),
        "{text}"
    );
}

#[test]
fn a_tool_needing_missing_state_stops_the_server_at_start() {
    #[derive(Debug)]
    struct Db;
    /// Reads from the database.
    #[tool]
    async fn lookup(_db: State<Db>) -> &'static str {
        "found"
    }
    let error = Server::new("t", "1")
        .only(tools![lookup])
        .build()
        .err()
        .expect("build fails");
    let text = error.to_string();
    assert!(text.contains("tool `lookup` takes State<"), "{text}");
    assert!(Server::new("t", "1")
        .state(Db)
        .only(tools![lookup])
        .build()
        .is_ok());
}

async fn http(
    app: &mcp_runtime::App,
    request: Request<Body>,
) -> (u16, Value, axum::http::HeaderMap) {
    let response = app.router().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap()
    };
    (status, body, headers)
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

#[tokio::test]
async fn http_refuses_foreign_hosts_and_origins() {
    // S-073, S-074: DNS rebinding defence
    let app = mcp_workspace_tests::server().build().unwrap();
    let mut request = http_request(LIST).unwrap();
    request
        .headers_mut()
        .insert("host", "evil.example.com".parse().unwrap());
    let (status, body, _) = http(&app, request).await;
    assert_eq!(status, 403);
    assert!(
        body.get("id").is_none()
            && body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not allowed")
    );
    // S-073, S-074: the Origin is checked: a foreign one is 403, a local one is served.
    let mut request = http_request(LIST).unwrap();
    request
        .headers_mut()
        .insert("origin", "http://evil.example.com".parse().unwrap());
    assert_eq!(http(&app, request).await.0, 403);
    let mut request = http_request(LIST).unwrap();
    request
        .headers_mut()
        .insert("origin", "http://localhost:3000".parse().unwrap());
    assert_eq!(http(&app, request).await.0, 200);
    let custom = mcp_workspace_tests::server()
        .allowed_hosts(["mcp.internal"])
        .build()
        .unwrap();
    let mut request = http_request(LIST).unwrap();
    request
        .headers_mut()
        .insert("host", "mcp.internal:8443".parse().unwrap());
    assert_eq!(http(&custom, request).await.0, 200);
}

#[tokio::test]
async fn http_get_and_delete_are_405() {
    // S-110
    let app = mcp_workspace_tests::server().build().unwrap();
    for method in ["GET", "DELETE", "PUT"] {
        let request = Request::builder()
            .method(method)
            .uri("/mcp")
            .header("host", "localhost")
            .body(Body::empty())
            .unwrap();
        let (status, body, headers) = http(&app, request).await;
        // S-072, S-089: the endpoint takes POST alone: no GET stream, so no stream to
        // resume with Last-Event-ID.
        assert_eq!(status, 405, "{method}");
        assert_eq!(headers["allow"], "POST");
        assert_eq!(body["error"]["code"], -32600);
    }
}

#[tokio::test]
async fn http_posts_not_declared_json_are_415_before_their_body_is_read() {
    // A page may POST `text/plain` (or no type at all) to any address without a CORS
    // preflight; the endpoint takes only `application/json` (UTF-8, S-057).
    let app = mcp_workspace_tests::server().build().unwrap();
    let post = |content_types: &[&str], body: &str| {
        let mut request = http_request(body).unwrap();
        request.headers_mut().remove("content-type");
        for value in content_types {
            request
                .headers_mut()
                .append("content-type", value.parse().unwrap());
        }
        request
    };
    for (content_types, body) in [
        (&[][..], LIST),
        (&["text/plain"][..], LIST),
        (&["text/plain;charset=UTF-8"][..], LIST),
        (&["application/x-www-form-urlencoded"][..], LIST),
        (&["multipart/form-data; boundary=x"][..], LIST),
        (&["application/jsonl"][..], LIST),
        // S-057: JSON-RPC is UTF-8: a body declared in another charset is refused.
        (&["application/json; charset=latin1"][..], LIST),
        (&["application/json", "text/plain"][..], LIST),
        // Refused before parsing: a body that is not even JSON gets 415, not -32700.
        (&["text/plain"][..], "{not json"),
    ] {
        let (status, reply, _) = http(&app, post(content_types, body)).await;
        assert_eq!(status, 415, "{content_types:?}");
        assert_eq!(reply["error"]["code"], -32600, "{content_types:?}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Unsupported Media Type"),
            "{reply}"
        );
    }
    for content_type in [
        "application/json",
        "Application/JSON",
        "application/json; charset=utf-8",
        "application/json;charset=\"UTF-8\"",
    ] {
        let (status, reply, _) = http(&app, post(&[content_type], LIST)).await;
        assert_eq!(status, 200, "{content_type}: {reply}");
        assert!(reply["result"]["tools"].is_array());
    }
}

#[tokio::test]
async fn http_oversized_bodies_are_413_and_lose_nothing_else() {
    let app = mcp_workspace_tests::server()
        .max_body_bytes(1024)
        .build()
        .unwrap();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"greet","arguments":{{"name":"{}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
        "x".repeat(4096)
    );
    let (status, body, _) = http(&app, http_request(&big).unwrap()).await;
    assert_eq!(status, 413);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("1024 byte limit"));
    assert_eq!(
        http(&app, http_request(LIST).unwrap()).await.0,
        200,
        "the next request is served"
    );
}

#[tokio::test]
async fn http_malformed_bodies_are_400_with_jsonrpc_errors() {
    let app = mcp_workspace_tests::server().build().unwrap();
    for (body, code) in [
        ("{not json", -32700),
        ("[1,2]", -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, -32600),
    ] {
        let (status, reply, _) = http(&app, http_request(body).unwrap()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(reply["error"]["code"], code, "{body}: {reply}");
    }
}

#[tokio::test]
async fn http_headers_must_match_the_body() {
    let app = mcp_workspace_tests::server().build().unwrap();
    let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    // S-106: each header disagrees with the body, or is missing.
    let cases: Vec<(&str, Option<&str>)> = vec![
        // S-097: no version header.
        ("mcp-protocol-version", None),
        // S-093: a version other than the one in _meta.
        ("mcp-protocol-version", Some("2025-11-25")),
        // S-098: no Mcp-Method, no Mcp-Name.
        ("mcp-method", None),
        // S-105: header values compare case-sensitively.
        ("mcp-method", Some("TOOLS/CALL")),
        ("mcp-name", None),
        ("mcp-name", Some("sub")),
        // S-099: without its closing `?=` a value is not Base64, so it is compared as is.
        ("mcp-name", Some("=?base64?YWRk?")),
    ];
    for (header, value) in cases {
        let mut request = http_request(call).unwrap();
        match value {
            Some(v) => {
                request.headers_mut().insert(header, v.parse().unwrap());
            }
            None => {
                request.headers_mut().remove(header);
            }
        }
        let (status, body, _) = http(&app, request).await;
        // S-011, S-108: 400 with -32020, the code defined for a header mismatch.
        assert_eq!(status, 400, "{header}: {value:?}");
        assert_eq!(body["error"]["code"], -32020, "{header}: {value:?}");
        assert_eq!(body["id"], 5, "S-007: the id is echoed");
    }
    // S-099: Base64-encoded names are decoded before comparing; surrounding whitespace is
    // accepted.
    for value in ["=?base64?YWRk?=", "  add  "] {
        let mut request = http_request(call).unwrap();
        request
            .headers_mut()
            .insert("mcp-name", value.parse().unwrap());
        let (status, body, _) = http(&app, request).await;
        assert_eq!(status, 200, "{value}: {body}");
        assert_eq!(body["result"]["structuredContent"], 3);
    }
}

#[tokio::test]
async fn http_notifications_are_accepted_without_a_body() {
    let app = mcp_workspace_tests::server().build().unwrap();
    let (status, body, _) = http(
        &app,
        http_request(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        )
        .unwrap(),
    )
    .await;
    // S-015, S-078: an accepted notification is 202 with no body: no response.
    assert_eq!(status, 202);
    assert_eq!(body, Value::Null);
    // S-079: one that cannot be accepted gets an HTTP error, with a JSON-RPC error that
    // has no id.
    let notification =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    let mut foreign = http_request(notification).unwrap();
    foreign
        .headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    let mut untyped = http_request(notification).unwrap();
    untyped.headers_mut().remove("content-type");
    let malformed =
        http_request(r#"{"jsonrpc":"1.0","method":"notifications/cancelled"}"#).unwrap();
    for (what, request, expected) in [
        ("from a foreign origin", foreign, 403),
        ("not declared JSON", untyped, 415),
        // S-002: a message that is not JSON-RPC 2.0 is refused.
        ("in another JSON-RPC version", malformed, 400),
    ] {
        let (status, body, _) = http(&app, request).await;
        assert_eq!(status, expected, "{what}: {body}");
        assert!(body["error"]["code"].is_i64(), "{what}: {body}");
        assert!(body.get("id").is_none_or(Value::is_null), "{what}: {body}");
    }
}

#[tokio::test]
async fn the_router_nests_into_an_existing_app() {
    let app = embedding::app(mcp_workspace_tests::server()).unwrap();
    let response = app
        .clone()
        .oneshot(http_request(LIST).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let health = app
        .oneshot(Request::get("/health").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn stdio_answers_bad_lines_and_keeps_going() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let app = mcp_workspace_tests::server()
        .max_line_bytes(512)
        .build()
        .unwrap();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server);
    let serving = tokio::spawn(async move { app.serve_io(sr, sw).await });
    let (cr, mut cw) = tokio::io::split(client);
    let input = format!("{{oops\n{}\n\n{LIST}\n", "y".repeat(2000));
    cw.write_all(input.as_bytes()).await.unwrap();
    cw.shutdown().await.unwrap();
    let mut lines = BufReader::new(cr).lines();
    let mut replies = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        replies.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    serving.await.unwrap().unwrap();
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0]["error"]["code"], -32700);
    assert_eq!(replies[1]["error"]["code"], -32600);
    assert!(replies[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("512 byte limit"));
    assert_eq!(replies[2]["id"], 1);
    assert!(replies[2]["result"]["tools"].is_array());
}

type Reader = tokio::io::ReadHalf<tokio::io::DuplexStream>;
type Writer = tokio::io::WriteHalf<tokio::io::DuplexStream>;

/// The test server on an in-memory stdio pair: its serving task, and the client's ends.
fn stdio_session() -> (
    tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
    Reader,
    Writer,
) {
    let app = mcp_workspace_tests::server().build().unwrap();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server);
    let serving = tokio::spawn(async move { app.serve_io(sr, sw).await });
    let (cr, cw) = tokio::io::split(client);
    (serving, cr, cw)
}

#[tokio::test]
async fn stdio_tool_output_cannot_break_the_framing() {
    // S-199, S-063, S-065: what a tool returns is written as escaped JSON, so text with
    // newlines, line separators, control characters or a JSON-RPC message inside stays
    // one line of the result it belongs to.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (serving, mut cr, mut cw) = stdio_session();
    let name = "Ada\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\"}\r\n\u{2028}\u{7}";
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "greet", "arguments": {"name": name},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    }});
    cw.write_all(format!("{call}\n").as_bytes()).await.unwrap();
    cw.shutdown().await.unwrap();
    let mut out = String::new();
    cr.read_to_string(&mut out).await.unwrap();
    serving.await.unwrap().unwrap();
    assert_eq!(out.matches('\n').count(), 1, "{out:?}");
    let answer: Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        format!("Good day, {name}.")
    );
}

/// A 2026-07-28 `tools/call` of `add {a: id, b: 1}` as one stdio line (without newline).
fn add_line(id: i64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

#[tokio::test]
async fn stdio_finishes_in_flight_calls_after_eof() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (serving, mut cr, mut cw) = stdio_session();
    let mut input = String::new();
    for id in 0..50 {
        input.push_str(&add_line(id));
        input.push('\n');
    }
    cw.write_all(input.as_bytes()).await.unwrap();
    cw.shutdown().await.unwrap();
    let mut out = String::new();
    cr.read_to_string(&mut out).await.unwrap();
    serving.await.unwrap().unwrap();
    let mut ids: Vec<i64> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, (0..50).collect::<Vec<_>>(), "every call answered once");
}

/// An answer held for the next hand-over is not kept waiting on a line that has only
/// partly arrived: a client may wait for it before it sends the rest (S-063).
#[tokio::test]
async fn stdio_answers_before_waiting_for_the_rest_of_a_line() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (serving, cr, mut cw) = stdio_session();
    let mut lines = tokio::io::BufReader::new(cr).lines();
    let second = add_line(2);
    let (head, tail) = second.split_at(second.len() / 2);
    cw.write_all(format!("{}\n{head}", add_line(1)).as_bytes())
        .await
        .unwrap();
    let first = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
        .await
        .expect("the first call is answered while the second line is incomplete")
        .unwrap()
        .unwrap();
    assert_eq!(serde_json::from_str::<Value>(&first).unwrap()["id"], 1);
    cw.write_all(format!("{tail}\n").as_bytes()).await.unwrap();
    let second = lines.next_line().await.unwrap().unwrap();
    assert_eq!(serde_json::from_str::<Value>(&second).unwrap()["id"], 2);
    cw.shutdown().await.unwrap();
    assert!(lines.next_line().await.unwrap().is_none());
    serving.await.unwrap().unwrap();
}

/// A line read in many pieces is one message: a CRLF line, a line past the limit that
/// arrives a little at a time, and a last line without a newline before EOF (S-063).
#[tokio::test]
async fn stdio_lines_arriving_in_pieces() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let app = mcp_workspace_tests::server()
        .max_line_bytes(512)
        .build()
        .unwrap();
    let (client, server) = tokio::io::duplex(64);
    let (sr, sw) = tokio::io::split(server);
    let serving = tokio::spawn(async move { app.serve_io(sr, sw).await });
    let (cr, mut cw) = tokio::io::split(client);
    let writing = tokio::spawn(async move {
        let input = format!("{}\r\n{}\n{}", add_line(1), "y".repeat(3000), add_line(3));
        for piece in input.as_bytes().chunks(50) {
            cw.write_all(piece).await.unwrap();
            tokio::task::yield_now().await;
        }
        cw.shutdown().await.unwrap();
    });
    let mut lines = BufReader::new(cr).lines();
    let mut replies = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        replies.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    writing.await.unwrap();
    serving.await.unwrap().unwrap();
    // S-063: lines are read as messages however they arrive (a CRLF ending too), and each
    // answer is one line.
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0]["id"], 1);
    assert_eq!(replies[0]["result"]["content"][0]["text"], "2");
    assert_eq!(replies[1]["error"]["code"], -32600);
    assert_eq!(replies[2]["id"], 3);
}

/// Calls answered at once are handed to the writer in bursts (S-063: one JSON-RPC message
/// per line): a long burst, past the hand-over size, with refusals between the calls,
/// still gives one well-formed line per request.
#[tokio::test]
async fn stdio_bursts_of_answers_stay_one_message_per_line() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (serving, mut cr, mut cw) = stdio_session();
    let mut input = String::new();
    for id in 0..2000 {
        if id % 100 == 0 {
            input.push_str("{not json\n");
        }
        input.push_str(&add_line(id));
        input.push('\n');
    }
    // Written while the answers are read: neither side's buffer holds a whole burst.
    let writing = tokio::spawn(async move {
        cw.write_all(input.as_bytes()).await.unwrap();
        cw.shutdown().await.unwrap();
    });
    let mut out = String::new();
    cr.read_to_string(&mut out).await.unwrap();
    writing.await.unwrap();
    serving.await.unwrap().unwrap();
    let mut ids = Vec::new();
    let mut parse_errors = 0;
    // S-063: every line of the output is one whole message.
    for line in out.lines() {
        let message: Value = serde_json::from_str(line).unwrap();
        match message["id"].as_i64() {
            Some(id) => {
                let sum = (id + 1).to_string();
                assert_eq!(message["result"]["content"][0]["text"], sum.as_str());
                ids.push(id);
            }
            None => {
                assert_eq!(message["error"]["code"], -32700);
                parse_errors += 1;
            }
        }
    }
    ids.sort();
    assert_eq!(
        ids,
        (0..2000).collect::<Vec<_>>(),
        "every call answered once"
    );
    assert_eq!(parse_errors, 20);
}

/// Shows the request's whole `_meta`, and what the framework read from it.
#[mcp_runtime::tool]
async fn show_meta(ctx: mcp_runtime::RequestContext) -> Json<Value> {
    Json(json!({
        "meta": Value::Object(ctx.meta().clone()),
        "progressToken": ctx.progress_token(),
        "client": ctx.client_info().map(|info| info.name.clone()),
    }))
}

/// Serve `app` over an in-memory stdio pair: each of `lines` in, then EOF; all it wrote.
async fn stdio_exchange(app: mcp_runtime::App, lines: &[Value]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (client, server) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server);
    let serving = tokio::spawn(async move { app.serve_io(sr, sw).await });
    let (mut cr, mut cw) = tokio::io::split(client);
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    cw.write_all(input.as_bytes()).await.unwrap();
    cw.shutdown().await.unwrap();
    let mut out = String::new();
    cr.read_to_string(&mut out).await.unwrap();
    serving.await.unwrap().unwrap();
    out
}

/// One stdio exchange with a server of `show_meta`: each line in, the last answer out.
async fn show_meta_over_stdio(lines: &[Value]) -> Value {
    let app = Server::new("t", "1")
        .only(mcp_runtime::tools![show_meta])
        .build()
        .unwrap();
    let out = stdio_exchange(app, lines).await;
    let last = out.lines().last().expect("an answer");
    serde_json::from_str(last).unwrap()
}

// S-018, S-149: a handler sees the request's `_meta` whole, as sent, with the members the
// protocol reserves and the client's own; the framework's reading of the reserved ones
// (progress token, client info) agrees with it.
#[tokio::test]
async fn handlers_see_the_whole_meta_as_sent() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "agent", "version": "2"},
        "progressToken": "p-1",
        "example.com/trace": {"span": [1, 2]},
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    let modern = show_meta_over_stdio(&[json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "show_meta", "arguments": {}, "_meta": meta},
    })])
    .await;
    let seen = &modern["result"]["structuredContent"];
    // S-018: the context a handler sees (client, capabilities, token) is this request's
    // _meta, as sent.
    assert_eq!(seen["meta"], meta, "{modern}");
    assert_eq!(seen["progressToken"], "p-1");
    assert_eq!(seen["client"], "agent");
}

// S-149: the same in the handshake era, where `_meta` carries no reserved member but the
// progress token.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_era_handlers_see_the_whole_meta_as_sent() {
    let legacy_meta = json!({"progressToken": 7, "example.com/trace": "t-1"});
    let legacy = show_meta_over_stdio(&[
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "old", "version": "1"},
        }}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "show_meta", "arguments": {}, "_meta": legacy_meta}}),
    ])
    .await;
    let seen = &legacy["result"]["structuredContent"];
    assert_eq!(seen["meta"], legacy_meta, "{legacy}");
    assert_eq!(seen["progressToken"], 7);
    assert_eq!(seen["client"], "old");
}

/// Answers `n` after `wait_ms` milliseconds (at once for 0).
#[mcp_runtime::tool]
async fn after(n: i64, wait_ms: u64) -> String {
    if wait_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(wait_ms)).await;
    }
    n.to_string()
}

// On stdio, requests that finish at once are answered inline and those that wait run as
// tasks, interleaved on one connection: every request gets its own answer, whichever way
// the one before it went.
#[tokio::test]
async fn stdio_inline_and_waiting_requests_interleave() {
    let app = Server::new("t", "1")
        .only(mcp_runtime::tools![after])
        .build()
        .unwrap();
    let waits = [0, 30, 0, 0, 20, 10, 0, 40, 0, 0];
    let calls: Vec<Value> = waits
        .iter()
        .enumerate()
        .map(|(n, wait_ms)| {
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "after", "arguments": {"n": n, "wait_ms": wait_ms},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}},
            }})
        })
        .collect();
    let out = stdio_exchange(app, &calls).await;
    let mut answers: Vec<(u64, String)> = out
        .lines()
        .map(|line| {
            let answer: Value = serde_json::from_str(line).unwrap();
            let id = answer["id"].as_u64().expect("an id");
            let text = answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            (id, text.to_owned())
        })
        .collect();
    answers.sort();
    let expected: Vec<(u64, String)> = (0..waits.len() as u64)
        .map(|n| (n, n.to_string()))
        .collect();
    assert_eq!(answers, expected, "{out}");
}
