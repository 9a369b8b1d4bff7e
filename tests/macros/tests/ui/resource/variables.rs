use mcp_runtime::prelude::*;

/// The variable and the parameter disagree: both sides are named.
#[resource("orders://<order_id>")]
async fn mismatch(id: u32) -> String {
    id.to_string()
}

/// A variable appears twice.
#[resource("pairs://<x>/<x>")]
async fn twice(x: String) -> String {
    x
}

/// The catch-all is not last.
#[resource("files:///<path..>/meta")]
async fn not_last(path: String) -> String {
    path
}

fn main() {}
