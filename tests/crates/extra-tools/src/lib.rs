//! A library crate with tools, a resource and a prompt, to show registration crosses crate
//! boundaries.

use mcp_runtime::prelude::*;

/// Repeats the text back.
#[tool(read_only)]
pub async fn echo(
    /// Text to repeat.
    text: String,
) -> String {
    text
}

/// Reverses the text.
#[tool(name = "text.reverse", read_only)]
pub fn reverse(text: String) -> String {
    text.chars().rev().collect()
}

/// The message of the day.
#[resource("extra://motd", mime = "text/plain")]
pub async fn motd() -> &'static str {
    "Resources register across crates too."
}

/// Asks for a haiku about a topic.
#[prompt]
pub async fn haiku(
    /// What the haiku is about.
    topic: String,
) -> String {
    format!("Write a haiku about {topic}.")
}
