use mcp_runtime::prelude::*;

/// Serde attributes on a parameter are read by nothing.
#[tool]
async fn order(#[serde(default)] quantity: u32) -> u32 {
    quantity
}

/// Nor on a prompt's.
#[prompt]
async fn greet(#[serde(rename = "who")] name: String) -> String {
    name
}

/// Nor on a resource's.
#[resource("orders://<id>")]
async fn order_by_id(#[serde(alias = "number")] id: u64) -> String {
    id.to_string()
}

fn main() {}
