use mcp_runtime::prelude::*;

struct Assistant;

impl Assistant {
    /// A method cannot be a prompt.
    #[prompt]
    async fn greet(&self) -> &'static str {
        "hello"
    }
}

/// An unnamed parameter.
#[prompt]
async fn unnamed(_: String) -> String {
    String::new()
}

/// A completer that is not a path.
#[prompt(complete(topic = "topics"), description = false)]
async fn topic(topic: String) -> String {
    topic
}

fn main() {}
