// A prompt of several messages returned as Vec<String>.
use mcp_runtime::prelude::*;

/// Drafts a repair summary for one bike.
#[prompt]
async fn repair_summary(
    /// The bike's number.
    bike_id: u64,
) -> Vec<String> {
    vec![
        format!("Draft a short repair summary for bike {bike_id}."),
        "Say whether it can go back into service.".to_owned(),
    ]
}

fn main() {}
