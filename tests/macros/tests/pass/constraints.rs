//! `#[schemars(..)]` on tool parameters, beside doc comments, `#[header]` and extractors.

use mcp_runtime::prelude::*;

/// Orders some units.
#[tool]
async fn order(
    /// How many; at least one.
    #[schemars(range(min = 1, max = 100))]
    quantity: u32,
    #[schemars(length(min = 1, max = 64), regex(pattern = r"^[A-Z0-9-]+$"))] sku: String,
    /// Where to ship, when not the default address.
    #[schemars(length(min = 1))]
    address: Option<String>,
    #[header("Region")]
    #[schemars(length(equal = 2))]
    region: String,
    ctx: RequestContext,
) -> String {
    let _ = (address, ctx);
    format!("{quantity} x {sku} from {region}")
}

fn main() {}
