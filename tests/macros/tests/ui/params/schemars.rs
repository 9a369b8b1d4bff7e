use mcp_runtime::prelude::*;

/// A renamed argument would be published under a name it is not read by.
#[tool]
async fn order(#[schemars(rename = "qty")] quantity: u32) -> u32 {
    quantity
}

/// A misspelled constraint.
#[tool]
async fn reorder(#[schemars(rnage(min = 1))] quantity: u32) -> u32 {
    quantity
}

/// Prompt arguments are strings without a schema.
#[prompt]
async fn greet(#[schemars(length(min = 1))] name: String) -> String {
    name
}

/// URI variables have no schema either.
#[resource("orders://<id>")]
async fn order_by_id(#[schemars(range(min = 1))] id: u64) -> String {
    id.to_string()
}

fn main() {}
