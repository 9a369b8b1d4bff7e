//! Serves {{name}} over stdio, or over HTTP with `--http ADDR`.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    {{crate}}::server()?.serve_from_args().await
}
