//! The API's answer as a tool result: a success as structured content, text or an
//! embedded resource, as the operation documents it; a refusal, a failure or no answer at
//! all as an `isError` result the model reads, shaped as the framework's business errors
//! (`{"error": {"code", "message", "detail"?}}`). Bodies are read up to a bound, never
//! whole whatever their size.

use std::time::Duration;

use mcp_openapi::{Operation, OutputKind};
use serde_json::Value;

use crate::protocol::{CallToolResult, Content};
use crate::Rejected;

/// The most of a successful answer read: a larger one is refused rather than held in
/// memory (and sent to the model).
pub(crate) const MAX_ANSWER: usize = 8 << 20;

/// The most of an error's body read, for its detail: what a model can use of it is short.
const MAX_ERROR_BODY: usize = 64 << 10;

/// A business error of this module, shaped as `Rejected` shapes them.
pub(crate) fn refusal(code: &str, message: String, detail: Option<Value>) -> CallToolResult {
    let rejected = Rejected::<Value>::new(code, message.clone());
    let rejected = match detail {
        Some(detail) => rejected.with_detail(detail),
        None => rejected,
    };
    // A `Value` detail always serializes; should it not, the message still goes back.
    rejected
        .into_outcome()
        .unwrap_or_else(|_| CallToolResult::error(message))
}

/// The result of a request that got no answer: the API is down, slow or unreachable.
pub(crate) fn unanswered(error: &reqwest::Error, timeout: Duration) -> CallToolResult {
    let message = if error.is_timeout() {
        format!(
            "The API did not answer within {}; trying again later may work.",
            humantime::format_duration(timeout)
        )
    } else if error.is_connect() {
        "The API could not be reached; trying again later may work.".to_owned()
    } else {
        "The call to the API failed before it answered; trying again later may work.".to_owned()
    };
    refusal("api_unavailable", message, None)
}

/// Reading a body up to a bound.
enum Read {
    /// All of it.
    Whole(Vec<u8>),
    /// More than the bound: left unread.
    TooLarge,
}

/// The body of `response`, at most `limit` bytes.
async fn read(mut response: reqwest::Response, limit: usize) -> Result<Read, reqwest::Error> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Ok(Read::TooLarge);
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if bytes.len() + chunk.len() > limit {
            return Ok(Read::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Read::Whole(bytes))
}

/// The tool result of the API's answer to one call of `operation`; `uri` names what was
/// called (the base URL and path, never the query, which may carry a key) for a binary
/// answer's embedded resource.
pub(crate) async fn answer(
    operation: &Operation,
    response: reqwest::Response,
    uri: &str,
    timeout: Duration,
) -> CallToolResult {
    let status = response.status();
    let code = status.as_u16();
    let reason = status.canonical_reason().unwrap_or("");
    let media = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if status.is_success() {
        return match read(response, MAX_ANSWER).await {
            Ok(Read::Whole(bytes)) => success(operation, code, media.as_deref(), bytes, uri),
            Ok(Read::TooLarge) => refusal(
                "answer_too_large",
                format!(
                    "The API answered {code} {reason} with more than {} MiB; the tool does not take answers that large.",
                    MAX_ANSWER >> 20
                ),
                None,
            ),
            Err(error) => unanswered(&error, timeout),
        };
    }
    if status.is_client_error() {
        let documented = operation.errors.iter().any(|e| {
            e.status == code.to_string()
                || e.status.eq_ignore_ascii_case("4XX")
                || e.status == "default"
        });
        // The body is the detail only when the document describes it: anything else
        // the API says is left out, and so is a body too large or not JSON.
        let detail = match documented {
            true => match read(response, MAX_ERROR_BODY).await {
                Ok(Read::Whole(bytes)) => serde_json::from_slice::<Value>(&bytes).ok(),
                _ => None,
            },
            false => None,
        };
        let again = if code == 429 {
            "; trying again later may work"
        } else {
            ""
        };
        return refusal(
            &format!("http_{code}"),
            format!("The API refused the call: {code} {reason}{again}."),
            detail,
        );
    }
    if status.is_server_error() {
        // Not implemented, or not in this HTTP version: asking again changes nothing.
        let again = match code {
            501 | 505 => "trying again will not help",
            _ => "trying again later may work",
        };
        return refusal(
            "api_failed",
            format!("The API failed ({code} {reason}); {again}."),
            None,
        );
    }
    refusal(
        "unexpected_answer",
        format!(
            "The API answered {code} {reason}, which the tool does not follow (a redirect to another origin is never followed)."
        ),
        None,
    )
}

/// A successful answer as the operation documents it.
fn success(
    operation: &Operation,
    code: u16,
    media: Option<&str>,
    bytes: Vec<u8>,
    uri: &str,
) -> CallToolResult {
    let done = || CallToolResult::success(vec![Content::text(format!("Done (HTTP {code})."))]);
    match &operation.output.kind {
        OutputKind::Json { wrapped_in, .. } => {
            if bytes.is_empty() {
                return refusal(
                    "bad_answer",
                    format!("The API answered {code} with no body where its document promises JSON: the call went through, but its result is unknown."),
                    None,
                );
            }
            let value: Value = match serde_json::from_slice(&bytes) {
                Ok(value) => value,
                Err(error) => {
                    return refusal(
                        "bad_answer",
                        format!(
                            "The API answered {code} with a body that is not JSON ({}): {error}. The call went through, but its result is unknown.",
                            media.unwrap_or("no content type")
                        ),
                        None,
                    )
                }
            };
            let value = match wrapped_in {
                Some(key) => serde_json::json!({ key.as_str(): value }),
                None => value,
            };
            if !value.is_object() {
                return refusal(
                    "bad_answer",
                    format!("The API answered {code} with JSON that is not the object its document promises: the call went through, but its result is unknown."),
                    None,
                );
            }
            CallToolResult::structured(&value)
        }
        _ if bytes.is_empty() => done(),
        OutputKind::Text => match String::from_utf8(bytes) {
            Ok(text) => CallToolResult::success(vec![Content::text(text)]),
            Err(not_text) => blob(
                uri,
                media,
                "application/octet-stream",
                not_text.into_bytes(),
            ),
        },
        OutputKind::Binary(documented) => blob(uri, media, documented, bytes),
        OutputKind::Empty => {
            let readable = media.is_some_and(|m| {
                let m = m.to_ascii_lowercase();
                m.starts_with("text/") || m.contains("json")
            });
            match (readable, String::from_utf8(bytes)) {
                (true, Ok(text)) => CallToolResult::success(vec![Content::text(text)]),
                (_, Ok(text)) => blob(uri, media, "application/octet-stream", text.into_bytes()),
                (_, Err(bytes)) => blob(uri, media, "application/octet-stream", bytes.into_bytes()),
            }
        }
    }
}

/// Bytes as an embedded resource of the answer's media type (else `fallback`).
fn blob(uri: &str, media: Option<&str>, fallback: &str, bytes: Vec<u8>) -> CallToolResult {
    // The media type without its parameters (`; charset=..`).
    let media = media
        .and_then(|m| m.split(';').next())
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .unwrap_or(fallback);
    CallToolResult::success(vec![Content::embedded_blob(uri, media, bytes)])
}
