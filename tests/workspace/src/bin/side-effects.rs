//! The side-effect fixtures as a process, for tests that run two of them on one store or
//! kill one mid-call. `PAYMENTS_JOURNAL` names the file payments are written to;
//! `SIDE_EFFECTS_LEASE_MS` shortens the lease; the store and seal key come from
//! `MCP_STORE` and `MCP_SEAL_KEY` as for any server.

use std::time::Duration;

use mcp_workspace_tests::side_effects::{self, Payments};

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let payments = match std::env::var("PAYMENTS_JOURNAL") {
        Ok(path) => Payments::journaled(path),
        Err(_) => Payments::new(),
    };
    let mut server = side_effects::server(payments);
    if let Some(ms) = std::env::var("SIDE_EFFECTS_LEASE_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        server = server.lease(Duration::from_millis(ms));
    }
    server.serve_from_args().await
}
