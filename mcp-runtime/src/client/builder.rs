//! Configuring a client ([`ClientBuilder`]) and connecting it: the transport, the
//! handlers that answer the server's questions and declare their capabilities, the cache,
//! the limits and the deadline, then the era found out as [`Client`] says.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::connection::Wire;
use super::limits::Deadline;
use super::opening::{Opening, Probed};
use super::wire::Host;
use super::{
    cache, http, result_of, stdio, Answers, Cache, Client, ClientBuilder, ClientError,
    ContentPolicy, Era, Inner, Limits, Target, DEFAULT_PROBE_TIMEOUT, DEFAULT_TIMEOUT,
    LEGACY_OFFERED,
};
use crate::protocol::answers::answering_methods;
use crate::protocol::exchange;
use crate::protocol::{meta, version, LogLevel};

impl ClientBuilder {
    pub(super) fn new(target: Target) -> Self {
        ClientBuilder {
            target,
            headers: ::http::HeaderMap::new(),
            header_error: None,
            pin: None,
            version: None,
            timeout: DEFAULT_TIMEOUT,
            probe_timeout: DEFAULT_PROBE_TIMEOUT,
            client_info: json!({"name": "mcp-runtime-client", "version": env!("CARGO_PKG_VERSION")}),
            capabilities: None,
            log_level: None,
            host: Host::default(),
            cache: None,
            policy: None,
            limits: Limits::default(),
        }
    }

