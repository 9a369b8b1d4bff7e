use mcp_runtime::prelude::*;

/// A view.
#[view("ui://orders/board")]
fn board() -> &'static str {
    ""
}

/// A second view at the same URI.
#[view("ui://orders/board")]
fn board_again() -> &'static str {
    ""
}

/// A resource at the same URI.
#[resource("ui://orders/board")]
fn board_resource() -> &'static str {
    ""
}

fn main() {}
