//! The catalog shaped per caller as a process (`--stdio`, the default, or `--http ADDR`),
//! searching past `CATALOG_THRESHOLD` tools (default 3). Callers are named by API keys:
//! a bearer token on HTTP, `MCP_ACCESS_TOKEN` on stdio.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let threshold = std::env::var("CATALOG_THRESHOLD")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(3);
    mcp_workspace_tests::catalogs::server(threshold)
        .serve_from_args()
        .await
}
