//! Recorded exchanges replayed against a built server over both transports.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::http::http_request_for;
use super::matches;
use crate::App;

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
        // As a host serves a stdio server (`serve_stdio`): the transcript names no caller.
        let serving = tokio::spawn(async move {
            app.serve_stream(server_read, server_write, std::future::pending())
                .await
        });
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
