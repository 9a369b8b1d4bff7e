use mcp_runtime::prelude::*;

/// Not a function.
#[tool]
struct Thing;

fn main() {}
