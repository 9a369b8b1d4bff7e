use mcp_runtime::prelude::*;

/// Reads a balance; marked read-only and idempotent under a key, which contradict.
#[tool(read_only, idempotency)]
async fn balance() -> i64 {
    0
}

/// Reads a balance; single use makes no sense for it.
#[tool(read_only, once)]
async fn statement() -> i64 {
    0
}

/// Takes a value it does not accept.
#[tool(destructive, idempotency = "24h")]
async fn transfer() -> i64 {
    0
}

/// A flag written as a string.
#[tool(destructive, once = "yes")]
async fn close_account() -> i64 {
    0
}

fn main() {}
