//! Large results: a paged search over 10,000 rows, artifacts made on purpose, and results
//! too large to send inline.

// ANCHOR: uses
use mcp_runtime::prelude::*;
use mcp_runtime::{Artifact, ArtifactLink, Cursor, Page};
use serde::{Deserialize, Serialize};
// ANCHOR_END: uses

/// How many rows the search has.
pub const ROWS: u64 = 10_000;

/// One row of the search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    /// Its id, 1 to [`ROWS`].
    pub id: u64,
    /// The account searched.
    pub account: String,
    /// An amount in cents.
    pub amount_cents: i64,
}

/// Searches an account's rows, `limit` at a time (50 unless given).
#[tool(read_only)]
async fn search(
    /// The account.
    account: String,
    /// Rows per page, 1 to 500.
    limit: Option<u64>,
    after: Cursor<u64>,
) -> Result<Page<Row>, ToolError> {
    let limit = limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(ToolError::new("limit must be between 1 and 500"));
    }
    let start = after.position().copied().unwrap_or(0);
    let rows: Vec<Row> = (start + 1..=(start + limit).min(ROWS))
        .map(|id| Row {
            id,
            account: account.clone(),
            amount_cents: (id as i64 * 37) % 1000 - 500,
        })
        .collect();
    let next = rows.last().map(|row| row.id).filter(|id| *id < ROWS);
    Ok(after.page(rows, next).total_about(ROWS))
}

/// Searches the archived rows: the same rows, for telling one paged tool's cursors from
/// another's.
#[tool(read_only)]
async fn search_archive(
    /// The account.
    account: String,
    /// Rows per page, 1 to 500.
    limit: Option<u64>,
    after: Cursor<u64>,
) -> Result<Page<Row>, ToolError> {
    search(account, limit, after).await
}

/// The bytes of an export of `size` bytes: a repeating pattern, so any part can be
/// checked.
pub fn export_bytes(size: usize) -> Vec<u8> {
    (0..size).map(|i| (i % 251) as u8).collect()
}

/// Exports `size` bytes as an artifact (bytes, or CSV text when `csv`).
#[tool(read_only)]
async fn export(
    size: u64,
    csv: Option<bool>,
    ctx: RequestContext,
) -> Result<ArtifactLink, ToolError> {
    let artifact = if csv == Some(true) {
        let mut text = String::from("id,amount\n");
        let mut id = 0u64;
        while (text.len() as u64) < size {
            id += 1;
            text.push_str(&format!("{id},{}\n", id * 7 % 1000));
        }
        Artifact::text(text).mime("text/csv").name("export.csv")
    } else {
        Artifact::bytes(export_bytes(size as usize))
            .mime("application/octet-stream")
            .name("export.bin")
    };
    Ok(ctx
        .save_artifact(artifact.summary(format!("{size} bytes exported")))
        .await?)
}

/// Exports `size` bytes streamed in 64 KiB chunks, as a body produced on the fly.
#[tool(read_only)]
async fn export_stream(size: u64, ctx: RequestContext) -> Result<ArtifactLink, ToolError> {
    let chunk = 64 * 1024;
    let chunks = (0..size.div_ceil(chunk)).map(move |n| {
        let start = n * chunk;
        let end = (start + chunk).min(size);
        Ok::<_, std::convert::Infallible>(
            (start..end).map(|i| (i % 251) as u8).collect::<Vec<u8>>(),
        )
    });
    Ok(ctx
        .save_artifact(Artifact::stream(futures_util::stream::iter(chunks)).name("stream.bin"))
        .await?)
}

/// Exports a report only holders of `reports:read` may see.
#[tool(read_only, scopes("reports:read"))]
async fn secret_report(ctx: RequestContext) -> Result<ArtifactLink, ToolError> {
    Ok(ctx
        .save_artifact(Artifact::text("the secret report").name("report.txt"))
        .await?)
}

/// Returns `lines` lines of text, whole.
#[tool(read_only)]
async fn log_lines(lines: u64) -> String {
    (1..=lines)
        .map(|n| format!("line {n}: something happened\n"))
        .collect()
}

/// Returns `count` rows as structured output.
#[tool(read_only)]
async fn all_rows(count: u64) -> Vec<Row> {
    (1..=count)
        .map(|id| Row {
            id,
            account: "acme".into(),
            amount_cents: id as i64,
        })
        .collect()
}

// ANCHOR: inline_limits
/// Returns `lines` lines of text, never stored as an artifact.
#[tool(read_only, inline_limit = unlimited)]
async fn log_lines_whole(lines: u64) -> String {
    (1..=lines)
        .map(|n| format!("line {n}: something happened\n"))
        .collect()
}

/// Returns `lines` lines of text, stored as an artifact past 1 KiB.
#[tool(read_only, inline_limit = 1024)]
async fn log_lines_small(lines: u64) -> String {
    (1..=lines)
        .map(|n| format!("line {n}: something happened\n"))
        .collect()
}
// ANCHOR_END: inline_limits

/// Returns `lines` lines of text as a task (the Tasks extension): its result is stored
/// when it ends.
#[tool(read_only, task)]
async fn log_lines_later(lines: u64, ctx: RequestContext) -> String {
    ctx.start_task();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    (1..=lines)
        .map(|n| format!("line {n}: something happened\n"))
        .collect()
}

/// The large-result fixtures.
pub fn server() -> Server {
    Server::new("large", "1.0.0").only_module(module_path!())
}
