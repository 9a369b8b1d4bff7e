use mcp_runtime::prelude::*;

#[derive(Debug)]
struct Failure;

/// Fails with an error that has no message.
#[resource("things://one")]
async fn one() -> Result<String, Failure> {
    Err(Failure)
}

/// Fails with an error that has no message.
#[prompt]
async fn ask() -> Result<String, Failure> {
    Err(Failure)
}

fn main() {}
