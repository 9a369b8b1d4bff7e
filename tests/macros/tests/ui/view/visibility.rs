use mcp_runtime::prelude::*;

/// Not a visibility.
#[tool(visibility = user)]
async fn user() -> &'static str {
    "ok"
}

/// A string is not one either.
#[tool(visibility = "app")]
async fn text() -> &'static str {
    "ok"
}

/// Nobody at all.
#[tool(visibility = [])]
async fn nobody() -> &'static str {
    "ok"
}

/// `model` twice.
#[tool(visibility = [model, model])]
async fn twice() -> &'static str {
    "ok"
}

/// A tool continues another's pages, not its own, and names it by its wire name.
#[tool(continues = "own")]
async fn own() -> &'static str {
    "ok"
}

/// Not a tool name.
#[tool(continues = "next page")]
async fn spaced() -> &'static str {
    "ok"
}

fn main() {}
