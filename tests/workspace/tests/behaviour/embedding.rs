//! The MCP endpoint as one route of a team's own axum app (the book's "Getting started"
//! shows it).

use axum::routing::get;
use mcp_runtime::Server;

/// The team's app: its own routes, and `server` at `/mcp`.
pub fn app(server: Server) -> Result<axum::Router, mcp_runtime::Error> {
    let mcp = server.router()?;
    Ok(axum::Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(mcp))
}
