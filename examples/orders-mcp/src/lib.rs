//! An MCP server for Orders API.
//!
//! `src/api/` holds the tools `mcp openapi` generates from
//! `openapi.json` (never edited by hand); tools of your own go here.

pub mod api;

use mcp_runtime::prelude::*;

/// The server: every tool of `api`, and yours.
pub fn server(api: api::Api) -> Server {
    Server::new("orders-mcp", env!("CARGO_PKG_VERSION")).state(api)
}

/// `server`, taking callers' tokens from `issuer` (JWTs for the audience `resource`,
/// checked with the issuer's `/jwks`, tenants in the `tenant` claim) and exchanging them at
/// `exchange` for tokens for the orders API.
pub fn as_callers(
    server: Server,
    issuer: &str,
    resource: &str,
    exchange: mcp_runtime::downstream::TokenExchange,
) -> Server {
    use mcp_runtime::policy::jwt::{JwtVerifier, KeySource};
    use mcp_runtime::policy::oauth::ProtectedResource;
    let keys = KeySource::jwks_url(format!("{issuer}/jwks"));
    server
        .oauth(
            ProtectedResource::new(resource).authorization_server(issuer),
            JwtVerifier::new(issuer, resource, keys).tenant_claim("tenant"),
        )
        .exchange_tokens(exchange)
}
