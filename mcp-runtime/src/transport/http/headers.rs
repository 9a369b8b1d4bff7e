//! Reading the request's headers: the protocol's header names, one header's text, the
//! `=?base64?...?=` form, the Host/Origin allowlist, `Content-Type` and `Accept`, and the
//! check that `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and a tool's
//! `Mcp-Param-*` headers ([`mirrored`]) say what the body says.

mod mirrored;

use std::borrow::Cow;

use axum::http::{header, HeaderMap, HeaderName};
use base64::Engine as _;
use serde_json::Value;

use crate::core::Resolved;
use crate::policy::host::host_name;
use crate::protocol::meta::Meta;
use crate::protocol::method::Method;
use crate::protocol::{Params, RpcError};

/// The protocol's header names, made once: looking a header up by a string parses the name
/// on every request.
pub(crate) mod names {
    use axum::http::HeaderName;

    /// `MCP-Protocol-Version`.
    pub(crate) const MCP_PROTOCOL_VERSION: HeaderName =
        HeaderName::from_static("mcp-protocol-version");
    /// `Mcp-Method`.
    pub(crate) const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
    /// `Mcp-Name`.
    pub(crate) const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
    /// `Last-Event-ID`.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
    /// `Mcp-Session-Id`: the handshake-era session a message belongs to.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
}

/// One header's value: absent, present (decoded and trimmed), or malformed.
pub(crate) fn header_text<'h>(
    headers: &'h HeaderMap,
    name: &HeaderName,
) -> Result<Option<&'h str>, RpcError> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| {
        RpcError::header_mismatch(format!(
            "The {name} header contains characters that are not visible ASCII"
        ))
    })?;
    // Optional whitespace around a field value is not part of it (RFC 9110 section 5.5).
    Ok(Some(text.trim_matches([' ', '\t'])))
}

/// Decode the `=?base64?...?=` form used for values that are not plain visible ASCII.
pub(crate) fn decode_sentinel<'t>(name: &str, text: &'t str) -> Result<Cow<'t, str>, RpcError> {
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Cow::Owned)
            .ok_or_else(|| {
                RpcError::header_mismatch(format!(
                    "The {name} header is not valid =?base64?...?= encoding of UTF-8 text"
                ))
            }),
        None => Ok(Cow::Borrowed(text)),
    }
}

/// The DNS-rebinding defence: `Host` and `Origin`, when sent, name an allowed host.
pub(crate) fn check_host_and_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
    let is_allowed = |host: &str| allowed.iter().any(|a| a.eq_ignore_ascii_case(host));
    if let Some(host) = headers.get(header::HOST) {
        let host = host
            .to_str()
            .map_err(|_| "the Host header is not valid text".to_owned())?;
        let name = host_name(host);
        if !is_allowed(name) {
            return Err(format!(
                "host {:?} is not allowed",
                name.to_ascii_lowercase()
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| "the Origin header is not valid text".to_owned())?;
        let authority = origin
            .split_once("://")
            .map(|(_, rest)| rest.split('/').next().unwrap_or(""))
            .ok_or_else(|| format!("origin {origin:?} is not allowed"))?;
        if !is_allowed(host_name(authority)) {
            return Err(format!("origin {origin:?} is not allowed"));
        }
    }
    Ok(())
}

/// A POST's body must be declared JSON (parameters such as `charset=utf-8` allowed), or it
/// is refused before it is read. Besides the protocol asking for it, this keeps the
/// endpoint from being a CORS "simple request" target: a web page may POST `text/plain`
/// (or no type) to any address without asking first. The Origin check stays the main
/// defence; this is the second.
pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), RpcError> {
    let refuse = |got: &str| {
        RpcError::invalid_request(format!(
            "Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json (got {got})"
        ))
    };
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let value = match (values.next(), values.next()) {
        (Some(value), None) => value,
        (None, _) => return Err(refuse("none")),
        (Some(_), Some(_)) => return Err(refuse("several")),
    };
    let text = value
        .to_str()
        .map_err(|_| refuse("a value that is not text"))?;
    let mut parts = text.split(';');
    let essence = parts.next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(refuse(&format!("{essence:?}")));
    }
    for parameter in parts {
        let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
        if name.trim().eq_ignore_ascii_case("charset")
            && !value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        {
            return Err(RpcError::invalid_request(format!(
                "Unsupported Media Type: JSON-RPC messages are UTF-8, not {}",
                value.trim()
            )));
        }
    }
    Ok(())
}

/// Whether the client takes a Server-Sent Events response.
pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    const EVENT_STREAM: &[u8] = b"text/event-stream";
    // Compared in place, ignoring ASCII case: a lowercased copy of the header cost an
    // allocation on every handshake-era tool call. Only where a `t` starts does the whole
    // name get compared, and only a value that holds it is checked for being text: a
    // comparison at every offset and a check of every value cost 1,200 instructions per
    // handshake-era tool call.
    headers.get_all(header::ACCEPT).iter().any(|value| {
        let found = value.as_bytes().windows(EVENT_STREAM.len()).any(|w| {
            w.first().is_some_and(|b| b.eq_ignore_ascii_case(&b't'))
                && w.eq_ignore_ascii_case(EVENT_STREAM)
        });
        found && value.to_str().is_ok()
    })
}

