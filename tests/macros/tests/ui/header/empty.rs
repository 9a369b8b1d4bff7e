// S-185: an x-mcp-header name is never empty.
use mcp_runtime::prelude::*;

/// Runs a query.
#[tool]
async fn query(#[header("")] region: String) -> String {
    region
}

fn main() {}
