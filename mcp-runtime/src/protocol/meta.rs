//! Reserved `_meta` keys of the 2026-07-28 revision.

/// Request `_meta`: the revision the request is written in (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta`: what the client can do on this request (required, `{}` = nothing optional).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta`: self-asserted client name and version (optional, display only).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Request `_meta`: per-request log level (deprecated feature).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta`: the server's name and version.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Request `_meta`: opt-in token for progress notifications.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// Notification `_meta` (and the listen result `_meta`): the `subscriptions/listen` request id.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

use std::sync::Arc;

use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::{Implementation, LogLevel};

/// The reserved fields of one request's `_meta`, read and typed. What the fields mean for
/// the request (which revision serves it, what the client may be asked) is decided above;
/// this only says whether they are well-formed.
#[derive(Debug, Clone)]
pub(crate) struct RequestMeta {
    /// The revision the request is written in, one of those the server speaks.
    pub(crate) protocol_version: &'static str,
    /// The client's capabilities on this request (`{}`: nothing optional).
    pub(crate) client_capabilities: Map<String, Value>,
    /// The client's self-asserted name and version.
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// The log level the client asked for on this request.
    pub(crate) log_level: Option<LogLevel>,
    /// The token progress notifications carry (a string or a number).
    pub(crate) progress_token: Option<Value>,
    /// The whole `_meta`, as sent.
    pub(crate) meta: Map<String, Value>,
}

/// Why a request's `_meta` is refused, in the order the fields are checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MetaError {
    /// `params._meta` is there but is no object.
    NotAnObject,
    /// `params._meta` is absent.
    Missing,
    /// The protocol version is no string.
    VersionNotAString,
    /// The protocol version is absent.
    VersionMissing,
    /// The protocol version names a revision the server does not speak.
    UnsupportedVersion(String),
    /// The client capabilities are no object.
    CapabilitiesNotAnObject,
    /// The client capabilities are absent.
    CapabilitiesMissing,
    /// The client info does not parse; the parser's message.
    ClientInfoMalformed(String),
    /// The log level names no level.
    UnknownLogLevel,
    /// The progress token is neither a string nor a number.
    ProgressTokenMalformed,
}

impl MetaError {
    /// Whether the error is about `_meta` itself or the protocol version: what must hold
    /// before the method is looked at.
    pub(crate) fn is_before_method(&self) -> bool {
        matches!(
            self,
            MetaError::NotAnObject
                | MetaError::Missing
                | MetaError::VersionNotAString
                | MetaError::VersionMissing
                | MetaError::UnsupportedVersion(_)
        )
    }
}

impl RequestMeta {
    /// Read `meta` (the value of `params._meta`, if any) against the revisions the server
    /// speaks. The first problem found is the error; the order is that of [`MetaError`].
    pub(crate) fn parse(
        meta: Option<Value>,
        supported_versions: &[&'static str],
    ) -> Result<RequestMeta, MetaError> {
        let meta = match meta {
            Some(Value::Object(meta)) => meta,
            Some(_) => return Err(MetaError::NotAnObject),
            None => return Err(MetaError::Missing),
        };
        let protocol_version = match meta.get(PROTOCOL_VERSION) {
            Some(Value::String(v)) => supported_versions
                .iter()
                .copied()
                .find(|s| *s == v.as_str())
                .ok_or_else(|| MetaError::UnsupportedVersion(v.clone()))?,
            Some(_) => return Err(MetaError::VersionNotAString),
            None => return Err(MetaError::VersionMissing),
        };
        let client_capabilities = match meta.get(CLIENT_CAPABILITIES) {
            Some(Value::Object(caps)) => caps.clone(),
            Some(_) => return Err(MetaError::CapabilitiesNotAnObject),
            None => return Err(MetaError::CapabilitiesMissing),
        };
        let client_info = match meta.get(CLIENT_INFO) {
            None => None,
            Some(value) => match Implementation::deserialize(value) {
                Ok(info) => Some(Arc::new(info)),
                Err(e) => return Err(MetaError::ClientInfoMalformed(e.to_string())),
            },
        };
        let log_level = match meta.get(LOG_LEVEL) {
            None => None,
            Some(value) => Some(
                value
                    .as_str()
                    .and_then(LogLevel::parse)
                    .ok_or(MetaError::UnknownLogLevel)?,
            ),
        };
        let progress_token = match meta.get(PROGRESS_TOKEN) {
            None => None,
            Some(token @ (Value::String(_) | Value::Number(_))) => Some(token.clone()),
            Some(_) => return Err(MetaError::ProgressTokenMalformed),
        };
        Ok(RequestMeta {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
            meta,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SUPPORTED: &[&str] = &["2026-07-28"];

    fn parse(meta: Value) -> Result<RequestMeta, MetaError> {
        RequestMeta::parse(Some(meta), SUPPORTED)
    }

    #[test]
    fn fields_are_typed_and_the_first_problem_is_reported() {
        let ok = parse(json!({
            PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {"sampling": {}},
            LOG_LEVEL: "info", PROGRESS_TOKEN: 7,
            CLIENT_INFO: {"name": "c", "version": "1"}
        }))
        .unwrap();
        assert_eq!(ok.protocol_version, "2026-07-28");
        assert_eq!(ok.log_level, Some(LogLevel::Info));
        assert_eq!(ok.progress_token, Some(json!(7)));
        assert_eq!(ok.meta.len(), 5);
        assert_eq!(
            RequestMeta::parse(None, SUPPORTED).unwrap_err(),
            MetaError::Missing
        );
        assert_eq!(parse(json!(1)).unwrap_err(), MetaError::NotAnObject);
        assert_eq!(parse(json!({})).unwrap_err(), MetaError::VersionMissing);
        assert_eq!(
            parse(json!({PROTOCOL_VERSION: "2025-11-25", CLIENT_CAPABILITIES: 1})).unwrap_err(),
            MetaError::UnsupportedVersion("2025-11-25".into())
        );
        let bad_caps = parse(json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: 1}));
        assert!(!bad_caps.unwrap_err().is_before_method());
        assert_eq!(
            parse(
                json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, LOG_LEVEL: "loud"})
            )
            .unwrap_err(),
            MetaError::UnknownLogLevel
        );
    }
}
