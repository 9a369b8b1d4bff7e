use mcp_runtime::prelude::*;

/// The template must come first.
#[resource(name = "readme")]
async fn readme() -> &'static str {
    "hello"
}

fn main() {}
