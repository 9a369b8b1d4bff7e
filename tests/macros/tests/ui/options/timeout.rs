use mcp_runtime::prelude::*;

/// A unit the option does not know.
#[tool(timeout = "30 seconds")]
async fn worded() {}

/// No unit.
#[tool(timeout = "30")]
async fn bare() {}

/// Zero: a call that may not run at all.
#[tool(timeout = "0s")]
async fn zero() {}

/// More than a day.
#[tool(timeout = "25h")]
async fn too_long() {}

/// A number instead of a string.
#[tool(timeout = 30)]
async fn unquoted() {}

/// A fraction.
#[tool(timeout = "1.5s")]
async fn fraction() {}

fn main() {}
