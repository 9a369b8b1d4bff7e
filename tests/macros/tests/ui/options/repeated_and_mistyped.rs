use mcp_runtime::prelude::*;

/// Reads.
#[tool(title = "A", title = "B", name = 5, idempotent = "yes")]
async fn read() -> &'static str {
    "ok"
}

fn main() {}
