//! Around every call: a tool's own time limit (`#[tool(timeout = ..)]`), its own
//! concurrency limit (`#[tool(concurrency = .., queue = ..)]`), and the layers a server
//! adds (`Server::layer`, `Server::layer_if`). One test binary for the three, so the
//! workspace links one more program rather than three.

#[path = "around/concurrency.rs"]
mod concurrency;
#[path = "around/layers.rs"]
mod layers;
#[path = "around/timeout.rs"]
mod timeout;
