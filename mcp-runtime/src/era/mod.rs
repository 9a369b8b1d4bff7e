//! Era adapters: between wire messages and the core's `Call`/`Reply`.
//!
//! `modern` serves the stateless 2026-07-28 revision: every request carries its version and
//! client capabilities in `_meta`, results carry `resultType`, cache hints and `serverInfo`.
//! `legacy` (cargo feature `legacy`, on by default) serves the handshake revisions
//! 2025-11-25, 2025-06-18 and 2025-03-26 through sessions opened with `initialize`. Neither
//! the core nor any handler knows which era it serves.

#[cfg(feature = "legacy")]
use std::sync::Arc;

#[cfg(feature = "legacy")]
pub(crate) mod legacy;
pub mod modern;
pub(crate) mod select;

pub(crate) use select::{Era, Facts};

/// A request as either era starts serving it: its params, the name of its target (which
/// its context carries), and its span and count (`observe::watch`).
pub(crate) struct Started {
    pub(crate) params: crate::protocol::Params,
    pub(crate) name: Option<String>,
    pub(crate) span: tracing::Span,
    pub(crate) counted: crate::observe::Counted,
}

/// Start serving a request resolved as `target`.
pub(crate) fn start(
    core: &crate::core::Core,
    inbound: &Inbound,
    id: &crate::protocol::RequestId,
    (method, params, meta): (
        &str,
        Option<crate::protocol::Params>,
        Option<&crate::protocol::meta::Meta>,
    ),
    target: &crate::core::Resolved,
) -> Started {
    let params = params.unwrap_or_default();
    let name = params.target(target.method()).map(str::to_owned);
    let request = (method, name.as_deref(), id);
    let (span, counted) = crate::observe::watch(
        core,
        inbound.transport,
        request,
        target.metric_label(),
        meta,
    );
    Started {
        params,
        name,
        span,
        counted,
    }
}

/// What a transport knows about one request besides the message itself (a core type:
/// the context is built from it).
pub use crate::core::Inbound;

/// The era settings transports need, built once with the server. (State that lives
/// with a transport, such as handshake-era HTTP sessions, is the app's.)
#[derive(Clone)]
pub(crate) struct Eras {
    /// The handshake-era adapter's settings.
    #[cfg(feature = "legacy")]
    pub(crate) legacy: Arc<legacy::LegacyConfig>,
}

impl Eras {
    #[cfg(feature = "legacy")]
    pub(crate) fn new(legacy: legacy::LegacyConfig) -> Self {
        Eras {
            legacy: Arc::new(legacy),
        }
    }

    #[cfg(not(feature = "legacy"))]
    pub(crate) fn new() -> Self {
        Eras {}
    }
}
