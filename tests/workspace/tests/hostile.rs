//! Hostile input, one row at a time: each gets its exact refusal (HTTP status and
//! JSON-RPC code, or the tool error the model reads), and the server then answers the next
//! valid request as if nothing happened. Over real HTTP/1.1 on a loopback port (so header
//! smuggling reaches the server's HTTP parser) and over the stdio framing.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::{body, call, get, post, request, send, Reply};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// What a hostile request must get.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// This status and a JSON-RPC error with this code.
    Rpc(u16, i64),
    /// A tool result with `isError: true` (status 200): the model can fix its arguments.
    ToolError,
    /// This status from the HTTP layer, before any JSON-RPC is read.
    Status(u16),
}

fn app() -> mcp_runtime::App {
    mcp_workspace_tests::server()
        .only_module("mcp_workspace_tests::interactive")
        .state(Arc::new(mcp_workspace_tests::interactive::Probe::default()))
        .max_body_bytes(64 * 1024)
        .max_argument_bytes(8 * 1024)
        .max_json_depth(32)
        .request_body_timeout(Duration::from_millis(300))
        .page_size(2)
        .build()
        .unwrap()
}

/// The request after each hostile one: it must be answered normally.
async fn still_serves(addr: SocketAddr, after: &str) {
    let reply = send(addr, &call("add", json!({"a": 2, "b": 3}), &[])).await;
    assert_eq!(reply.status, 200, "after {after}: {reply:?}");
    assert_eq!(
        reply.json()["result"]["structuredContent"],
        5,
        "after {after}: {:?}",
        reply.json()
    );
}

fn raw(text: &str) -> Vec<u8> {
    text.as_bytes().to_vec()
}

/// A POST with the modern headers of `method` and this exact body.
fn with_body(method: &str, name: Option<&str>, text: &str) -> Vec<u8> {
    post(&common::headers(method, name, &[]), text)
}

/// `_meta` of a client that can answer elicitations.
fn elicitation_meta() -> Value {
    let mut meta = mcp_runtime::testing::default_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    meta
}

/// The result of a first `checkout` round: its sealed `requestState`.
async fn request_state(addr: SocketAddr) -> String {
    let params = json!({"name": "checkout", "arguments": {}, "_meta": elicitation_meta()});
    let reply = send(
        addr,
        &request(1, "tools/call", Some("checkout"), params, &[]),
    )
    .await;
    let result = reply.json()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().unwrap().to_owned()
}

