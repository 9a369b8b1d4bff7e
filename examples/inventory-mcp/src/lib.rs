//! An MCP server for Inventory API.
//!
//! `src/api/` holds the tools `mcp openapi` generates from
//! `../inventory-api/openapi.json` (never edited by hand); tools of your own go here.

pub mod api;

use mcp_runtime::prelude::*;

/// The server: every tool of `api`, and yours.
pub fn server(api: api::Api) -> Server {
    Server::new("inventory-mcp", env!("CARGO_PKG_VERSION")).state(api)
}
