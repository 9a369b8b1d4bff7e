//! The handshake era of the in-process `TestClient`: a session opened with
//! `initialize` over an in-memory stdio stream, as a 2025-era host would, answering the
//! server's own requests with the client's handlers.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, OnceCell};

use super::Answers;
use crate::policy::auth::Principal;
use crate::protocol::error::codes;
use crate::App;

/// How long the client waits for any one message from the server.
const WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// What a session needs of the client that opens it.
pub(crate) struct Caller<'a> {
    pub(crate) app: &'a App,
    pub(crate) principal: Option<&'a Principal>,
    /// The client capabilities declared in `initialize`.
    pub(crate) capabilities: Value,
    pub(crate) answers: &'a Answers,
    pub(crate) ids: &'a AtomicU64,
}

impl Caller<'_> {
    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }
}

/// The version a client speaks and, once opened, its session.
pub(crate) struct Handshake {
    version: String,
    session: OnceCell<Mutex<Session>>,
}

/// One open session: the two ends of the stream and the `InitializeResult`.
pub(crate) struct Session {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    pub(crate) initialized: Value,
}

/// The response standing for a broken connection.
pub(crate) fn broken(error: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {
        "code": codes::INTERNAL_ERROR,
        "message": format!("test client: {error}"),
    }})
}

impl Handshake {
    pub(crate) fn new(version: &str) -> Self {
        Handshake {
            version: version.to_owned(),
            session: OnceCell::new(),
        }
    }

    /// The session, opened at the first call with what the client declares by then.
    pub(crate) async fn session(&self, client: &Caller<'_>) -> Result<&Mutex<Session>, String> {
        self.session
            .get_or_try_init(|| async {
                let (near, far) = tokio::io::duplex(1 << 20);
                let (server_read, server_write) = tokio::io::split(far);
                let mut serving = client.app.clone();
                if let Some(principal) = client.principal {
                    // The host that starts a stdio server vouches for its user.
                    serving.stdio.principal = Some(principal.clone());
                }
                tokio::spawn(async move {
                    // The test client plays the host of a stdio server, as `serve_stdio` is
                    // served: anonymous unless the client names a principal.
                    serving
                        .serve_stream(server_read, server_write, std::future::pending())
                        .await
                });
                let (read, writer) = tokio::io::split(near);
                let mut session = Session {
                    writer,
                    lines: BufReader::new(read).lines(),
                    initialized: Value::Null,
                };
                let params = json!({
                    "protocolVersion": self.version,
                    "capabilities": client.capabilities,
                    "clientInfo": {"name": "mcp-runtime-test-client", "version": "0"},
                });
                let initialize = json!({
                    "jsonrpc": "2.0", "id": client.next_id(), "method": "initialize", "params": params,
                });
                let (_, response) = session.exchange(client, initialize).await?;
                let Some(result) = response.get("result") else {
                    return Err(format!("initialize failed: {response}"));
                };
                session.initialized = result.clone();
                session
                    .write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                    .await?;
                Ok(Mutex::new(session))
            })
            .await
    }

    /// A request with its notifications, the server's questions answered meanwhile.
    pub(crate) async fn request(
        &self,
        client: &Caller<'_>,
        method: &str,
        params: Value,
    ) -> (Vec<Value>, Value) {
        let request = json!({
            "jsonrpc": "2.0", "id": client.next_id(), "method": method, "params": params,
        });
        let session = match self.session(client).await {
            Ok(session) => session,
            Err(error) => return (Vec::new(), broken(&error)),
        };
        let mut session = session.lock().await;
        session
            .exchange(client, request)
            .await
            .unwrap_or_else(|error| (Vec::new(), broken(&error)))
    }

    /// One raw message; the response when it has an id.
    pub(crate) async fn message(&self, client: &Caller<'_>, message: Value) -> Option<Value> {
        let session = match self.session(client).await {
            Ok(session) => session,
            Err(error) => return Some(broken(&error)),
        };
        let mut session = session.lock().await;
        if message.get("id").is_none() {
            return session.write(&message).await.err().map(|e| broken(&e));
        }
        Some(
            session
                .exchange(client, message)
                .await
                .map_or_else(|error| broken(&error), |(_, response)| response),
        )
    }
}

impl Session {
    async fn write(&mut self, message: &Value) -> Result<(), String> {
        self.writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .map_err(|e| format!("the server's input is closed: {e}"))
    }

    async fn read(&mut self) -> Result<Value, String> {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .map_err(|_| "no message from the server within 30 s".to_owned())?
            .map_err(|e| e.to_string())?
            .ok_or("the server closed its output")?;
        serde_json::from_str(&line).map_err(|e| format!("the server wrote invalid JSON: {e}"))
    }

    /// Send `request` and read until its response, answering the server's requests with
    /// the client's handlers and collecting notifications.
    async fn exchange(
        &mut self,
        client: &Caller<'_>,
        request: Value,
    ) -> Result<(Vec<Value>, Value), String> {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        self.write(&request).await?;
        let mut notifications = Vec::new();
        loop {
            let frame = self.read().await?;
            match (frame.get("method").and_then(Value::as_str), frame.get("id")) {
                (Some(_), Some(_)) => {
                    let (reply, _) = client.answers.reply(&frame).await;
                    self.write(&reply).await?;
                }
                (Some(_), None) => notifications.push(frame),
                (None, Some(answered)) if *answered == id => return Ok((notifications, frame)),
                // A message for an earlier request (say, one cancelled): not ours.
                _ => {}
            }
        }
    }
}
