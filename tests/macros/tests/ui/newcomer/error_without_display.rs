// A tool's error type that derives Debug but has no Display.
use mcp_runtime::prelude::*;

#[derive(Debug)]
pub enum FleetError {
    UnknownBike(u64),
    SlotTaken(String),
}

/// Books a workshop slot to repair a bike.
#[tool]
async fn book_repair(
    /// The bike's number.
    bike_id: u64,
    /// The slot, such as `2026-12-07T09:00`.
    slot: String,
) -> Result<String, FleetError> {
    if bike_id == 0 {
        return Err(FleetError::UnknownBike(bike_id));
    }
    if slot.is_empty() {
        return Err(FleetError::SlotTaken(slot));
    }
    Ok(format!("Bike {bike_id} booked for {slot}."))
}

fn main() {}
