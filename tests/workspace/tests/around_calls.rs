//! Around every call: a tool's own time limit (`#[tool(timeout = ..)]`), its own
//! concurrency limit (`#[tool(concurrency = .., queue = ..)]`), the layers a server adds
//! (`Server::layer`, `Server::layer_if`), the response cache among them
//! (`Server::cache_responses`), and the audit trail (`Server::audit`). One test binary
//! for them all, so the workspace links one more program rather than five.

#[path = "around/audit.rs"]
mod audit;
#[path = "around/cache.rs"]
mod cache;
#[path = "around/concurrency.rs"]
mod concurrency;
#[path = "around/layers.rs"]
mod layers;
#[path = "around/timeout.rs"]
mod timeout;
