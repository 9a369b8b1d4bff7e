// S-187: header names compare case-insensitively, so two arguments cannot share one.
use mcp_runtime::prelude::*;

/// Copies between regions.
#[tool]
async fn copy(#[header("Region")] from: String, #[header("REGION")] to: String) -> String {
    format!("{from} -> {to}")
}

fn main() {}
