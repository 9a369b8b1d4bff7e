// A resource's option (`ttl`) on a tool, hoping to cache its result.
use mcp_runtime::prelude::*;

/// Counts the bikes needing repair.
#[tool(read_only, ttl = "30s")]
async fn count_broken() -> usize {
    714
}

fn main() {}
