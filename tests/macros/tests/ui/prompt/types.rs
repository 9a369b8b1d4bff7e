use mcp_runtime::prelude::*;

struct Opaque;

/// A parameter that cannot be decoded from a prompt argument.
#[prompt]
async fn opaque(value: Opaque) -> String {
    let _ = value;
    String::new()
}

/// A return type that is not prompt messages.
#[prompt]
async fn number() -> i32 {
    7
}

/// A completer that returns something else.
#[prompt(complete(topic = topics))]
async fn topic(topic: String) -> String {
    topic
}

async fn topics(_request: CompletionRequest) -> i32 {
    0
}

/// References are not owned values.
#[prompt]
async fn borrowed(text: &str) -> String {
    text.to_owned()
}

fn main() {}
