use mcp_runtime::prelude::*;

/// The board.
#[view("ui://orders/board")]
fn board() -> &'static str {
    "<!DOCTYPE html><html></html>"
}

/// Names a view no `#[view]` declares (a typo of the one above).
#[tool(ui = "ui://orders/bord")]
async fn orders() -> &'static str {
    "ok"
}

/// Names the declared one: compiles.
#[tool(ui = "ui://orders/board")]
async fn board_orders() -> &'static str {
    "ok"
}

fn main() {}