async fn tools_cursor(addr: SocketAddr) -> String {
    let reply = send(addr, &request(1, "tools/list", None, json!({}), &[])).await;
    reply.json()["result"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn tamper(sealed: &str) -> String {
    let mut chars: Vec<char> = sealed.chars().collect();
    let i = chars.len() / 2;
    chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

#[tokio::test]
async fn hostile_http_requests_get_exact_errors_and_lose_nothing() {
    let addr = common::serve(app()).await;
    let state = request_state(addr).await;
    let cursor = tools_cursor(addr).await;
    let deep = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000));
    let deep_args = format!(r#"{{"a": {}1{}, "b": 1}}"#, "[".repeat(40), "]".repeat(40));
    let huge_string = "x".repeat(20_000);
    let too_big = "y".repeat(70 * 1024);
    let meta = mcp_runtime::testing::default_meta();
    let call_body = |arguments: Value| {
        body(
            7,
            "tools/call",
            json!({"name": "add", "arguments": arguments}),
        )
    };
    let with_state = |tool: &str, state: &str| {
        common::request(
            8,
            "tools/call",
            Some(tool),
            json!({"name": tool, "arguments": {}, "requestState": state, "_meta": elicitation_meta(),
                   "inputResponses": {"shipping": {"action": "accept", "content": {"speed": "express"}}}}),
            &[],
        )
    };

    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        // --- not JSON, or not JSON-RPC ---
        ("truncated JSON", with_body("tools/list", None, r#"{"jsonrpc":"2.0","id":1,"#), Expect::Rpc(400, -32700)),
        ("empty body", with_body("tools/list", None, ""), Expect::Rpc(400, -32700)),
        // S-057: messages are UTF-8; a body that is not is refused as a parse error.
        ("invalid UTF-8", {
            let mut r = post(&common::headers("tools/list", None, &[]), "{\"a\":\"\u{7f}\"}");
            let n = r.len();
            r[n - 3] = 0xff;
            r
        }, Expect::Rpc(400, -32700)),
        ("byte order mark", with_body("tools/list", None, "\u{feff}{}"), Expect::Rpc(400, -32700)),
        ("a bare string", with_body("tools/list", None, r#""tools/list""#), Expect::Rpc(400, -32600)),
        ("a number", with_body("tools/list", None, "42"), Expect::Rpc(400, -32600)),
        ("null", with_body("tools/list", None, "null"), Expect::Rpc(400, -32600)),
        ("an empty batch", with_body("tools/list", None, "[]"), Expect::Rpc(400, -32600)),
        ("a batch", with_body("tools/list", None, &format!("[{},{}]", body(1, "tools/list", json!({})), body(2, "tools/list", json!({})))), Expect::Rpc(400, -32600)),
        ("no jsonrpc member", with_body("tools/list", None, &json!({"id": 1, "method": "tools/list", "params": {"_meta": meta}}).to_string()), Expect::Rpc(400, -32600)),
        ("jsonrpc 1.0", with_body("tools/list", None, &json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).to_string()), Expect::Rpc(400, -32600)),
        ("method is a number", with_body("tools/list", None, &json!({"jsonrpc": "2.0", "id": 1, "method": 5, "params": {"_meta": meta}}).to_string()), Expect::Rpc(400, -32600)),
        ("id is an object", with_body("tools/list", None, &json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list", "params": {"_meta": meta}}).to_string()), Expect::Rpc(400, -32600)),
        ("id is null", with_body("tools/list", None, &json!({"jsonrpc": "2.0", "id": null, "method": "tools/list", "params": {"_meta": meta}}).to_string()), Expect::Rpc(400, -32600)),
        ("params is an array", with_body("tools/list", None, &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}).to_string()), Expect::Rpc(400, -32602)),
        ("a response posted by the client", with_body("tools/list", None, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Expect::Rpc(400, -32600)),
        // --- protocol envelope ---
        ("unknown method", request(1, "tools/destroy", None, json!({}), &[]), Expect::Rpc(404, -32601)),
        // S-038, S-039: a request without the _meta it needs is -32602, HTTP 400.
        ("no _meta", with_body("tools/list", None, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#), Expect::Rpc(400, -32602)),
        ("_meta is a string", with_body("tools/list", None, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":"x"}}"#), Expect::Rpc(400, -32602)),
        // S-094: an unsupported version is 400 and -32022.
        ("unsupported version", post(&[("MCP-Protocol-Version", "1999-01-01"), ("Mcp-Method", "tools/list")], &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}}).to_string()), Expect::Rpc(400, -32022)),
        // --- headers that disagree with the body (request smuggling at the MCP layer) ---
        // S-106: each disagreement is 400 and -32020.
        ("version header differs from _meta", post(&[("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/list")], &body(1, "tools/list", json!({}))), Expect::Rpc(400, -32020)),
        ("Mcp-Method missing", post(&[("MCP-Protocol-Version", "2026-07-28")], &body(1, "tools/list", json!({}))), Expect::Rpc(400, -32020)),
        ("Mcp-Method claims another method", post(&common::headers("tools/list", None, &[]), &call_body(json!({"a": 1, "b": 2}))), Expect::Rpc(400, -32020)),
        ("Mcp-Name claims another tool", post(&common::headers("tools/call", Some("greet"), &[]), &call_body(json!({"a": 1, "b": 2}))), Expect::Rpc(400, -32020)),
        // S-373: Mcp-Name is checked against params.taskId.
        ("Mcp-Name names another task", post(&common::headers("tasks/get", Some("theirs"), &[]), &body(1, "tasks/get", json!({"taskId": "mine"}))), Expect::Rpc(400, -32020)),
        ("Mcp-Name is broken base64", post(&common::headers("tools/call", Some("=?base64?!!!?="), &[]), &call_body(json!({"a": 1, "b": 2}))), Expect::Rpc(400, -32020)),
        ("Mcp-Name carries non-ASCII bytes", {
            let mut r = post(&common::headers("tools/call", Some("addX"), &[]), &call_body(json!({"a": 1, "b": 2})));
            let at = r.windows(4).position(|w| w == b"addX").unwrap();
            r[at + 3] = 0xe9;
            r
        }, Expect::Rpc(400, -32020)),
        // --- HTTP smuggling, caught by the HTTP parser before any MCP code runs ---
        ("bare CR inside a header value", raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Method: tools/list\rX-Injected: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"), Expect::Status(400)),
        ("two different Content-Lengths", raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{}"), Expect::Status(400)),
        ("Content-Length and chunked together", raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n"), Expect::Status(400)),
        ("a header line without a colon", raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nthis is not a header\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"), Expect::Status(400)),
        ("64 KiB of headers", raw(&format!("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}", "z".repeat(512 * 1024))), Expect::Status(431)),
        // --- origin and method ---
        // S-074: a foreign Origin is 403.
        ("a foreign Origin (DNS rebinding)", post(&[("Origin", "http://evil.example")], &body(1, "tools/list", json!({}))), Expect::Rpc(403, -32600)),
        ("a foreign Host", raw(&String::from_utf8(post(&common::headers("tools/list", None, &[]), &body(1, "tools/list", json!({})))).unwrap().replace("Host: 127.0.0.1", "Host: evil.example")), Expect::Rpc(403, -32600)),
        ("GET without a session", get("/mcp", &[]), Expect::Rpc(405, -32600)),
        ("PUT", raw("PUT /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"), Expect::Rpc(405, -32600)),
        // --- bodies not declared JSON: a page may send these cross-origin without a preflight ---
        ("a text/plain body (a CORS simple request)", raw(&String::from_utf8(with_body("tools/list", None, &body(1, "tools/list", json!({})))).unwrap().replace("Content-Type: application/json", "Content-Type: text/plain")), Expect::Rpc(415, -32600)),
        ("no Content-Type", raw(&String::from_utf8(with_body("tools/list", None, &body(1, "tools/list", json!({})))).unwrap().replace("Content-Type: application/json\r\n", "")), Expect::Rpc(415, -32600)),
        // --- size and shape bombs ---
        ("declared body over the limit", raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\n{}"), Expect::Rpc(413, -32600)),
        ("chunked body over the limit", {
            let mut r = raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            r.extend_from_slice(format!("{:x}\r\n{}\r\n0\r\n\r\n", too_big.len(), too_big).as_bytes());
            r
        }, Expect::Rpc(413, -32600)),
        ("nesting 20 000 deep", with_body("tools/list", None, &deep), Expect::Rpc(400, -32600)),
        ("arguments nested 40 deep", post(&common::headers("tools/call", Some("add"), &[]), &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{deep_args},"_meta":{meta}}}}}"#)), Expect::Rpc(400, -32600)),
        // S-196: arguments too big, of the wrong type or shape are refused.
        ("a 20 KB argument", post(&common::headers("tools/call", Some("add"), &[]), &call_body(json!({"a": huge_string, "b": 1}))), Expect::Rpc(200, -32602)),
        ("an argument of the wrong type", call("add", json!({"a": "two", "b": 3}), &[]), Expect::ToolError),
        ("a remote $ref as an argument", call("add", json!({"a": {"$ref": "https://evil.example/schema.json"}, "b": 3}), &[]), Expect::ToolError),
        ("1 000 numbers for an integer", call("add", json!({"a": vec![1; 1000], "b": 3}), &[]), Expect::ToolError),
        ("arguments as a string", post(&common::headers("tools/call", Some("add"), &[]), &body(1, "tools/call", json!({"name": "add", "arguments": "a=1"}))), Expect::Rpc(200, -32602)),
        ("an unknown tool", call("rm_rf", json!({}), &[]), Expect::Rpc(200, -32602)),
        // --- forged and replayed sealed state ---
        ("a forged cursor", request(1, "tools/list", None, json!({"cursor": tamper(&cursor)}), &[]), Expect::Rpc(200, -32602)),
        ("a cursor of another list", request(1, "prompts/list", None, json!({"cursor": cursor}), &[]), Expect::Rpc(200, -32602)),
        ("a cursor that is a number", request(1, "tools/list", None, json!({"cursor": 2}), &[]), Expect::Rpc(200, -32602)),
        // S-124: a requestState is checked like any input from the client.
        ("a forged requestState", with_state("checkout", &tamper(&state)), Expect::Rpc(200, -32602)),
        ("a requestState replayed on another tool", with_state("gather", &state), Expect::Rpc(200, -32602)),
        ("a requestState that is not sealed at all", with_state("checkout", "eyJ0b3RhbGx5IjoibGVnaXQifQ"), Expect::Rpc(200, -32602)),
        // --- resource URIs ---
        ("path traversal", request(1, "resources/read", Some("archive:///notes/../../etc/passwd"), json!({"uri": "archive:///notes/../../etc/passwd"}), &[]), Expect::Rpc(200, -32602)),
        ("encoded path traversal", request(1, "resources/read", Some("archive:///notes/%2e%2e%2f%2e%2e%2fetc"), json!({"uri": "archive:///notes/%2e%2e%2f%2e%2e%2fetc"}), &[]), Expect::Rpc(200, -32602)),
        ("a 10 KB URI", {
            let uri = format!("archive:///{}", "a/".repeat(5000));
            request(1, "resources/read", Some(&uri), json!({"uri": uri}), &[])
        }, Expect::Rpc(200, -32602)),
    ];
    // The book ("Securing a server") gives this number.
    assert_eq!(cases.len(), 57, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for (name, bytes, expect) in cases {
        let reply = send(addr, &bytes).await;
        if std::env::var_os("HOSTILE_SHOW").is_some() {
            eprintln!(
                "{name}: {} {}",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            );
        }
        // S-007, S-009, S-011, S-012: each refusal has its status and code, an integer
        // code and a message, and only a code this revision allows (`check`).
        if let Err(problem) = check(&reply, expect) {
            wrong.push(format!("{name}: {problem}"));
        }
        still_serves(addr, name).await;
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// S-009, S-011, S-012: a JSON-RPC code the server may answer with in this revision: the
/// JSON-RPC ones, the three the specification defines from its own range (-32020 header
/// mismatch, -32021 missing capability, -32022 unsupported version), or an application
/// code outside -32768..-32000. Never -32002 or -32042, which older revisions used.
fn a_code_this_revision_allows(code: i64) -> bool {
    matches!(
        code,
        -32700 | -32600 | -32601 | -32602 | -32603 | -32020 | -32021 | -32022
    ) || !(-32768..=-32000).contains(&code)
}

fn check(reply: &Reply, expect: Expect) -> Result<(), String> {
    if let Some(code) = reply.code() {
        if !a_code_this_revision_allows(code) {
            return Err(format!("code {code} is reserved"));
        }
    }
    let got = || {
        format!(
            "got {} {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        )
    };
    let ok = match expect {
        Expect::Rpc(status, code) => {
            let message = reply.json()["error"]["message"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            reply.status == status && reply.code() == Some(code) && message.len() > 10
        }
        Expect::ToolError => reply.status == 200 && reply.json()["result"]["isError"] == true,
        Expect::Status(status) => reply.status == status,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expect:?}, {}", got()))
    }
}

// A client that sends its headers and then too little of its body, too slowly, gets 408
// once the body timeout passes; one that stops reading its response does not hold up
// anyone else.
#[tokio::test]
async fn slow_clients_time_out_alone() {
    let addr = common::serve(app()).await;
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"json")
        .await
        .unwrap();
    // Meanwhile others are served.
    still_serves(addr, "a stalled body on another connection").await;
    let reply = common::read_reply(&mut stalled).await;
    assert_eq!(reply.status, 408);
    assert_eq!(reply.code(), Some(-32600));
    still_serves(addr, "a stalled body").await;

    // A reader that never reads: its response waits in buffers; others are unaffected.
    let mut lazy = TcpStream::connect(addr).await.unwrap();
    lazy.write_all(&call("add", json!({"a": 1, "b": 1}), &[]))
        .await
        .unwrap();
    still_serves(addr, "a client that does not read").await;
    drop(lazy);
}

// The same discipline on stdio: each bad line gets its error, the next request its
// answer, and a request reusing the id of one in progress is refused, not merged.
#[tokio::test]
async fn hostile_stdio_lines_get_exact_errors_and_lose_nothing() {
    let app = mcp_workspace_tests::interactive_server(Arc::new(Default::default()))
        .only_module("mcp_workspace_tests::fixtures")
        .only_module("mcp_workspace_tests::secured")
        .max_line_bytes(16 * 1024)
        .max_json_depth(32)
        .build()
        .unwrap();
    let (mut lines, mut write) = common::stdio(app);
    let valid = body(
        99,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    let cases: Vec<(&str, String, i64)> = vec![
        ("truncated JSON", "{\"jsonrpc\":".into(), -32700),
        ("a batch", format!("[{valid}]"), -32600),
        ("a bare string", "\"hi\"".into(), -32600),
        ("nesting 10 000 deep", "[".repeat(10_000), -32600),
        (
            "a line over the limit",
            format!("\"{}\"", "x".repeat(20_000)),
            -32600,
        ),
        (
            "an unknown method",
            body(5, "tools/destroy", json!({})),
            -32601,
        ),
        (
            "missing _meta",
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}"#.into(),
            -32602,
        ),
        (
            "an unknown tool",
            body(5, "tools/call", json!({"name": "nope"})),
            -32602,
        ),
    ];
    for (name, line, code) in cases {
        write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        let reply = common::next_line(&mut lines).await;
        assert_eq!(reply["error"]["code"], code, "{name}: {reply}");
        write
            .write_all(format!("{valid}\n").as_bytes())
            .await
            .unwrap();
        let reply = common::next_line(&mut lines).await;
        assert_eq!(
            reply["result"]["structuredContent"], 5,
            "after {name}: {reply}"
        );
    }
    // Two requests with one id while the first runs: the second is refused, the first
    // still answered.
    let slow = body(
        42,
        "tools/call",
        json!({"name": "nap", "arguments": {"ms": 300}}),
    );
    write
        .write_all(format!("{slow}\n").as_bytes())
        .await
        .unwrap();
    let twin = body(
        42,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
    );
    write
        .write_all(format!("{twin}\n").as_bytes())
        .await
        .unwrap();
    let reply = common::next_line(&mut lines).await;
    assert_eq!(reply["id"], 42);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("already in use"));
    let first = common::next_line(&mut lines).await;
    assert_eq!(first["id"], 42);
    assert_eq!(first["result"]["content"][0]["text"], "slept 300 ms");
    write
        .write_all(format!("{valid}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(
        common::next_line(&mut lines).await["result"]["structuredContent"],
        5
    );
}

/// Mutations of a valid request: bytes flipped, cut or inserted.
fn mutated_request() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let valid = body(
        1,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    )
    .into_bytes();
    let len = valid.len();
    (
        prop::collection::vec((0..len, any::<u8>()), 0..6),
        0..=len,
        prop::collection::vec(any::<u8>(), 0..8),
    )
        .prop_map(move |(flips, cut, insert)| {
            let mut bytes = valid.clone();
            for (at, byte) in flips {
                bytes[at] = byte;
            }
            let tail = bytes.split_off(cut);
            bytes.extend(insert);
            bytes.extend(tail);
            bytes
        })
}

proptest::proptest! {
    // 128 cases unless PROPTEST_CASES asks for more.
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(128),
        ..Default::default()
    })]

    // Whatever body arrives (random bytes, or a valid request with bytes flipped, cut or
    // inserted), the endpoint answers with a 2xx or a 4xx carrying a JSON-RPC error, never
    // a 5xx, and goes on serving.
    #[test]
    fn any_body_gets_an_answer_or_a_client_error(
        bytes in proptest::prop_oneof![
            proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256),
            mutated_request(),
        ]
    ) {
        use tower::ServiceExt as _;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let router = app().router();
            let request = axum::http::Request::post("/mcp")
                .header("host", "127.0.0.1")
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "add")
                .body(axum::body::Body::from(bytes))
                .unwrap();
            let response = router.clone().oneshot(request).await.unwrap();
            let status = response.status().as_u16();
            assert!(status < 500, "status {status}");
            if status >= 400 {
                let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
                let value: Value = serde_json::from_slice(&body).unwrap();
                let code = value["error"]["code"].as_i64();
                // S-009, S-011: no code from the reserved ranges but the ones defined.
                assert!(code.is_some_and(a_code_this_revision_allows), "{value}");
            }
            let valid = common::body(2, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
            let request = mcp_runtime::testing::http_request(&valid).unwrap();
            let response = router.oneshot(request).await.unwrap();
            assert_eq!(response.status().as_u16(), 200);
        });
    }
}
