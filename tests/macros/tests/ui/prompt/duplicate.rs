use mcp_runtime::prelude::*;

/// The first greeting.
#[prompt]
async fn greet() -> &'static str {
    "Hello"
}

mod other {
    use super::*;

    /// The second greeting, with the same name.
    #[prompt(name = "greet")]
    async fn hello() -> &'static str {
        "Hi"
    }
}

fn main() {}
