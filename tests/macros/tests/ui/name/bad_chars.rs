use mcp_runtime::prelude::*;

/// Looks an order up.
#[tool(name = "look up order")]
async fn lookup() -> &'static str {
    "found"
}

fn main() {}
