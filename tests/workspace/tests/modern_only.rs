//! A server built without the `legacy` feature speaks only 2026-07-28: the handshake is
//! refused with the versions it does speak (S-054) and GET/DELETE are 405 (S-110), on
//! every transport. Run with `cargo test --workspace --no-default-features`.
#![cfg(not(feature = "legacy"))]

use axum::body::Body;
use axum::http::Request;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt as _;

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"},
    }})
}

fn names_the_supported_versions(error: &Value) {
    assert!(
        error["message"].as_str().unwrap().contains("2026-07-28"),
        "{error}"
    );
    assert_eq!(error["data"]["supported"], json!(["2026-07-28"]));
}

#[tokio::test]
async fn the_handshake_is_refused_with_the_supported_versions() {
    let app = mcp_workspace_tests::server().build().unwrap();
    // stdio
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = app.clone();
    tokio::spawn(async move { serving.serve_io(server_read, server_write).await });
    let (read, mut write) = tokio::io::split(client);
    write
        .write_all(format!("{}\n", initialize()).as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(read).lines();
    let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer["error"]["code"], -32602);
    names_the_supported_versions(&answer["error"]);
    // HTTP: no session is minted.
    let request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(initialize().to_string()))
        .unwrap();
    let response = app.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 400);
    assert!(response.headers().get("mcp-session-id").is_none());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    names_the_supported_versions(&answer["error"]);
}

#[tokio::test]
async fn session_requests_are_not_understood() {
    let app = mcp_workspace_tests::server().build().unwrap();
    for method in ["GET", "DELETE"] {
        let request = Request::builder()
            .method(method)
            .uri("/mcp")
            .header("host", "localhost")
            .header("mcp-session-id", "abc")
            .header("accept", "text/event-stream")
            .body(Body::empty())
            .unwrap();
        let response = app.router().oneshot(request).await.unwrap();
        // S-089: there is no GET stream, so nothing to resume.
        assert_eq!(response.status(), 405, "{method}");
    }
}
