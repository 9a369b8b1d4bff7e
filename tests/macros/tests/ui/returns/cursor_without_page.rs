use mcp_runtime::prelude::*;
use mcp_runtime::{Cursor, Page};

/// Takes a cursor and returns a plain list: no call could ever get a cursor to send back.
#[tool(read_only)]
async fn rows(after: Cursor<u64>) -> Vec<u64> {
    let start = after.position().copied().unwrap_or(0);
    (start + 1..start + 10).collect()
}

/// The same in a `Result`.
#[tool(read_only)]
async fn more_rows(after: Cursor<u64>) -> Result<Vec<u64>, ToolError> {
    let _ = after;
    Ok(Vec::new())
}

/// A page, alone or in a `Result`, is what a cursor needs.
#[tool(read_only)]
async fn paged(after: Cursor<u64>) -> Result<Page<u64>, ToolError> {
    Ok(after.page(vec![1], None))
}

fn main() {}
