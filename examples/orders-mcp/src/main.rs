//! Serves the API's tools over stdio, or over HTTP with `--http ADDR`, calling the API as
//! each caller. The environment names the authorization server:
//!
//! - `ORDERS_MCP_ISSUER`: the issuer of callers' tokens (JWTs checked with its `/jwks`);
//! - `ORDERS_MCP_RESOURCE`: this server's resource URI, the audience callers' tokens name;
//! - `ORDERS_MCP_TOKEN_ENDPOINT`, `ORDERS_MCP_CLIENT_ID`, `ORDERS_MCP_CLIENT_SECRET`: where
//!   and as whom this server exchanges callers' tokens for the API's.

use mcp_runtime::downstream::{ClientAuth, TokenExchange};

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let exchange = TokenExchange::new(
        var("ORDERS_MCP_TOKEN_ENDPOINT"),
        ClientAuth::secret_basic(var("ORDERS_MCP_CLIENT_ID"), var("ORDERS_MCP_CLIENT_SECRET")),
    );
    orders_mcp::as_callers(
        orders_mcp::server(orders_mcp::api::Api::from_env()),
        &var("ORDERS_MCP_ISSUER"),
        &var("ORDERS_MCP_RESOURCE"),
        exchange,
    )
    .serve_from_args()
    .await
}
