use mcp_runtime::prelude::*;

#[derive(Debug)]
struct Failure;

/// Fails with an error that has no message.
#[tool]
async fn fails() -> Result<String, Failure> {
    Err(Failure)
}

fn main() {}
