//! The interactive fixtures (elicitation, sampling, roots, progress, logs, cancellation)
//! and the gateway fixtures (tools whose arguments are mirrored into `Mcp-Param-*`
//! headers) as a process, for tests of clients over real stdio and HTTP; dual-era when
//! built with `legacy`.
//!
//! - `PROBE_FILE`: the number of cancellations `wait_for_cancel` has seen is written to
//!   that file each time it changes, so a test in another process can tell that its
//!   cancellation reached the handler.
//! - `API_KEY`: HTTP callers must present it as a bearer token, and are then the
//!   principal `api-client` (what the `whoami` tool answers).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::Principal;
use mcp_workspace_tests::gateway::Ledger;
use mcp_workspace_tests::interactive::Probe;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let probe = Arc::new(Probe::default());
    if let Ok(path) = std::env::var("PROBE_FILE") {
        let watched = probe.clone();
        tokio::spawn(async move {
            let mut seen = 0;
            loop {
                let now = watched.cancelled.load(Ordering::SeqCst);
                if now != seen {
                    seen = now;
                    let _ = std::fs::write(&path, format!("cancelled {now}\n"));
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
    }
    let mut server = mcp_workspace_tests::interactive_server(probe)
        .only_module("mcp_workspace_tests::gateway")
        .state(Arc::new(Ledger::default()));
    if let Ok(key) = std::env::var("API_KEY") {
        let keys = ApiKeys::new()
            .key(&key, Principal::new("api-client"))
            .map_err(|e| mcp_runtime::Error::Build(vec![e]))?;
        server = server.verify_tokens(keys);
    }
    server.serve_from_args().await
}
