// An idempotency key on a read-only tool, "to be safe".
use mcp_runtime::prelude::*;

/// Counts the bikes needing repair.
#[tool(read_only, idempotency)]
async fn count_broken() -> usize {
    714
}

fn main() {}
