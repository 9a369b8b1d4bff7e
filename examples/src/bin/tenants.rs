//! A multi-tenant order service: several organisations share one server, and a caller
//! sees, lists and changes only the orders of its own tenant.
//!
//! - Who calls comes from a bearer token (HTTP) or from the host's environment (stdio);
//!   the token's `tenant` claim names the organisation.
//! - Each tool, resource and prompt declares the scopes it needs; a token without them
//!   gets 403 with an `insufficient_scope` challenge before anything runs.
//! - Tools take the caller's `Tenant` and touch nothing else; the `SameTenant` hook refuses
//!   resource URIs that name another tenant.
//! - Lists hide what the caller's scopes do not allow, and are then `cacheScope: private`.
//!
//! Run it against the development issuer (see the book's "Securing a server"):
//!
//! ```text
//! cargo run -p mcp-examples --bin dev-issuer -- --http 127.0.0.1:9000
//! MCP_ISSUER=http://127.0.0.1:9000 cargo run -p mcp-examples --bin tenants -- --http 127.0.0.1:8080
//! ```
//!
//! Settings (environment): `MCP_ISSUER` (the token issuer; without it HTTP is served
//! without tokens, on loopback only), `MCP_JWKS_URL` (default
//! `$MCP_ISSUER/.well-known/jwks.json`), `MCP_RESOURCE` (this server's URI, the audience
//! tokens must name; default `http://ADDR/mcp`). On stdio: `MCP_PRINCIPAL`, `MCP_TENANT`,
//! `MCP_SCOPES`, or `MCP_ACCESS_TOKEN` checked against the issuer.

// ANCHOR: uses
use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_runtime::policy::jwt::{JwtVerifier, KeySource};
use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::prelude::*;
use mcp_runtime::process::{self, Mode};
// ANCHOR_END: uses

/// One order of one tenant.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
struct Order {
    /// Order number, unique within the tenant.
    id: u32,
    /// What was ordered.
    item: String,
    /// How many.
    quantity: u32,
    /// Who placed it (the token's subject).
    placed_by: String,
}

/// A tenant's orders.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct OrderList {
    /// The tenant they belong to.
    tenant: String,
    /// Its orders, oldest first.
    orders: Vec<Order>,
}

// ANCHOR: store
/// Every tenant's orders, in memory, keyed by tenant.
struct Orders(Mutex<BTreeMap<String, Vec<Order>>>);

impl Orders {
    fn sample() -> Orders {
        let order = |id, item: &str, quantity, by: &str| Order {
            id,
            item: item.to_owned(),
            quantity,
            placed_by: by.to_owned(),
        };
        let mut all = BTreeMap::new();
        all.insert(
            "acme".to_owned(),
            vec![
                order(1, "anvil", 2, "wile"),
                order(2, "rocket skates", 1, "wile"),
            ],
        );
        all.insert("globex".to_owned(), vec![order(1, "magnet", 40, "hank")]);
        Orders(Mutex::new(all))
    }

    /// Run `f` on one tenant's orders (and only those).
    fn of<T>(&self, tenant: &str, f: impl FnOnce(&mut Vec<Order>) -> T) -> T {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(all.entry(tenant.to_owned()).or_default())
    }
}
// ANCHOR_END: store

// ANCHOR: tools
/// Lists your organisation's orders.
#[tool(read_only, scopes("orders:read"))]
async fn list_orders(tenant: Tenant, orders: State<Orders>) -> Json<OrderList> {
    let list = orders.of(&tenant, |orders| orders.clone());
    Json(OrderList {
        tenant: tenant.0,
        orders: list,
    })
}

/// Places an order for your organisation.
#[tool(scopes("orders:write"))]
async fn place_order(
    /// What to order.
    item: String,
    /// How many (1 to 1000).
    quantity: u32,
    who: Principal,
    tenant: Tenant,
    orders: State<Orders>,
) -> Result<Json<Order>, ToolError> {
    if !(1..=1000).contains(&quantity) {
        return Err(ToolError::new("quantity must be between 1 and 1000"));
    }
    let order = orders.of(&tenant, |orders| {
        let order = Order {
            id: orders.iter().map(|o| o.id).max().unwrap_or(0) + 1,
            item,
            quantity,
            placed_by: who.subject.clone(),
        };
        orders.push(order.clone());
        order
    });
    Ok(Json(order))
}

