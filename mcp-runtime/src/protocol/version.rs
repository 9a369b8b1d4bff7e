//! Protocol revision strings.

/// The stateless revision served by the modern era adapter.
pub const MODERN: &str = "2026-07-28";

/// Every revision the modern adapter accepts in `io.modelcontextprotocol/protocolVersion`.
pub const MODERN_VERSIONS: &[&str] = &[MODERN];

/// The handshake-era revisions the legacy adapter negotiates, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The newest handshake-era revision: the counter-offer to an unknown `initialize` version.
pub const LEGACY_LATEST: &str = "2025-11-25";

/// The revision that still accepts JSON-RPC batches.
pub const BATCH_VERSION: &str = "2025-03-26";
