// ANCHOR: uses
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
// ANCHOR_END: uses

/// Adds two integers.
#[tool(read_only, idempotent)]
pub async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Greets someone, politely by default.
#[tool(name = "greet", title = "Greeter")]
pub fn greeting(
    /// Who to greet.
    name: String,
    /// Use an informal greeting.
    casual: Option<bool>,
) -> String {
    if casual.unwrap_or(false) {
        format!("Hi {name}!")
    } else {
        format!("Good day, {name}.")
    }
}

// ANCHOR: place_order
/// A new order.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct NewOrder {
    /// Stock keeping unit.
    pub sku: String,
    /// How many; at least one.
    #[schemars(range(min = 1))]
    pub quantity: u32,
}

/// The placed order.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Receipt {
    /// Order number.
    pub order: u64,
    /// What was ordered.
    pub sku: String,
}

/// Places an order.
#[tool(destructive = false, open_world = false)]
pub async fn place_order(Args(order): Args<NewOrder>) -> Result<Receipt, ToolError> {
    if order.sku == "discontinued" {
        return Err(
            ToolError::new("That product is discontinued; pick another SKU.")
                .with_detail(serde_json::json!({"sku": order.sku})),
        );
    }
    Ok(Receipt {
        order: 1001,
        sku: order.sku,
    })
}
// ANCHOR_END: place_order

/// Always panics, to show a panic fails only its own call.
#[tool]
pub async fn explode() -> String {
    panic!("boom")
}

/// Needs the client's elicitation capability.
#[tool]
pub async fn needs_elicitation(ctx: RequestContext) -> Result<String, RpcError> {
    ctx.client_capabilities().require("elicitation")?;
    Ok(format!(
        "elicitation declared on {}",
        ctx.protocol_version()
    ))
}

/// Deletes everything (refused by the test authorizer).
#[tool(destructive)]
pub async fn wipe() -> &'static str {
    "wiped"
}
