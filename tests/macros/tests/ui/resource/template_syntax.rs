use mcp_runtime::prelude::*;

/// An unclosed variable.
#[resource("orders://<id")]
async fn unclosed(id: u32) -> String {
    id.to_string()
}

/// The RFC 6570 form instead of ours.
#[resource("orders://{id}")]
async fn braces() -> String {
    String::new()
}

/// No scheme (S-211: RFC 3986 requires one).
#[resource("orders/<id>")]
async fn no_scheme(id: u32) -> String {
    id.to_string()
}

/// Two variables in a row, and an empty one.
#[resource("orders://<a><b>/<>")]
async fn adjacent(a: String, b: String) -> String {
    a + &b
}

fn main() {}
