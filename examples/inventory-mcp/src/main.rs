//! Serves the API's tools over stdio, or over HTTP with `--http ADDR`.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    inventory_mcp::server(inventory_mcp::api::Api::from_env())
        .serve_from_args()
        .await
}
