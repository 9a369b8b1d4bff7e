//! The interactive fixtures served as a server of the handshake era only would serve them
//! (the framework itself always serves 2026-07-28 too): a filter in front of the real
//! server answers every 2026-07-28 message as an old server does, and passes the rest.
//!
//! - stdio: a request naming a 2026-07-28 `protocolVersion` in `_meta`, or
//!   `server/discover`, gets -32601 "Method not found"; with `LEGACY_SILENT=1` it gets no
//!   answer at all, as from a server that ignores what it does not know; with
//!   `LEGACY_SUPPORTED=2025-06-18` it gets -32022 naming that version as the one it
//!   supports, as from a server that knows the 2026-07-28 shape but serves only the
//!   handshake era.
//! - HTTP (`--http ADDR`): a POST with `MCP-Protocol-Version: 2026-07-28` gets 400 with a
//!   JSON-RPC error -32000 "Bad Request: Server not initialized" (what the TypeScript
//!   SDK's handshake-era server answers); with `LEGACY_EMPTY_400=1` a 400 with no body.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mcp_runtime::protocol::version;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = mcp_runtime::process::parse_args(std::env::args().skip(1))?;
    mcp_runtime::process::init_logging();
    let probe = Arc::new(mcp_workspace_tests::interactive::Probe::default());
    let app = mcp_workspace_tests::interactive_server(probe).build()?;
    match mode {
        mcp_runtime::process::Mode::Http(addr) => {
            let router = app.router().layer(axum::middleware::from_fn(refuse_modern));
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(mcp_runtime::Error::Io)?;
            let local = listener.local_addr().map_err(mcp_runtime::Error::Io)?;
            tracing::info!("serving MCP over Streamable HTTP at http://{local}/mcp");
            axum::serve(listener, router)
                .await
                .map_err(mcp_runtime::Error::Io)
        }
        _ => filter_stdio(app).await,
    }
}

/// Whether a message speaks 2026-07-28.
fn is_modern(message: &Value) -> bool {
    message.get("method").and_then(Value::as_str) == Some("server/discover")
        || message
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .is_some()
}

async fn filter_stdio(app: mcp_runtime::App) -> Result<(), mcp_runtime::Error> {
    let silent = std::env::var("LEGACY_SILENT").is_ok_and(|v| v == "1");
    let supported = std::env::var("LEGACY_SUPPORTED").ok();
    let (near, far) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(far);
    tokio::spawn(async move { app.serve_io(server_read, server_write).await });
    let (from_server, mut to_server) = tokio::io::split(near);
    let stdout = Arc::new(Mutex::new(tokio::io::stdout()));
    let out = stdout.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(from_server).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut out = out.lock().await;
            let _ = out.write_all(format!("{line}\n").as_bytes()).await;
            let _ = out.flush().await;
        }
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if is_modern(&message) {
            if let (Some(id), false) = (message.get("id"), silent) {
                let refusal = match &supported {
                    Some(version) => json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32022,
                        "message": "Unsupported protocol version",
                        "data": {"supported": [version], "requested": version::MODERN},
                    }}),
                    None => json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32601, "message": "Method not found",
                    }}),
                };
                let mut out = stdout.lock().await;
                let _ = out.write_all(format!("{refusal}\n").as_bytes()).await;
                let _ = out.flush().await;
            }
            continue;
        }
        if to_server
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
        {
            break;
        }
    }
    Ok(())
}

/// Refuse 2026-07-28 POSTs as a handshake-era server does.
async fn refuse_modern(request: Request<Body>, next: Next) -> Response {
    let modern = request
        .headers()
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| version::MODERN_VERSIONS.contains(&v));
    if !modern {
        return next.run(request).await;
    }
    if std::env::var("LEGACY_EMPTY_400").is_ok_and(|v| v == "1") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {
        "code": -32000, "message": "Bad Request: Server not initialized",
    }});
    (
        StatusCode::BAD_REQUEST,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}