    /// Send this HTTP header with every request (credentials, say). Ignored over stdio.
    /// An invalid name or value makes [`connect`](ClientBuilder::connect) fail.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (
            ::http::HeaderName::from_bytes(name.as_bytes()),
            ::http::HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                self.headers.insert(name, value);
            }
            _ => self.header_error = Some(format!("invalid HTTP header {name:?}")),
        }
        self
    }

    /// Send `Authorization: Bearer <token>` with every request. Ignored over stdio.
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Speak this era only, without probing: [`Era::Modern`] fails where the server does
    /// not speak 2026-07-28; [`Era::Legacy`] opens with `initialize` at once.
    pub fn pin(mut self, era: Era) -> Self {
        self.pin = Some(era);
        self
    }

    /// Speak this protocol version only (which pins its era): `2026-07-28`, or a
    /// handshake-era version to offer in `initialize` (`2025-11-25`, `2025-06-18`,
    /// `2025-03-26`).
    pub fn protocol_version(mut self, version: &str) -> Self {
        self.pin = Some(if version::MODERN_VERSIONS.contains(&version) {
            Era::Modern
        } else {
            Era::Legacy
        });
        self.version = Some(version.to_owned());
        self
    }

    /// The deadline of each operation, unless a request says otherwise
    /// ([`Request::timeout`](super::Request::timeout)): a request with all its rounds, a
    /// listing with all its pages, [`connect`](ClientBuilder::connect) with its probe and
    /// handshake (`notifications/initialized` included); every byte of the server's
    /// answers must come within it. [`Client::close`] waits at most this long for the
    /// DELETE that ends a handshake-era session. Default: 60 seconds.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long the stdio probe (`server/discover`) waits for an answer before the client
    /// takes the server for a handshake-era one that stays silent. Default: 5 seconds.
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// The client's name and version, as the server sees them (`clientInfo`).
    pub fn client_info(mut self, name: &str, version: &str) -> Self {
        self.client_info = json!({"name": name, "version": version});
        self
    }

    /// Client capabilities to declare besides those of the handlers (a
    /// `ClientCapabilities` object, e.g. `{"extensions": {..}}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    answering_methods!(host.answers);

    /// Ask for the server's log messages at `level` and above (2026-07-28: the `logLevel`
    /// of each request's `_meta`; handshake era: `logging/setLevel` after the handshake,
    /// if the server has the `logging` capability), and give each `notifications/message`
    /// params (`level`, `logger`, `data`) to `log`.
    pub fn on_log(mut self, level: LogLevel, log: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.log_level = Some(level);
        self.host.log = Some(Arc::new(log));
        self
    }

    /// Keep cacheable results in `cache` (shared with the other clients given it) instead
    /// of a cache of this client's own: see [`Cache`] for what is kept and for whom.
    pub fn cache(mut self, cache: &Cache) -> Self {
        self.cache = Some(cache.clone());
        self
    }

    /// Apply `policy` to the content of every tool result, resource read and prompt the
    /// server sends: see [`ContentPolicy`]. Default: none, the content arrives as the
    /// server sent it.
    pub fn content_policy(mut self, policy: ContentPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// These limits and this timeout where they are tighter than the builder's own.
    pub(crate) fn at_most(mut self, limits: Limits, timeout: Duration) -> Self {
        self.limits = self.limits.tightest(limits);
        self.timeout = self.timeout.min(timeout);
        self
    }

    /// Bound what the server may send: see [`Limits`]. Default: [`Limits::default`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Start (stdio) or reach (HTTP) the server and find out its era: see [`Client`].
    pub async fn connect(mut self) -> Result<Client, ClientError> {
        if let Some(error) = self.header_error {
            return Err(ClientError::transport(error));
        }
        let declared = self.host.answers.declare(self.capabilities.as_ref());
        let cache = self.bound_cache(&declared);
        let invalidate = cache.clone();
        self.host.changed = Some(Arc::new(move |notification| {
            invalidate.notified(&notification)
        }));
        let host = Arc::new(self.host);
        let ids = Arc::new(AtomicU64::new(1));
        let wire = match self.target {
            Target::Stdio(command) => Wire::Stdio(Box::new(stdio::Pipe::spawn(
                command,
                host.clone(),
                self.limits,
            )?)),
            Target::Http(url) => Wire::Http(Arc::new(http::Endpoint::new(
                &url,
                self.headers,
                host.clone(),
                ids.clone(),
                self.limits,
                self.timeout,
            )?)),
        };
        let modern_version = match (&self.version, self.pin) {
            (Some(version), Some(Era::Modern)) => version.clone(),
            _ => version::MODERN.to_owned(),
        };
        let mut meta =
            exchange::modern_meta(&modern_version, declared.clone(), self.client_info.clone());
        if let (Some(level), Value::Object(map)) = (self.log_level, &mut meta) {
            map.insert(meta::LOG_LEVEL.into(), json!(level));
        }
        let mut client = Inner {
            wire,
            era: Era::Modern,
            version: modern_version,
            discovered: Value::Null,
            server_info: None,
            capabilities: json!({}),
            instructions: None,
            meta,
            timeout: self.timeout,
            host,
            ids,
            cache,
            policy: self.policy,
            limits: self.limits,
            closed: std::sync::atomic::AtomicBool::new(false),
        };
        let legacy_version = match (&self.version, self.pin) {
            (Some(version), Some(Era::Legacy)) => version.clone(),
            _ => LEGACY_OFFERED.to_owned(),
        };
        let opening = Opening {
            declared,
            client_info: self.client_info,
            log_level: self.log_level,
        };
        let mut deadline = Deadline::new(self.timeout);
        match self.pin {
            Some(Era::Legacy) => {
                client
                    .handshake(&legacy_version, &opening, &mut deadline)
                    .await?
            }
            Some(Era::Modern) => {
                if !client.discover_cached() {
                    let discovered = client.discover(&mut deadline, None).await?;
                    let result = client.discovered(result_of(discovered)?)?;
                    client.adopt_and_keep(result);
                }
            }
            None if client.discover_cached() => {}
            None => {
                // Over stdio a handshake-era server may stay silent: the probe waits less.
                let probe = match client.wire {
                    Wire::Stdio(_) => Some(self.probe_timeout),
                    Wire::Http(_) => None,
                };
                match client.probe(&mut deadline, probe).await? {
                    Probed::Modern(result) => client.adopt_and_keep(result),
                    Probed::Legacy(version) => {
                        let version = version.unwrap_or(legacy_version);
                        client.handshake(&version, &opening, &mut deadline).await?;
                    }
                }
            }
        }
        if client.era == Era::Modern {
            client.wire.speak_modern();
        }
        tracing::debug!(
            target: "mcp_runtime::client",
            transport = client.wire.transport(),
            protocol_version = client.version.as_str(),
            era = ?client.era,
            "connected"
        );
        Ok(Client {
            inner: Arc::new(client),
        })
    }
}

impl ClientBuilder {
    /// The cache this client uses, seen from its server and its credential.
    fn bound_cache(&mut self, declared: &Value) -> cache::Bound {
        let (server, credential) = match &self.target {
            Target::Http(url) => (
                cache::http_server(url),
                cache::http_credential(&self.headers),
            ),
            Target::Stdio(command) => (
                cache::stdio_server(command),
                cache::stdio_credential(command),
            ),
        };
        let declared = json!({
            "capabilities": declared,
            "clientInfo": self.client_info,
            "logLevel": self.log_level,
        });
        cache::Bound::new(
            self.cache.take().unwrap_or_default(),
            &server,
            &declared,
            credential,
        )
    }
}
