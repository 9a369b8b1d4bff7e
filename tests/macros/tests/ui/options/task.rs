use mcp_runtime::prelude::*;

/// A task mode that does not exist.
#[tool(task = sometimes)]
async fn maybe() {}

/// A string instead of a mode.
#[tool(task = "required")]
async fn quoted() {}

fn main() {}
