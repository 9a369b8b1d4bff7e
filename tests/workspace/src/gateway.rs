// ANCHOR: uses
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mcp_runtime::prelude::*;
// ANCHOR_END: uses

/// Calls that reached a handler.
#[derive(Default)]
pub struct Ledger {
    /// How many.
    pub calls: AtomicUsize,
}

// ANCHOR: move_stock
/// Where stock is kept.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Region {
    /// Frankfurt.
    Eu,
    /// Virginia.
    Us,
}

impl mcp_runtime::HeaderArg for Region {}

/// Moves stock; a gateway routes on the region and rate-limits per tenant.
#[tool(destructive)]
pub async fn move_stock(
    /// Whose stock.
    #[header("Tenant")]
    tenant: String,
    /// Where it is kept.
    #[header("Region")]
    region: Region,
    /// How many units.
    #[header("Units")]
    units: i64,
    /// Only check that the move is possible.
    #[header("Dry-Run")]
    dry_run: Option<bool>,
    /// A note for the audit log.
    note: Option<String>,
    ledger: State<Arc<Ledger>>,
) -> String {
    ledger.calls.fetch_add(1, Ordering::SeqCst);
    format!(
        "{units} units for {tenant} in {region:?} (dry run: {}, note: {})",
        dry_run.unwrap_or(false),
        note.as_deref().unwrap_or("none")
    )
}
// ANCHOR_END: move_stock

// ANCHOR: shipment
/// Where a shipment goes, as an object inside the arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[schemars(inline)]
pub struct Destination {
    /// ISO country code.
    #[schemars(extend("x-mcp-header" = "Country"))]
    pub country: String,
    /// City.
    pub city: String,
}

/// One shipment.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Shipment {
    /// Whose shipment.
    #[schemars(extend("x-mcp-header" = "Tenant"))]
    pub tenant: String,
    /// Where it goes.
    pub destination: Destination,
    /// Priority from 0 to 9, when it matters (one type, as a header carries).
    #[schemars(extend("type" = "integer", "x-mcp-header" = "Priority"))]
    pub priority: Option<u8>,
}

/// Books a shipment.
#[tool]
pub async fn book_shipment(Args(shipment): Args<Shipment>, ledger: State<Arc<Ledger>>) -> String {
    ledger.calls.fetch_add(1, Ordering::SeqCst);
    format!(
        "Shipping for {} to {}, {} (priority {})",
        shipment.tenant,
        shipment.destination.city,
        shipment.destination.country,
        shipment.priority.unwrap_or(5)
    )
}
// ANCHOR_END: shipment
