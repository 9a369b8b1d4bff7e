//! The benchmark server: one tool, `add {a, b}`, answering text `"5"` and structured
//! content `{"sum": 5}` with an output schema, as every peer of the side-by-side benchmark
//! does. Argument validation and the authorization step run as in any server.
//!
//! `cargo run --release -p mcp-examples --bin bench-server -- --http 127.0.0.1:8080`
//!
//! `BENCH_AUDIT=1` adds the audit trail (`Server::audit(AuditLog)`), and
//! `MCP_METRICS_ADDR` the metrics, to measure what each costs per call.

// ANCHOR: uses
use mcp_runtime::prelude::*;
// ANCHOR_END: uses

// ANCHOR: add
/// The sum of two integers.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    /// `a + b`.
    sum: i64,
}

/// Adds two integers.
#[tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Json<Sum>, ToolError> {
    let sum = a.checked_add(b).ok_or_else(|| ToolError::new("overflow"))?;
    Ok(Json(Sum { sum }).with_text(sum.to_string()))
}
// ANCHOR_END: add

fn main() -> Result<(), mcp_runtime::Error> {
    use mcp_runtime::process::{self, Mode};
    let mode = process::parse_args(std::env::args().skip(1))?;
    process::init_logging();
    // One client on stdio gains nothing from several threads; HTTP clients do.
    let runtime = match mode {
        Mode::Http(_) => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    }
    .map_err(mcp_runtime::Error::Io)?;
    runtime.block_on(async {
        let server = Server::new("bench-server", env!("CARGO_PKG_VERSION"));
        // `BENCH_AUDIT=1`: every call also goes to the audit trail, written to the logs,
        // to measure what the audit costs per call.
        let server = if std::env::var_os("BENCH_AUDIT").is_some() {
            server.audit(mcp_runtime::audit::AuditLog)
        } else {
            server
        };
        server.build()?.serve(mode).await
    })
}
