//! Reading what a server answers over HTTP, within the client's limits: a body read up to
//! the message limit (one declared larger refused before it is read) and weighed before it
//! is parsed, the events of an SSE stream one by one, each as bounded; a JSON response
//! that names another request, and redirects the client does not follow, refused by name.

use http::StatusCode;
use serde_json::Value;

use super::super::error::ClientError;
use super::super::weight;
use super::super::wire::Call;
use super::{transport, Endpoint, QUOTED_BODY, SAME_ORIGIN_REDIRECTS};
use crate::protocol::sse::SseReader;

impl Endpoint {
    /// The whole body of `response`, refused past the message limit.
    pub(super) async fn read_body(
        &self,
        method: &str,
        response: &mut reqwest::Response,
    ) -> Result<Vec<u8>, ClientError> {
        let max = self.limits.message_bytes;
        let too_large = || {
            ClientError::limit(
                "max_message_bytes",
                max,
                format!("the server's answer to {method} is larger than {max} bytes"),
            )
        };
        if response
            .content_length()
            .is_some_and(|length| length > u64::try_from(max).unwrap_or(u64::MAX))
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport)? {
            if body.len() + chunk.len() > max {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// A JSON response: the JSON-RPC response it holds. An error status with a JSON-RPC
    /// error body is that error (a modern server's -32020, -32022, -32601...); one without
    /// is a transport error, and so are 401 and 403 whatever their body (authentication,
    /// authorization and `Origin` refusals: the connection's, not the request's).
    pub(super) async fn read_plain(
        &self,
        method: &str,
        mut response: reqwest::Response,
    ) -> Result<Value, ClientError> {
        let status = response.status();
        let body = self.read_body(method, &mut response).await?;
        let max = self.limits.message_bytes;
        if weight::of_text(&body) > max {
            return Err(ClientError::limit(
                "max_message_bytes",
                max,
                format!(
                    "the server's answer to {method} would take more than {max} bytes once read"
                ),
            ));
        }
        let text = String::from_utf8_lossy(&body);
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            let said = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|m| m.pointer("/error/message")?.as_str().map(str::to_owned));
            return Err(refused(status, said.as_deref().unwrap_or(&text)));
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(message) if message.get("error").is_some_and(Value::is_object) => Ok(message),
            Ok(message) if status.is_success() && message.get("result").is_some() => Ok(message),
            _ if !status.is_success() => Err(refused(status, &text)),
            Ok(_) => Err(ClientError::malformed(
                "the response is not a JSON-RPC response",
            )),
            Err(e) => Err(ClientError::malformed(format!(
                "the response is not JSON: {e}"
            ))),
        }
    }
}

/// Whether a response is an SSE stream (of a 2xx).
pub(super) fn is_sse(response: &reqwest::Response) -> bool {
    response.status().is_success()
        && response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// `message`, the JSON response to `call`, if it answers it: a response with another id is
/// refused (an error that could not name the request, with a null id, stands).
pub(super) fn answers(call: &Call<'_>, message: Value) -> Result<Value, ClientError> {
    let Some(id) = call.id else {
        return Ok(message);
    };
    match message.get("id") {
        Some(got) if got.as_u64() == Some(id) => Ok(message),
        Some(Value::Null) if message.get("error").is_some() => Ok(message),
        got => Err(ClientError::malformed(format!(
            "the answer to {} (request {id}) names request {}",
            call.method,
            got.map_or_else(|| "none".to_owned(), Value::to_string)
        ))),
    }
}

/// A redirect the client did not follow (one off the origin, or one too many): an error
/// naming where it pointed.
pub(super) fn refuse_redirect(
    url: &reqwest::Url,
    response: &reqwest::Response,
) -> Result<(), ClientError> {
    let status = response.status();
    if !status.is_redirection() {
        return Ok(());
    }
    let location = response
        .headers()
        .get("location")
        .map(|l| {
            String::from_utf8_lossy(l.as_bytes())
                .chars()
                .take(QUOTED_BODY)
                .collect()
        })
        .unwrap_or_else(|| "nowhere".to_owned());
    let target = response.url().join(&location).ok();
    let why = match target {
        Some(target) if target.origin() == url.origin() => {
            format!("more than {SAME_ORIGIN_REDIRECTS} redirects")
        }
        _ => "a redirect to another origin".to_owned(),
    };
    Err(ClientError::Transport {
        message: format!(
            "{url} answered with {why} ({location}), which this client does not follow: nothing is sent off the origin it was given"
        ),
        status: Some(status.as_u16()),
    })
}

/// The JSON-RPC messages of one SSE response, each event within the message limit.
pub(super) struct Events {
    reader: SseReader,
    method: String,
    max: usize,
}

impl Endpoint {
    pub(super) fn events(&self, method: &str) -> Events {
        Events {
            reader: SseReader::new(self.limits.message_bytes),
            method: method.to_owned(),
            max: self.limits.message_bytes,
        }
    }
}

impl Events {
    /// The next JSON-RPC message of the stream (`None` when it ends); events that are not
    /// JSON are skipped.
    pub(super) async fn next(
        &mut self,
        response: &mut reqwest::Response,
    ) -> Result<Option<Value>, ClientError> {
        loop {
            while let Some(event) = self.reader.next_event() {
                if weight::of_text(event.as_bytes()) > self.max {
                    return Err(ClientError::limit(
                        "max_message_bytes",
                        self.max,
                        format!(
                            "an event of the server's stream for {} would take more than {} bytes once read",
                            self.method, self.max
                        ),
                    ));
                }
                if let Ok(message) = serde_json::from_str::<Value>(&event) {
                    return Ok(Some(message));
                }
            }
            match response.chunk().await.map_err(transport)? {
                Some(chunk) => self.reader.feed(&chunk).map_err(|_| {
                    ClientError::limit(
                        "max_message_bytes",
                        self.max,
                        format!(
                            "an event of the server's stream for {} is larger than {} bytes",
                            self.method, self.max
                        ),
                    )
                })?,
                None => return Ok(None),
            }
        }
    }
}

/// A transport error for an HTTP error status without a JSON-RPC error body.
pub(super) fn refused(status: StatusCode, body: &str) -> ClientError {
    let mut quoted: String = body.chars().take(QUOTED_BODY).collect();
    if quoted.trim().is_empty() {
        quoted = status.canonical_reason().unwrap_or("no body").to_owned();
    }
    ClientError::Transport {
        message: quoted,
        status: Some(status.as_u16()),
    }
}
