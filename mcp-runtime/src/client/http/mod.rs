//! The client's Streamable HTTP transport: each message is its own POST, answered with
//! JSON or with an SSE stream for that request.
//!
//! 2026-07-28 requests carry the headers that mirror their body (`MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for the arguments a tool declares with
//! `x-mcp-header`); closing the response is how a request is cancelled. Handshake-era
//! requests carry the negotiated version and the `Mcp-Session-Id` the server gave at
//! `initialize`; the server's questions arrive on the POST's SSE stream and are answered
//! with a POST of their own; a cancelled request is also announced with
//! `notifications/cancelled`; a 404 to a request with the session means the server has
//! forgotten it, so the client opens a new one and sends the request again; closing the
//! client ends the session with a DELETE.
//!
//! What a server sends is read within the client's [`Limits`]: a body or an SSE event
//! past the message limit is refused as soon as it is (a `Content-Length` above it
//! before the body is read). Nothing leaves the origin the client was given: a redirect is
//! followed only to the same origin (scheme, host and port), at most
//! [`SAME_ORIGIN_REDIRECTS`] times; one to another origin fails the request, so neither
//! the caller's headers nor the body reach it. Every request the client sends of its own
//! (the session's DELETE, answers to the server's questions, cancellations) has the
//! client's timeout, so none waits on a server for ever.

mod read;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use serde_json::{json, Value};

use super::error::ClientError;
use super::limits::Limits;
use super::wire::{Call, Host, Listening, SUBSCRIPTION_BACKLOG};
use crate::protocol::exchange::header_encoding;
use crate::protocol::mirror::{self, Mirrored};
use read::{answers, is_sse, refuse_redirect, refused};

/// The longest error body quoted in a transport error.
const QUOTED_BODY: usize = 300;
/// How many redirects within the origin one request follows (a moved endpoint, a trailing
/// slash); more fail it.
pub(crate) const SAME_ORIGIN_REDIRECTS: usize = 3;

