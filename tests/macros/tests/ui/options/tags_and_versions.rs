use mcp_runtime::prelude::*;

/// A tag with a space in it.
#[tool(tags("billing", "for admins"))]
async fn spaced() {}

/// The same tag twice.
#[tool(tags("billing", "billing"))]
async fn twice() {}

/// An empty list.
#[prompt(tags())]
async fn empty() -> String {
    String::new()
}

/// A string instead of a list.
#[resource("orders://<id>", tags = "billing")]
async fn order(id: u64) -> String {
    id.to_string()
}

/// A version that is not numbers joined by dots.
#[tool(version = "v2")]
async fn lettered() {}

/// A version that is not a string.
#[tool(version = 2)]
async fn unquoted() {}

/// One version of a name.
#[tool(name = "refund", version = "1")]
async fn refund_v1() {}

/// The same version of the same name again.
#[tool(name = "refund", version = "1")]
async fn refund_again() {}

fn main() {}
