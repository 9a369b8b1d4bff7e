//! Long-running work as tasks (the `io.modelcontextprotocol/tasks` extension): a report
//! export that takes a while, and a publication that asks the user first.
//!
//! A client that declares the extension gets a task handle at once and polls `tasks/get`;
//! its status message follows the export's progress. Other clients wait for the answer.
//! Tasks are kept in the store `MCP_STORE` names (a SQLite file, or a `postgres://`
//! URL shared by several instances), else in memory.
//!
//! ```text
//! MCP_STORE=tasks.db cargo run -p mcp-examples --bin exports -- --http 127.0.0.1:8080
//! ```
//!
//! `EXPORTS_LEASE_MS` shortens the lease after which a task whose instance died is failed
//! (the tests use it).

// ANCHOR: uses
use std::time::Duration;

use mcp_runtime::prelude::*;
// ANCHOR_END: uses

/// What an export produced.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    /// Rows written.
    rows: u32,
    /// A checksum of the rows, to compare copies.
    checksum: u64,
    /// Where the report went.
    location: String,
}

// ANCHOR: export
/// Exports `rows` rows of the sales report. Takes about `rows` × 10 ms; runs as a task for
/// clients that take tasks.
#[tool(read_only, task)]
async fn export_report(
    /// How many rows to export (1 to 100 000).
    rows: u32,
    ctx: RequestContext,
    progress: Progress,
    cancel: Cancellation,
) -> Result<Json<Report>, ToolError> {
    if !(1..=100_000).contains(&rows) {
        return Err(ToolError::new("rows must be between 1 and 100000"));
    }
    // Worth a task: the client gets a handle now and polls.
    ctx.start_task();
    let mut checksum: u64 = 0;
    for row in 1..=rows {
        tokio::select! {
            _ = cancel.cancelled() => return Err(ToolError::new("export cancelled")),
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
        checksum = checksum.wrapping_mul(31).wrapping_add(u64::from(row));
        if row % 50 == 0 || row == rows {
            // For a task, this becomes its statusMessage.
            progress.report_with(f64::from(row), Some(f64::from(rows)), "Exporting rows");
        }
    }
    Ok(Json(Report {
        rows,
        checksum,
        location: format!("reports/sales-{rows}.csv"),
    }))
}
// ANCHOR_END: export

/// The publication decision.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Publish {
    /// Publish the report to every subscriber?
    publish: bool,
}

// ANCHOR: publish
/// Publishes a report to its subscribers after the user agrees.
#[tool(task = required)]
async fn publish_report(
    /// The report's name.
    name: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    ctx.start_task();
    ctx.set_status(format!("Waiting for approval to publish {name}"));
    // Inside a task, a question moves the task to input_required; the client answers
    // through tasks/update, and this function runs again from the top with the answer.
    let answer =
        ctx.elicit::<Publish>("approve", &format!("Publish {name} to every subscriber?"))?;
    Ok(match answer.accepted() {
        Some(Publish { publish: true }) => format!("{name} published."),
        _ => format!("{name} was not published."),
    })
}
// ANCHOR_END: publish

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    // How soon another instance declares a dead instance's task failed (default 15 s).
    let lease = std::env::var("EXPORTS_LEASE_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(Duration::from_secs(15), Duration::from_millis);
    Server::new("exports", env!("CARGO_PKG_VERSION"))
        .instructions("Exports and publishes sales reports; exports run as tasks.")
        // Calls still running after half a second become tasks.
        .task_after(Duration::from_millis(500))
        .task_ttl(Some(Duration::from_secs(24 * 3600)))
        .lease(lease)
        .serve_from_args()
        .await
}
// ANCHOR_END: main
