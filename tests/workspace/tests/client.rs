//! `mcp_runtime::client::Client`: against our servers as real processes (`servers`), its
//! cache and content policy (`cache`), the book's "Calling other servers" chapter
//! (`guide`), servers we did not write (`interop`, ignored unless Node and the servers are
//! installed), and one model of answers across every client (`model`). One test binary for
//! them all, so the workspace links one program rather than five.

mod common;

#[path = "client/cache.rs"]
mod cache;
#[path = "client/guide.rs"]
mod guide;
#[path = "client/interop.rs"]
mod interop;
#[path = "client/model.rs"]
mod model;
#[path = "client/servers.rs"]
mod servers;
