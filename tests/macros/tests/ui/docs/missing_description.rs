use mcp_runtime::prelude::*;

#[tool]
async fn undocumented() -> &'static str {
    "?"
}

fn main() {}
