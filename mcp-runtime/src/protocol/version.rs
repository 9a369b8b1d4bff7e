//! Protocol revision strings.

/// The stateless revision served by the modern era adapter.
pub const MODERN: &str = "2026-07-28";

/// Every revision the modern adapter accepts in `io.modelcontextprotocol/protocolVersion`.
pub const MODERN_VERSIONS: &[&str] = &[MODERN];
