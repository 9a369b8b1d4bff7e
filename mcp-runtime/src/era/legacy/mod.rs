//! The handshake-era adapter: 2025-11-25, 2025-06-18 and 2025-03-26 clients, served by the
//! same core and the same handlers as modern ones.
//!
//! A legacy client opens a [`Session`] with `initialize`; the session holds what the
//! modern era carries on every request (version, client capabilities, log level) plus the
//! resource subscriptions and the server's own requests to the client. Each request is
//! turned into a core [`Call`](crate::core::Call) with a context built from the session,
//! and the core's [`Reply`](crate::core::Reply) gets the negotiated version's wire shape
//! ([`shape`]). When a handler asks for input (`ctx.elicit`, `ctx.sample`, `ctx.roots`), the
//! core answers `input_required`; the adapter sends each question to the client as a real
//! request (`elicitation/create`, `sampling/createMessage`, `roots/list`), waits for the
//! answers and runs the handler again with them, exactly like a modern client's retry.
//!
//! Which era a message belongs to is decided by the era layer's selector, for both
//! transports (stdio: the first request decides for the process; HTTP: each request on
//! its own); the HTTP side of a session (its id
//! header, event streams, `GET` and `DELETE`) is the HTTP transport's. Compile this module
//! out with the `legacy` cargo feature and the server is modern-only.

mod answer;
mod session;
pub(crate) mod shape;

use std::time::Duration;

use crate::protocol::version;

pub(crate) use session::{Portable, Session};

/// Settings of the handshake-era adapter.
#[derive(Debug, Clone)]
pub(crate) struct LegacyConfig {
    /// The revisions `initialize` may settle on, newest first.
    pub(crate) versions: Vec<&'static str>,
    /// How long the server waits for the client to answer one of its requests.
    pub(crate) client_request_timeout: Duration,
    /// Most input rounds (server-to-client request batches) one call may take.
    pub(crate) max_input_rounds: u32,
    /// An HTTP session unused this long (and with no open stream) ends.
    pub(crate) session_idle_timeout: Duration,
    /// Most HTTP sessions held at once; the least recently used one ends to make room.
    pub(crate) max_sessions: usize,
    /// Events kept per response stream for clients that reconnect with `Last-Event-ID`
    /// (the oldest go first).
    pub(crate) replay_events: usize,
    /// The reconnection delay suggested to clients when a stream is released.
    pub(crate) sse_retry: Duration,
}

impl Default for LegacyConfig {
    fn default() -> Self {
        LegacyConfig {
            versions: version::LEGACY_VERSIONS.to_vec(),
            client_request_timeout: Duration::from_secs(300),
            max_input_rounds: 16,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            replay_events: 256,
            sse_retry: Duration::from_millis(500),
        }
    }
}

impl LegacyConfig {
    /// The revision to answer `initialize` with: the client's when enabled, else the
    /// newest enabled one (the client decides whether it can speak that).
    /// `None` when no handshake revision is enabled.
    pub(crate) fn negotiate(&self, requested: &str) -> Option<&'static str> {
        self.versions
            .iter()
            .copied()
            .find(|v| *v == requested)
            .or_else(|| self.versions.first().copied())
    }

    /// Whether `version` is an enabled handshake-era revision.
    pub(crate) fn speaks(&self, version: &str) -> bool {
        self.versions.contains(&version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_keeps_a_supported_version_and_counter_offers_the_newest() {
        let config = LegacyConfig::default();
        assert_eq!(config.negotiate("2025-06-18"), Some("2025-06-18"));
        assert_eq!(config.negotiate("2025-03-26"), Some("2025-03-26"));
        assert_eq!(config.negotiate("2024-11-05"), Some("2025-11-25"));
        // Never a modern version: this is the handshake.
        assert_eq!(config.negotiate("2026-07-28"), Some("2025-11-25"));
        let only = LegacyConfig {
            versions: vec!["2025-06-18"],
            ..LegacyConfig::default()
        };
        assert_eq!(only.negotiate("2025-11-25"), Some("2025-06-18"));
        let none = LegacyConfig {
            versions: vec![],
            ..LegacyConfig::default()
        };
        assert_eq!(none.negotiate("2025-11-25"), None);
    }
}
