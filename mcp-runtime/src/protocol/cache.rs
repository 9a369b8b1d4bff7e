//! Cache hints (`ttlMs`, `cacheScope`) for cacheable results.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Who may reuse a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Holds no user-specific data; any caller may reuse it.
    Public,
    /// Reuse only within the same authorization context.
    Private,
}

/// A freshness hint for one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// How long the result may be treated as fresh.
    pub ttl: Duration,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHints {
    /// `ttlMs` as the integer the wire wants.
    pub fn ttl_ms(&self) -> u64 {
        crate::clock::millis(self.ttl)
    }
}

impl Default for CacheHints {
    /// One minute, public: lists built from the binary's own tools do not vary by caller.
    fn default() -> Self {
        CacheHints {
            ttl: Duration::from_secs(60),
            scope: CacheScope::Public,
        }
    }
}
