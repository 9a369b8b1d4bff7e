// `readonly` instead of `read_only`.
use mcp_runtime::prelude::*;

/// Counts the bikes needing repair.
#[tool(readonly)]
async fn count_broken() -> usize {
    714
}

fn main() {}
