//! Which era a message belongs to, decided in one place for every transport.
//!
//! A message that names the stateless revision (a 2026-07-28 `MCP-Protocol-Version`
//! header, or any protocol version in `_meta`) is modern, whatever else it carries. Else
//! (with the `legacy` feature) it is the handshake era's when it is an `initialize`, when
//! it belongs to a session already open, or when its `MCP-Protocol-Version` header names
//! an enabled handshake revision. Anything else is the modern adapter's (to serve or to
//! refuse). What the transport does with the answer (stdio fixes the era of its process;
//! HTTP asks again for every request) is the transport's.

use crate::protocol::meta::Meta;
use crate::protocol::version;

use super::Eras;

/// The era that serves one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// The stateless 2026-07-28 adapter.
    Modern,
    /// The handshake-era adapter, through a session.
    #[cfg(feature = "legacy")]
    Legacy,
}

/// What a transport knows about a message that bears on its era.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Facts<'a> {
    /// The JSON-RPC method, when the message is one request or notification.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) method: Option<&'a str>,
    /// `params._meta` names a protocol version.
    pub(crate) names_version: bool,
    /// The `MCP-Protocol-Version` header (HTTP only).
    pub(crate) header_version: Option<&'a str>,
    /// The message belongs to a handshake-era session (HTTP: it names one in
    /// `Mcp-Session-Id`; stdio: the process opened one).
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) in_session: bool,
}

impl<'a> Facts<'a> {
    /// The facts a message's method and params give.
    pub(crate) fn of(method: Option<&'a str>, meta: Option<&Meta>) -> Self {
        let names_version = meta.and_then(Meta::protocol_version).is_some();
        Facts {
            method,
            names_version,
            ..Facts::default()
        }
    }
}

impl Eras {
    /// The era that serves a message with these facts.
    pub(crate) fn select(&self, facts: &Facts<'_>) -> Era {
        let header_modern = facts
            .header_version
            .is_some_and(|v| version::MODERN_VERSIONS.contains(&v));
        if header_modern || facts.names_version {
            return Era::Modern;
        }
        #[cfg(feature = "legacy")]
        if facts.method == Some("initialize")
            || facts.in_session
            || facts.header_version.is_some_and(|v| self.legacy.speaks(v))
        {
            return Era::Legacy;
        }
        Era::Modern
    }
}

#[cfg(all(test, feature = "legacy"))]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::era::legacy::LegacyConfig;
    use crate::protocol::meta;

    fn select(facts: Facts<'_>) -> Era {
        Eras::new(LegacyConfig::default()).select(&facts)
    }

    /// A message whose `MCP-Protocol-Version` header names `version`.
    fn by_header(method: Option<&'static str>, version: &'static str) -> Facts<'static> {
        Facts {
            method,
            header_version: Some(version),
            ..Facts::default()
        }
    }

    #[test]
    fn a_message_naming_the_stateless_revision_is_modern() {
        let meta = Meta::from_value(json!({meta::PROTOCOL_VERSION: "2026-07-28"}));
        let mut facts = Facts::of(Some("initialize"), Some(&meta));
        facts.in_session = true;
        assert_eq!(select(facts), Era::Modern);
        assert_eq!(
            select(by_header(Some("initialize"), "2026-07-28")),
            Era::Modern
        );
    }

    #[test]
    fn a_handshake_a_session_or_a_handshake_revision_is_legacy() {
        assert_eq!(select(Facts::of(Some("initialize"), None)), Era::Legacy);
        assert_eq!(select(Facts::of(Some("tools/list"), None)), Era::Modern);
        let mut in_session = Facts::of(Some("tools/list"), None);
        in_session.in_session = true;
        assert_eq!(select(in_session), Era::Legacy);
        assert_eq!(
            select(by_header(Some("tools/list"), "2025-06-18")),
            Era::Legacy
        );
        assert_eq!(select(by_header(None, "2024-01-01")), Era::Modern);
    }
}
