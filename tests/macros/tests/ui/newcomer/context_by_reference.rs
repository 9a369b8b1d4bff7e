// The request context taken by reference, as a borrow seems enough.
use mcp_runtime::prelude::*;

/// The user's answer.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    /// Retire the bike for good?
    pub confirm: bool,
}

/// Retires a bike for good, once the user confirms it.
#[tool(destructive)]
async fn retire_bike(
    /// The bike's number.
    bike_id: u64,
    ctx: &RequestContext,
) -> Result<String, ToolError> {
    match ctx.elicit::<Confirm>("confirm", &format!("Retire bike {bike_id}?"))? {
        Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!("Bike {bike_id} retired.")),
        _ => Ok(format!("Bike {bike_id} stays.")),
    }
}

fn main() {}
