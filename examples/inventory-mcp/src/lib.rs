//! An MCP server for Inventory API: the tools `mcp openapi` generates from `../inventory-api/openapi.json` (in
//! `src/api/`, never edited by hand), and any tools of your own, here.

pub mod api;

use mcp_runtime::prelude::*;

/// The server: every tool of `api`, and yours.
pub fn server(api: api::Api) -> Server {
    Server::new("inventory-mcp", env!("CARGO_PKG_VERSION")).state(api)
}
