use mcp_runtime::prelude::*;

/// Zero bytes cannot be a limit.
#[tool(inline_limit = 0)]
async fn zero() -> &'static str {
    "ok"
}

/// A limit is a number of bytes, not text.
#[tool(inline_limit = "64 KiB")]
async fn text() -> &'static str {
    "ok"
}

/// A limit needs a value.
#[tool(inline_limit)]
async fn bare() -> &'static str {
    "ok"
}

/// `unlimited` is the only word.
#[tool(inline_limit = never)]
async fn word() -> &'static str {
    "ok"
}

fn main() {}
