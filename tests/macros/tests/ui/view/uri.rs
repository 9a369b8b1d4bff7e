use mcp_runtime::prelude::*;

/// A view's URI is a `ui://` one.
#[view("https://orders.example.com/board")]
fn web() -> &'static str {
    ""
}

/// Nothing after the scheme.
#[view("ui://")]
fn nameless() -> &'static str {
    ""
}

/// A view has one fixed URI: no variables.
#[view("ui://orders/<id>")]
fn templated() -> &'static str {
    ""
}

/// A tool's `ui` is a view's URI too.
#[tool(ui = "orders://board")]
async fn orders() -> &'static str {
    "ok"
}

/// `ui` takes a string.
#[tool(ui = board)]
async fn bare() -> &'static str {
    "ok"
}

fn main() {}
