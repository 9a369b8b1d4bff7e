//! The large-result fixtures as a process, for measuring what serving big artifacts costs
//! (see `scripts/artifact-rss.sh`). The store comes from `MCP_STORE` as for any server;
//! `--stdio` (the default) or `--http ADDR` as for any server.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    mcp_workspace_tests::large::server().serve_from_args().await
}
