//! Tools whose schemas the Tools chapter explains: constraints on parameters, parameters
//! with and without doc comments, and a structured result without an output schema.

// ANCHOR: uses
use mcp_runtime::prelude::*;
use serde::Serialize;
// ANCHOR_END: uses

// ANCHOR: constrained
/// Orders units of one product.
#[tool]
pub async fn order_units(
    /// Stock keeping unit, such as `BOLT-M6`.
    #[schemars(length(min = 1, max = 32), regex(pattern = r"^[A-Z0-9-]+$"))]
    sku: String,
    /// How many; from 1 to 500.
    #[schemars(range(min = 1, max = 500))]
    quantity: u32,
) -> String {
    format!("Ordered {quantity} x {sku}.")
}
// ANCHOR_END: constrained

/// Looks an order up.
#[tool(read_only)]
pub async fn find_order(
    id: u64,
    /// Include the order's lines.
    lines: Option<bool>,
) -> String {
    format!("order {id}, lines: {}", lines.unwrap_or(false))
}

// ANCHOR: no_output_schema
/// A balance, from a type that has no JSON Schema.
#[derive(Serialize)]
pub struct Balance {
    pub cents: i64,
    pub currency: &'static str,
}

/// Shows the account's balance.
#[tool(read_only, output_schema = false)]
pub async fn balance() -> Balance {
    Balance {
        cents: 1250,
        currency: "EUR",
    }
}
// ANCHOR_END: no_output_schema

/// These tools alone.
pub fn server() -> Server {
    Server::new("schemas", "1.0.0").only_module(module_path!())
}
