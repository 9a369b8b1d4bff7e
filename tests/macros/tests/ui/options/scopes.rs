use mcp_runtime::prelude::*;

/// A scope with a space in it.
#[tool(scopes("orders:read", "orders write"))]
async fn spaced() {}

/// The same scope twice.
#[tool(scopes("orders:read", "orders:read"))]
async fn twice() {}

/// An empty list.
#[prompt(scopes())]
async fn empty() -> String {
    String::new()
}

/// A string instead of a list.
#[resource("orders://<id>", scopes = "orders:read")]
async fn order(id: u64) -> String {
    id.to_string()
}

/// A misspelled option.
#[tool(scope("orders:read"))]
async fn misspelled() {}

fn main() {}
