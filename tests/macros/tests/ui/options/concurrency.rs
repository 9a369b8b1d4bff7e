use mcp_runtime::prelude::*;

/// No call could ever run.
#[tool(concurrency = 0)]
async fn never() {}

/// Not a number.
#[tool(concurrency = "4")]
async fn quoted() {}

/// No value.
#[tool(concurrency)]
async fn bare() {}

/// A queue with nothing to wait for.
#[tool(queue = 8)]
async fn queue_alone() {}

/// A negative queue.
#[tool(concurrency = 2, queue = -1)]
async fn negative() {}

fn main() {}