/// One MCP endpoint.
pub(crate) struct Endpoint {
    http: reqwest::Client,
    url: reqwest::Url,
    /// The caller's headers (credentials, say), on every request.
    headers: HeaderMap,
    /// The handshake-era session, once `initialize` gave one.
    session: Mutex<Option<HeaderValue>>,
    /// The negotiated handshake-era version, for the DELETE at close.
    legacy_version: Mutex<Option<String>>,
    /// The params of the `initialize` that opened the session, to open another when the
    /// server has forgotten it.
    opening: Mutex<Option<Value>>,
    /// The client's request ids (a new session's `initialize` takes one).
    ids: Arc<AtomicU64>,
    /// The arguments each listed tool mirrors into headers, by tool name.
    mirrors: Mutex<HashMap<String, Vec<Mirrored>>>,
    host: Arc<Host>,
    limits: Limits,
    /// The deadline of each request the client sends of its own accord.
    timeout: Duration,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn transport(error: impl std::fmt::Display) -> ClientError {
    ClientError::transport(error.to_string())
}

impl Endpoint {
    pub(crate) fn new(
        url: &str,
        headers: HeaderMap,
        host: Arc<Host>,
        ids: Arc<AtomicU64>,
        limits: Limits,
        timeout: Duration,
    ) -> Result<Endpoint, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| transport(format!("bad URL {url}: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(transport(format!(
                "bad URL {url}: an MCP endpoint is an http or https URL"
            )));
        }
        let origin = url.origin();
        // Redirects within the origin are followed a few times; any other stops, and the
        // 3xx itself comes back to `post`, which refuses it by name.
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.url().origin() == origin && attempt.previous().len() <= SAME_ORIGIN_REDIRECTS
            {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let http = reqwest::Client::builder()
            .redirect(redirects)
            .build()
            .map_err(transport)?;
        Ok(Endpoint {
            http,
            url,
            headers,
            session: Mutex::new(None),
            legacy_version: Mutex::new(None),
            opening: Mutex::new(None),
            ids,
            mirrors: Mutex::new(HashMap::new()),
            host,
            limits,
            timeout,
        })
    }

    /// Remember which arguments of each tool of a `tools/list` result go into headers, and
    /// drop the tools whose `x-mcp-header` annotations are invalid: an HTTP client must
    /// not offer them.
    pub(crate) fn learn_tools(&self, result: &mut Value) {
        let Some(Value::Array(tools)) = result.get_mut("tools") else {
            return;
        };
        let mut mirrors = lock(&self.mirrors);
        tools.retain(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            match mirror::scan(schema) {
                Ok(found) => {
                    mirrors.insert(name.to_owned(), found);
                    true
                }
                Err(problems) => {
                    tracing::warn!(target: "mcp_runtime::client", tool = name, problems = ?problems,
                        "dropped a tool whose x-mcp-header annotations are invalid");
                    false
                }
            }
        });
    }

    /// The headers of one POST.
    fn headers_for(&self, call: &Call<'_>) -> Result<HeaderMap, ClientError> {
        let mut headers = self.headers.clone();
        let mut set = |name: &str, value: &str| -> Result<(), ClientError> {
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(transport)?;
            let value = HeaderValue::from_str(value).map_err(transport)?;
            headers.insert(name, value);
            Ok(())
        };
        set("content-type", "application/json")?;
        set("accept", "application/json, text/event-stream")?;
        set("mcp-protocol-version", call.version)?;
        if call.modern {
            set("mcp-method", call.method)?;
            let name = match call.method {
                "tools/call" | "prompts/get" => call.params.get("name"),
                "resources/read" => call.params.get("uri"),
                "tasks/get" | "tasks/update" | "tasks/cancel" => call.params.get("taskId"),
                _ => None,
            };
            if let Some(name) = name.and_then(Value::as_str) {
                set("mcp-name", &header_encoding(name))?;
            }
            if call.method == "tools/call" {
                for (header, value) in self.mirrored(call.params) {
                    set(&header, &value)?;
                }
            }
        } else if let Some(session) = lock(&self.session).clone() {
            headers.insert("mcp-session-id", session);
        }
        for (name, value) in call.headers {
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(transport)?;
            let value = HeaderValue::from_str(value).map_err(transport)?;
            headers.insert(name, value);
        }
        Ok(headers)
    }

    /// The `Mcp-Param-*` headers of a `tools/call`, for the tool's mirrored arguments that
    /// have a value.
    fn mirrored(&self, params: &Value) -> Vec<(String, String)> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mirrors = lock(&self.mirrors);
        let Some(mirrored) = mirrors.get(name) else {
            return Vec::new();
        };
        mirrored
            .iter()
            .filter_map(|m| {
                let mut argument = params.get("arguments");
                for key in &m.path {
                    argument = argument.and_then(|a| a.get(key));
                }
                let text = match argument? {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some((m.header_name(), header_encoding(&text)))
            })
            .collect()
    }

    /// POST `call` and read its answer: the response message, `Value::Null` for an
    /// accepted notification.
    pub(crate) async fn send(this: &Arc<Endpoint>, call: Call<'_>) -> Result<Value, ClientError> {
        let headers = this.headers_for(&call)?;
        let body = call.message().to_string();
        // Handshake-era HTTP announces a cancellation; in 2026-07-28 the closed response
        // is the cancellation.
        let mut outstanding = Outstanding {
            endpoint: this.clone(),
            cancel: if call.modern {
                None
            } else {
                call.cancel.clone()
            },
            version: call.version.to_owned(),
        };
        let had_session = !call.modern && lock(&this.session).is_some();
        let mut result = this.exchange(&call, headers, body).await;
        // 404 to a request with a session: the server has forgotten the session (it
        // restarted, or expired it). The handshake era has the client open a new one and
        // send the request again.
        if let Err(ClientError::Transport {
            status: Some(404), ..
        }) = &result
        {
            if had_session && call.method != "initialize" {
                this.reopen(call.version).await?;
                let headers = this.headers_for(&call)?;
                result = this
                    .exchange(&call, headers, call.message().to_string())
                    .await;
            }
        }
        outstanding.cancel = None;
        result
    }

    /// Open a new handshake-era session with the `initialize` params of the first.
    async fn reopen(&self, version: &str) -> Result<(), ClientError> {
        let Some(params) = lock(&self.opening).clone() else {
            return Err(transport(
                "the session ended and there is no handshake to repeat",
            ));
        };
        *lock(&self.session) = None;
        tracing::debug!(target: "mcp_runtime::client", "the server forgot the session; opening a new one");
        let initialize = Call::bare(
            Some(self.ids.fetch_add(1, Ordering::Relaxed)),
            "initialize",
            &params,
            version,
            false,
        );
        let headers = self.headers_for(&initialize)?;
        let response = self
            .exchange(&initialize, headers, initialize.message().to_string())
            .await?;
        if let Some(error) = response.get("error") {
            return Err(ClientError::from_rpc(error));
        }
        let params = json!({});
        let initialized = Call::bare(None, "notifications/initialized", &params, version, false);
        let headers = self.headers_for(&initialized)?;
        self.exchange(&initialized, headers, initialized.message().to_string())
            .await?;
        Ok(())
    }

    async fn post(
        &self,
        call: &Call<'_>,
        headers: HeaderMap,
        body: String,
    ) -> Result<reqwest::Response, ClientError> {
        let response = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(|e| transport(format!("POST {}: {e}", self.url)))?;
        refuse_redirect(&self.url, &response)?;
        if call.method == "initialize" {
            if let Some(session) = response.headers().get("mcp-session-id") {
                *lock(&self.session) = Some(session.clone());
            }
            *lock(&self.legacy_version) = Some(call.version.to_owned());
            *lock(&self.opening) = Some(call.params.clone());
        }
        Ok(response)
    }

    async fn exchange(
        &self,
        call: &Call<'_>,
        headers: HeaderMap,
        body: String,
    ) -> Result<Value, ClientError> {
        let with_session = headers.contains_key("mcp-session-id");
        let mut response = self.post(call, headers, body).await?;
        let status = response.status();
        if with_session && status == StatusCode::NOT_FOUND {
            // The session is gone, whatever the body says (see `send`).
            let body = self.read_body(call.method, &mut response).await?;
            return Err(refused(status, &String::from_utf8_lossy(&body)));
        }
        if call.id.is_none() {
            return if status.is_success() {
                Ok(Value::Null)
            } else {
                Err(refused(status, ""))
            };
        }
        if is_sse(&response) {
            return self.read_stream(call, &mut response).await;
        }
        let message = self.read_plain(call.method, response).await?;
        answers(call, message)
    }

    /// POST a `subscriptions/listen` request and read its SSE stream up to the
    /// acknowledgement; a task then forwards the subscription's notifications until the
    /// stream ends. Dropping the result closes the stream, which cancels the request.
    pub(crate) async fn listen(
        this: &Arc<Endpoint>,
        call: Call<'_>,
    ) -> Result<Listening, ClientError> {
        let headers = this.headers_for(&call)?;
        let mut response = this
            .post(&call, headers, call.message().to_string())
            .await?;
        if !is_sse(&response) {
            let message = this.read_plain(call.method, response).await?;
            return Listening::answered(answers(&call, message)?);
        }
        let mut events = this.events(call.method);
        // The acknowledgement comes first (nothing of the subscription precedes it).
        let acknowledged = match events.next(&mut response).await? {
            Some(message) if message.get("method").is_some() => message
                .pointer("/params/notifications")
                .cloned()
                .unwrap_or(Value::Null),
            Some(message) => return Listening::answered(message),
            None => return Listening::answered(json!({"result": {}})),
        };
        let (tx, notifications) = tokio::sync::mpsc::channel(SUBSCRIPTION_BACKLOG);
        // A program that does not take the notifications holds this task, and with it the
        // stream: the server's writes wait, and nothing piles up here.
        let forwarding = tokio::spawn(async move {
            while let Ok(Some(message)) = events.next(&mut response).await {
                if message.get("method").is_none() || tx.send(message).await.is_err() {
                    break;
                }
            }
        });
        Ok(Listening {
            acknowledged,
            notifications,
            _guard: Box::new(Abort(forwarding.abort_handle())),
        })
    }

    /// Read an SSE response until the call's response, routing notifications and answering
    /// the server's questions on the way.
    async fn read_stream(
        &self,
        call: &Call<'_>,
        response: &mut reqwest::Response,
    ) -> Result<Value, ClientError> {
        let mut events = self.events(call.method);
        // In the handshake era each question is a round of the call.
        let mut questions = 0;
        while let Some(message) = events.next(response).await? {
            let method = message.get("method").and_then(Value::as_str);
            match (method, message.get("id")) {
                // 2026-07-28 has no requests from the server: its questions come in
                // `input_required` results, so one on the stream is not put to anyone.
                (Some(_), Some(_)) if call.modern => {
                    tracing::warn!(target: "mcp_runtime::client",
                        "the server sent a request on a 2026-07-28 stream; ignored");
                }
                (Some(method), Some(_)) => {
                    if method != "ping" {
                        questions += 1;
                        if questions > self.limits.rounds {
                            return Err(ClientError::limit(
                                "max_rounds",
                                self.limits.rounds,
                                format!(
                                    "the server asked more than {} questions during {}",
                                    self.limits.rounds, call.method
                                ),
                            ));
                        }
                    }
                    let (reply, unanswered) = self.host.reply(&message).await;
                    self.post_reply(call.version, &reply).await?;
                    unanswered?;
                }
                (Some(_), None) => self.host.notified(&message, call.progress),
                (None, Some(id)) if Some(id.clone()) == call.id.map(Value::from) => {
                    return Ok(message);
                }
                _ => {}
            }
        }
        Err(transport(
            "the server ended the SSE stream without a response",
        ))
    }

    /// POST the client's response to a question the server asked (handshake era).
    async fn post_reply(&self, version: &str, reply: &Value) -> Result<(), ClientError> {
        let mut headers = self.headers.clone();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert(
            "accept",
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_str(version).map_err(transport)?,
        );
        if let Some(session) = lock(&self.session).clone() {
            headers.insert("mcp-session-id", session);
        }
        let response = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(reply.to_string())
            .timeout(self.timeout)
            .send()
            .await
            .map_err(transport)?;
        refuse_redirect(&self.url, &response)?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(refused(response.status(), ""))
        }
    }

    /// End the handshake-era session, if there is one (a DELETE, waiting at most the
    /// client's timeout; the server may refuse with 405, which is its right).
    pub(crate) async fn close(&self) {
        let Some(session) = lock(&self.session).take() else {
            return;
        };
        let mut request = self
            .http
            .delete(self.url.clone())
            .headers(self.headers.clone())
            .header("mcp-session-id", session)
            .timeout(self.timeout);
        if let Some(version) = lock(&self.legacy_version).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        let _ = request.send().await;
    }
}

/// Aborts the task forwarding a subscription's stream when dropped (the stream closes
/// with it).
struct Abort(tokio::task::AbortHandle);

impl Drop for Abort {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A POST waiting for its answer; dropped before it came (handshake era), it tells the
/// server with `notifications/cancelled`.
struct Outstanding {
    endpoint: Arc<Endpoint>,
    cancel: Option<Value>,
    version: String,
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        let Some(cancel) = self.cancel.take() else {
            return;
        };
        let endpoint = self.endpoint.clone();
        let version = std::mem::take(&mut self.version);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = endpoint.post_reply(&version, &cancel).await;
            });
        }
    }
}
