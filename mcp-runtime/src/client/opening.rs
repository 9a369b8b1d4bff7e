//! Finding out what a server speaks: the `server/discover` probe and the `initialize`
//! handshake, and the answers to them read strictly (an answer that does not have its
//! schema's shape, or a server with no version in common, is an error, never a guess).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};

use super::limits::Deadline;
use super::wire::Call;
use super::{result_of, ClientError, Era, Inner};
use crate::protocol::exchange::{self, Round};
use crate::protocol::{codes, meta, version, LogLevel};

/// What the handshake declares.
pub(super) struct Opening {
    pub(super) declared: Value,
    pub(super) client_info: Value,
    pub(super) log_level: Option<LogLevel>,
}

/// What the probe found out.
pub(super) enum Probed {
    /// A 2026-07-28 server: its `server/discover` result.
    Modern(Value),
    /// A handshake-era server; the version to offer, when the server named one.
    Legacy(Option<String>),
}

impl Inner {
    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Send `server/discover` with this client's 2026-07-28 `_meta`, waiting at most
    /// `within` (or the deadline): the response message.
    pub(super) async fn discover(
        &self,
        deadline: &mut Deadline,
        within: Option<Duration>,
    ) -> Result<Value, ClientError> {
        let params = exchange::with_meta(json!({}), self.meta.clone());
        // Nothing follows it if dropped: a handshake-era server must see nothing but
        // `initialize` after the probe.
        let call = Call::bare(
            Some(self.next_id()),
            "server/discover",
            &params,
            &self.version,
            true,
        );
        deadline
            .wait_within(within, "server/discover", self.wire.send(call))
            .await
    }

    /// Find out the era: `server/discover`, read as the spec says a dual-era client reads
    /// it (versioning, "Backward Compatibility"; stdio and Streamable HTTP,
    /// "Backward Compatibility").
    pub(super) async fn probe(
        &mut self,
        deadline: &mut Deadline,
        within: Option<Duration>,
    ) -> Result<Probed, ClientError> {
        for _ in 0..2 {
            let response = match self.discover(deadline, within).await {
                Ok(response) => response,
                // stdio: no answer in time is a handshake-era server staying silent.
                Err(ClientError::Timeout { after, .. }) if Some(after) == within => {
                    return Ok(Probed::Legacy(None));
                }
                // HTTP: refused without a JSON-RPC error body.
                Err(ClientError::Transport {
                    status: Some(400 | 404 | 405),
                    ..
                }) => return Ok(Probed::Legacy(None)),
                Err(error) => return Err(error),
            };
            let error = match result_of(response) {
                Ok(result) => return Ok(Probed::Modern(self.discovered(result)?)),
                Err(error) => error,
            };
            match error.code() {
                Some(codes::UNSUPPORTED_PROTOCOL_VERSION) => {
                    let supported = supported_versions(&error);
                    if let Some(modern) = supported
                        .iter()
                        .find(|v| version::MODERN_VERSIONS.contains(&v.as_str()))
                    {
                        if *modern != self.version {
                            self.set_modern_version(modern);
                            continue;
                        }
                    }
                    // A server that speaks only handshake-era versions this client knows.
                    return match supported
                        .iter()
                        .find(|v| version::LEGACY_VERSIONS.contains(&v.as_str()))
                    {
                        Some(legacy) => Ok(Probed::Legacy(Some(legacy.clone()))),
                        None => Err(no_common_version(&supported)),
                    };
                }
                // The other 2026-07-28 errors: a modern server refusing this client.
                Some(codes::HEADER_MISMATCH | codes::MISSING_CLIENT_CAPABILITY) => {
                    return Err(error)
                }
                // Anything else (-32601 first): a server that does not know
                // `server/discover`.
                _ => return Ok(Probed::Legacy(None)),
            }
        }
        Err(ClientError::malformed(
            "the server refused every protocol version it said it supports",
        ))
    }

    /// `result`, if it is a `DiscoverResult` this client can speak with: an object with
    /// `supportedVersions` (strings, the version this client speaks among them) and
    /// `capabilities` (an object), and `instructions` a string where there are some.
    pub(super) fn discovered(&self, result: Value) -> Result<Value, ClientError> {
        let wrong = |what: &str| {
            Err(ClientError::malformed(format!(
                "the server's answer to server/discover is not a DiscoverResult: {what}"
            )))
        };
        let Value::Object(fields) = &result else {
            return wrong("it is not an object");
        };
        if !matches!(exchange::round(&result), Round::Final) {
            return wrong("its resultType is not complete");
        }
        let supported: Option<Vec<String>> = match fields.get("supportedVersions") {
            Some(Value::Array(versions)) => versions
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => None,
        };
        let Some(supported) = supported else {
            return wrong("supportedVersions is not a list of versions");
        };
        if !matches!(fields.get("capabilities"), Some(Value::Object(_))) {
            return wrong("capabilities is not an object");
        }
        if fields.get("instructions").is_some_and(|i| !i.is_string()) {
            return wrong("instructions is not a string");
        }
        if !supported.contains(&self.version) {
            return Err(no_common_version(&supported));
        }
        Ok(result)
    }

