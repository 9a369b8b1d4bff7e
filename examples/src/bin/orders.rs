//! An order desk that asks the user before it deletes anything.
//!
//! `delete_order` shows the multi round-trip pattern: the first call answers
//! `input_required` with a confirmation form; the client asks its user and calls again with
//! the answer, and the handler runs again from the top, this time getting it. Nothing is
//! stored between the two calls, so any instance with the same `MCP_SEAL_KEY` can finish
//! a deletion another instance started.
//!
//! `cargo run -p mcp-examples --bin orders -- --http 127.0.0.1:8080`

// ANCHOR: uses
use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_runtime::prelude::*;
// ANCHOR_END: uses

/// An open order.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
struct Order {
    /// Order number.
    id: u64,
    /// Who placed it.
    customer: String,
    /// Amount due, in cents.
    total_cents: u64,
}

/// The open orders, in memory.
struct Orders(Mutex<BTreeMap<u64, Order>>);

impl Orders {
    fn sample() -> Self {
        let orders = [(1, "Ada", 1250), (2, "Grace", 4999), (3, "Linus", 300)]
            .into_iter()
            .map(|(id, customer, total_cents)| {
                let order = Order {
                    id,
                    customer: customer.to_owned(),
                    total_cents,
                };
                (id, order)
            })
            .collect();
        Orders(Mutex::new(orders))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Order>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

// ANCHOR: confirm
/// The confirmation form the user fills in.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ConfirmDeletion {
    /// Delete the order for good?
    confirm: bool,
}

/// Deletes an order after the user confirms it in a form.
#[tool(destructive, idempotent)]
async fn delete_order(
    /// The order number.
    id: u64,
    orders: State<Orders>,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let order = orders
        .lock()
        .get(&id)
        .cloned()
        .ok_or_else(|| ToolError::new(format!("There is no open order {id}.")))?;
    let question = format!(
        "Delete order {id} of {} over {}.{:02}?",
        order.customer,
        order.total_cents / 100,
        order.total_cents % 100
    );
    // Without an answer in the request, `?` ends this call with `input_required`.
    let answer = ctx.elicit::<ConfirmDeletion>("confirm_delete", &question)?;
    match answer {
        Elicitation::Accepted(ConfirmDeletion { confirm: true }) => {
            orders.lock().remove(&id);
            ctx.server().resource_updated(&format!("orders://{id}"));
            Ok(format!("Order {id} deleted."))
        }
        Elicitation::Accepted(_) | Elicitation::Declined => {
            Ok(format!("Order {id} was not deleted: the user said no."))
        }
        Elicitation::Cancelled => Ok(format!("Order {id} was not deleted: the user cancelled.")),
    }
}
// ANCHOR_END: confirm

/// Lists the open orders.
#[tool(read_only)]
async fn list_orders(orders: State<Orders>) -> Json<Vec<Order>> {
    Json(orders.lock().values().cloned().collect())
}

/// One open order, as JSON.
#[resource("orders://<id>", mime = "application/json", cache = private, ttl = "0s")]
async fn order(id: u64, orders: State<Orders>) -> Option<Json<Order>> {
    orders.lock().get(&id).cloned().map(Json)
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    // ANCHOR: eras
    let server = Server::new("orders", env!("CARGO_PKG_VERSION"))
        .instructions("Deleting an order asks the user to confirm first.")
        .state(Orders::sample());
    // Settings of the handshake era exist only while the `legacy` feature is on, so a
    // build without it (modern-only) still compiles.
    #[cfg(feature = "legacy")]
    let server = server
        .session_idle_timeout(std::time::Duration::from_secs(15 * 60))
        .client_request_timeout(std::time::Duration::from_secs(120));
    server.serve_from_args().await
    // ANCHOR_END: eras
}
