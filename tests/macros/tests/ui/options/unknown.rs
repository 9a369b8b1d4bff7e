use mcp_runtime::prelude::*;

/// Reads.
#[tool(readonly)]
async fn read() -> &'static str {
    "ok"
}

fn main() {}