    /// Adopt a fresh `server/discover` result from the cache, if there is one.
    pub(super) fn discover_cached(&mut self) -> bool {
        match self
            .cache
            .lookup(&self.version, "server/discover", &json!({}), &[])
        {
            Some(result) => {
                self.adopt(result);
                true
            }
            None => false,
        }
    }

    /// Adopt a `server/discover` result the server sent, and keep it if it may be.
    pub(super) fn adopt_and_keep(&mut self, result: Value) {
        self.cache
            .store(&self.version, "server/discover", &json!({}), &[], &result);
        self.adopt(result);
    }

    fn set_modern_version(&mut self, modern: &str) {
        self.version = modern.to_owned();
        if let Some(Value::Object(map)) = Some(&mut self.meta) {
            map.insert(meta::PROTOCOL_VERSION.into(), json!(modern));
        }
    }

    /// Take a `server/discover` result as what the server is.
    fn adopt(&mut self, result: Value) {
        let server_info = result
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
            .cloned();
        self.learn(Era::Modern, server_info, result);
    }

    /// What the server said about itself (`result`, of `server/discover` or `initialize`),
    /// in `era`.
    fn learn(&mut self, era: Era, server_info: Option<Value>, result: Value) {
        self.era = era;
        self.server_info = server_info;
        self.capabilities = result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({}));
        self.instructions = result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.discovered = result;
    }

    /// The `initialize` request and `notifications/initialized`, offering `offered`, all
    /// within `deadline`.
    pub(super) async fn handshake(
        &mut self,
        offered: &str,
        opening: &Opening,
        deadline: &mut Deadline,
    ) -> Result<(), ClientError> {
        let params = json!({
            "protocolVersion": offered,
            "capabilities": opening.declared,
            "clientInfo": opening.client_info,
        });
        let call = Call::bare(Some(self.next_id()), "initialize", &params, offered, false);
        let response = deadline.wait("initialize", self.wire.send(call)).await?;
        let result = initialized(result_of(response)?)?;
        let agreed = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !version::LEGACY_VERSIONS.contains(&agreed) {
            return Err(no_common_version(&[agreed.to_owned()]));
        }
        self.version = agreed.to_owned();
        let server_info = result.get("serverInfo").cloned();
        self.learn(Era::Legacy, server_info, result);
        let empty = json!({});
        let initialized = Call::bare(
            None,
            "notifications/initialized",
            &empty,
            &self.version,
            false,
        );
        deadline
            .wait("notifications/initialized", self.wire.send(initialized))
            .await?;
        if let Some(level) = opening.log_level {
            if self.capabilities.get("logging").is_some() {
                let params = json!({"level": level});
                let call = Call::bare(
                    Some(self.next_id()),
                    "logging/setLevel",
                    &params,
                    &self.version,
                    false,
                );
                let response = deadline
                    .wait("logging/setLevel", self.wire.send(call))
                    .await?;
                result_of(response)?;
            }
        }
        Ok(())
    }
}

/// `result`, if it is an `InitializeResult`: an object with `protocolVersion` (a string),
/// `capabilities` and `serverInfo` (objects), and `instructions` a string where there are
/// some.
fn initialized(result: Value) -> Result<Value, ClientError> {
    let wrong = |what: &str| {
        Err(ClientError::malformed(format!(
            "the server's answer to initialize is not an InitializeResult: {what}"
        )))
    };
    let Value::Object(fields) = &result else {
        return wrong("it is not an object");
    };
    if !fields.get("protocolVersion").is_some_and(Value::is_string) {
        return wrong("protocolVersion is not a string");
    }
    if !matches!(fields.get("capabilities"), Some(Value::Object(_))) {
        return wrong("capabilities is not an object");
    }
    if !matches!(fields.get("serverInfo"), Some(Value::Object(_))) {
        return wrong("serverInfo is not an object");
    }
    if fields.get("instructions").is_some_and(|i| !i.is_string()) {
        return wrong("instructions is not a string");
    }
    Ok(result)
}

/// The error of a server with no protocol version in common with this client, naming both
/// lists.
fn no_common_version(supported: &[String]) -> ClientError {
    let spoken: Vec<&str> = version::MODERN_VERSIONS
        .iter()
        .chain(version::LEGACY_VERSIONS)
        .copied()
        .collect();
    ClientError::Mcp {
        code: codes::UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "no protocol version in common: the server supports {}, this client speaks {}",
            if supported.is_empty() {
                "none".to_owned()
            } else {
                supported.join(", ")
            },
            spoken.join(", ")
        ),
        data: Some(json!({"supported": supported, "spoken": spoken})),
    }
}

/// The `supported` versions of an `UnsupportedProtocolVersionError`.
fn supported_versions(error: &ClientError) -> Vec<String> {
    let data = match error {
        ClientError::Mcp {
            data: Some(data), ..
        } => data,
        _ => return Vec::new(),
    };
    data.get("supported")
        .and_then(Value::as_array)
        .map(|versions| {
            versions
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
