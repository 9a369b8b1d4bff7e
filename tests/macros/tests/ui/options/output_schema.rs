use mcp_runtime::prelude::*;

/// The schema is on by default: there is nothing to turn on.
#[tool(output_schema)]
async fn bare() -> u32 {
    1
}

/// The same, spelled out.
#[tool(output_schema = true)]
async fn on() -> u32 {
    1
}

/// Not a flag.
#[tool(output_schema = "none")]
async fn text() -> u32 {
    1
}

fn main() {}
