// `scopes = "..."` instead of `scopes("...")`.
use mcp_runtime::prelude::*;

/// Books a workshop slot to repair a bike.
#[tool(idempotency, scopes = "fleet:write")]
async fn book_repair(bike_id: u64, slot: String) -> String {
    format!("Bike {bike_id} booked for {slot}.")
}

fn main() {}
