use mcp_runtime::prelude::*;

/// Greets.
#[tool]
async fn greet(name: &str) -> String {
    format!("hi {name}")
}

fn main() {}
