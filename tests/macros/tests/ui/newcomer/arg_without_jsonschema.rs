// An argument type that derives Deserialize but not JsonSchema.
use mcp_runtime::prelude::*;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Slot {
    pub day: String,
    pub hour: u8,
}

/// Books a workshop slot to repair a bike.
#[tool]
async fn book_repair(
    /// The bike's number.
    bike_id: u64,
    /// When.
    slot: Slot,
) -> String {
    format!("Bike {bike_id} booked for {} {}:00.", slot.day, slot.hour)
}

fn main() {}