/// The headers of a 2026-07-28 request against its body: the version, the method, the
/// target's name and a tool's mirrored parameters (-32020 on any difference).
/// `target` is the request's method and target as resolved when it arrived; `supported`
/// the protocol versions the server speaks (named when the version header is missing).
/// `sees` says whether the caller may see the tool: the mirrored parameters of one it
/// may not are not its business (it gets "Unknown tool", as for any tool it may not see,
/// rather than an error naming the tool's headers).
pub(crate) fn check_headers(
    headers: &HeaderMap,
    (method, params, meta): (&str, Option<&Params>, Option<&Meta>),
    target: &Resolved,
    supported: &[&str],
    sees: impl FnOnce() -> bool,
) -> Result<(), RpcError> {
    check_version(headers, method, meta, supported)?;
    check_method(headers, method)?;
    check_name(headers, target.method(), params)?;
    let mirrored = target.mirrored();
    if !mirrored.is_empty() {
        if let Err(error) =
            mirrored::check(headers, mirrored, params.and_then(|p| p.get("arguments")))
        {
            if sees() {
                return Err(error);
            }
        }
    }
    Ok(())
}

/// `MCP-Protocol-Version` is present and agrees with `_meta`'s version, when both are sent.
fn check_version(
    headers: &HeaderMap,
    method: &str,
    meta: Option<&Meta>,
    supported: &[&str],
) -> Result<(), RpcError> {
    let body_version = meta
        .and_then(Meta::protocol_version)
        .and_then(Value::as_str);
    match header_text(headers, &names::MCP_PROTOCOL_VERSION)? {
        None => {
            let mut error = RpcError::header_mismatch(format!(
                "The MCP-Protocol-Version header is missing; this server speaks protocol version(s) {}",
                supported.join(", ")
            ));
            if method == "initialize" {
                error =
                    error.with_data(serde_json::json!({ "supported": supported }));
            }
            Err(error)
        }
        Some(header) => match body_version {
            Some(body) if header != body => Err(RpcError::header_mismatch(format!(
                "MCP-Protocol-Version header {header:?} does not match _meta protocol version {body:?}"
            ))),
            _ => Ok(()),
        },
    }
}

/// `Mcp-Method` is present and names the body's method.
fn check_method(headers: &HeaderMap, method: &str) -> Result<(), RpcError> {
    match header_text(headers, &names::MCP_METHOD)? {
        None => Err(RpcError::header_mismatch(
            "The Mcp-Method header is missing",
        )),
        Some(header) if header != method => Err(RpcError::header_mismatch(format!(
            "Mcp-Method header {header:?} does not match the method {method:?}"
        ))),
        Some(_) => Ok(()),
    }
}

/// `Mcp-Name` carries the target (tool or prompt name, resource URI, task id) when the body
/// names one.
fn check_name(
    headers: &HeaderMap,
    method: Option<Method>,
    params: Option<&Params>,
) -> Result<(), RpcError> {
    // The handshake era's subscriptions have no place in a 2026-07-28 request.
    let field = match method {
        Some(Method::ResourcesSubscribe | Method::ResourcesUnsubscribe) | None => return Ok(()),
        Some(method) => match method.target() {
            Some(kind) => kind.param(),
            None => return Ok(()),
        },
    };
    let Some(body_name) = params.and_then(|p| p.target(method)) else {
        return Ok(());
    };
    match header_text(headers, &names::MCP_NAME)? {
        None => Err(RpcError::header_mismatch(format!(
            "The Mcp-Name header is missing; it must carry params.{field}"
        ))),
        Some(header) => {
            let decoded = decode_sentinel("Mcp-Name", header)?;
            if decoded != body_name {
                return Err(RpcError::header_mismatch(format!(
                    "Mcp-Name header {decoded:?} does not match params.{field} {body_name:?}"
                )));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::http::HttpConfig;

    #[test]
    fn an_event_stream_is_accepted_in_any_case_and_any_accept_header() {
        let accepts = |values: &[&str]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(header::ACCEPT, v.parse().unwrap());
            }
            accepts_event_stream(&h)
        };
        assert!(accepts(&["application/json, text/event-stream"]));
        assert!(accepts(&["Application/JSON, Text/Event-Stream;q=0.9"]));
        assert!(accepts(&["application/json", "TEXT/EVENT-STREAM"]));
        assert!(!accepts(&["application/json"]));
        assert!(!accepts(&["text/event"]));
        // The name ending the value, one byte short of it, and after other `t`s.
        assert!(accepts(&["*/*;q=0.1,text/event-stream"]));
        assert!(!accepts(&["application/json, text/event-strea"]));
        assert!(accepts(&["ttext/event-stream"]));
        assert!(!accepts(&[]));
        // A value that is not visible ASCII is no text, as before.
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            axum::http::HeaderValue::from_bytes(b"text/event-stream \xff").unwrap(),
        );
        assert!(!accepts_event_stream(&h));
    }

    #[test]
    fn hosts_are_compared_without_port_and_case() {
        let allowed = HttpConfig::default().allowed_hosts;
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "evil.example.com".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_err());
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "localhost:1234".parse().unwrap());
        h.insert(header::ORIGIN, "http://evil.example.com".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_err());
        h.insert(header::ORIGIN, "http://localhost:5173".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_ok());
        h.insert(header::ORIGIN, "null".parse().unwrap());
        assert!(check_host_and_origin(&h, &allowed).is_err());
    }

    #[test]
    fn sentinel_values_are_decoded_strictly() {
        assert_eq!(
            decode_sentinel("n", "=?base64?SGVsbG8=?=").unwrap(),
            "Hello"
        );
        assert!(decode_sentinel("n", "=?base64?SGVsbG8?=").is_err());
        assert!(decode_sentinel("n", "=?base64?SGVs!!!bG8=?=").is_err());
        assert_eq!(
            decode_sentinel("n", "=?base64?SGVsbG8=").unwrap(),
            "=?base64?SGVsbG8="
        );
    }
}
