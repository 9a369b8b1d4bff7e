// `idempotency = true`, as the flags take `= true`.
use mcp_runtime::prelude::*;

/// Books a workshop slot to repair a bike.
#[tool(idempotency = true)]
async fn book_repair(
    /// The bike's number.
    bike_id: u64,
    /// The slot.
    slot: String,
) -> String {
    format!("Bike {bike_id} booked for {slot}.")
}

fn main() {}
