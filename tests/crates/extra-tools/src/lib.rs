//! A library crate with tools, to show `#[tool]` registration crosses crate boundaries.

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
