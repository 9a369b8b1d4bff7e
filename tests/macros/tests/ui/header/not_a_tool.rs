// Prompts and resources have no arguments a client mirrors into headers.
use mcp_runtime::prelude::*;

/// Reviews code.
#[prompt]
async fn review(#[header("Lang")] language: String) -> String {
    language
}

/// One order.
#[resource("orders://<id>")]
async fn order(#[header("Order")] id: u64) -> String {
    id.to_string()
}

fn main() {}