/// Cancels one of your organisation's orders.
#[tool(destructive, idempotent, scopes("orders:admin"))]
async fn cancel_order(
    /// The order number.
    id: u32,
    tenant: Tenant,
    orders: State<Orders>,
) -> Result<String, ToolError> {
    orders.of(&tenant, |orders| {
        let before = orders.len();
        orders.retain(|o| o.id != id);
        if orders.len() < before {
            Ok(format!("Order {id} of {tenant} cancelled."))
        } else {
            Err(ToolError::new(format!("{tenant} has no order {id}")))
        }
    })
}
// ANCHOR_END: tools

// ANCHOR: resource
/// One order as JSON. The URI names the tenant; `SameTenant` refuses other tenants'.
#[resource(
    "orders://<tenant>/<id>",
    mime = "application/json",
    scopes("orders:read")
)]
async fn order(tenant: String, id: u32, orders: State<Orders>) -> Result<Json<Order>, RpcError> {
    orders
        .of(&tenant, |orders| {
            orders.iter().find(|o| o.id == id).cloned()
        })
        .map(Json)
        .ok_or_else(|| RpcError::resource_not_found(&format!("orders://{tenant}/{id}")))
}

/// Refuses resource URIs that name another tenant than the caller's.
struct SameTenant;

impl Authorize for SameTenant {
    async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        let Action::ReadResource { uri, .. } = action else {
            return Ok(());
        };
        let owner = uri
            .strip_prefix("orders://")
            .and_then(|rest| rest.split('/').next());
        let caller = ctx.principal().and_then(Principal::tenant);
        match (owner, caller) {
            (Some(owner), Some(caller)) if owner == caller => Ok(()),
            (Some(_), _) => Err(Denied::new("that order belongs to another tenant")),
            (None, _) => Ok(()),
        }
    }
}
// ANCHOR_END: resource

/// Review your organisation's open orders.
#[prompt(scopes("orders:read"))]
async fn review_orders(tenant: Tenant, orders: State<Orders>) -> String {
    let lines: Vec<String> = orders.of(&tenant, |orders| {
        orders
            .iter()
            .map(|o| {
                format!(
                    "- #{} {} x {} (by {})",
                    o.id, o.quantity, o.item, o.placed_by
                )
            })
            .collect()
    });
    format!(
        "Review the open orders of {tenant} and point out anything unusual:\n{}",
        lines.join("\n")
    )
}

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = process::parse_args(std::env::args().skip(1))?;
    process::init_logging();
    let mut server = Server::new("tenants", env!("CARGO_PKG_VERSION"))
        .instructions("Orders of the caller's organisation: list, place, cancel, review.")
        .state(Orders::sample())
        .authorize(SameTenant)
        .hide_unauthorized();
    if let Ok(issuer) = std::env::var("MCP_ISSUER") {
        let resource = match (std::env::var("MCP_RESOURCE"), &mode) {
            (Ok(resource), _) => resource,
            (Err(_), Mode::Http(addr)) => format!("http://{addr}/mcp"),
            (Err(_), _) => "http://127.0.0.1/mcp".to_owned(),
        };
        let jwks = std::env::var("MCP_JWKS_URL")
            .unwrap_or_else(|_| format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')));
        let verifier = JwtVerifier::new(&issuer, &resource, KeySource::jwks_url(jwks));
        let metadata = ProtectedResource::new(&resource)
            .authorization_server(&issuer)
            .scopes_supported(["orders:read", "orders:write", "orders:admin"])
            .name("Tenant orders");
        server = server.oauth(metadata, verifier);
    }
    server.build()?.serve(mode).await
}
// ANCHOR_END: main
