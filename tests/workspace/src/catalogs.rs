//! A catalog shaped per caller: tools in two versions, tags enabled and disabled while the
//! server runs, items only one tenant or one scope may see, and search past a small
//! threshold. The callers are named by API keys on HTTP and by the environment on stdio.

// ANCHOR: uses
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::prelude::*;
use mcp_runtime::{Listed, ToolSearch};
// ANCHOR_END: uses

// ANCHOR: versions
/// Refunds a customer's payment (the first version: the whole amount only).
#[tool(name = "refund", version = "1", tags("billing"))]
pub async fn refund_v1(payment: String) -> String {
    format!("v1 refunded {payment}")
}

/// Refunds a customer's payment, in part or whole, with a reason.
#[tool(name = "refund", version = "2", tags("billing"))]
pub async fn refund_v2(payment: String, amount_cents: Option<i64>) -> String {
    match amount_cents {
        Some(cents) => format!("v2 refunded {cents} cents of {payment}"),
        None => format!("v2 refunded {payment}"),
    }
}
// ANCHOR_END: versions

/// Sends an invoice by email to a customer.
#[tool(tags("billing"))]
pub async fn send_invoice(customer: String) -> String {
    format!("invoice sent to {customer}")
}

/// Empties the server's caches (an operator's tool, disabled until an operator enables it).
#[tool(tags("admin"))]
pub async fn purge_caches() -> &'static str {
    "purged"
}

/// Forecasts next month's revenue from the order book (a beta for one tenant).
#[tool(tags("beta"))]
pub async fn forecast_revenue(
    /// Only this region's orders (mirrored in the `Mcp-Param-Region` header on HTTP).
    #[header("Region")]
    region: Option<String>,
) -> String {
    match region {
        Some(region) => format!("forecast for {region}: up"),
        None => "forecast: up".to_owned(),
    }
}

/// Exports the monthly sales report as a spreadsheet.
#[tool(scopes("reports:read"), tags("reports"))]
pub async fn export_sales_report(month: String) -> String {
    format!("report for {month}")
}

/// Says who is calling.
#[tool(tags("core"))]
pub async fn who_is_calling(ctx: RequestContext) -> String {
    match ctx.principal() {
        Some(p) => format!("{} of {}", p.subject, p.tenant().unwrap_or("no tenant")),
        None => "anonymous".to_owned(),
    }
}

// ANCHOR: toggle
/// Turns the operator's tools (tagged `admin`) on or off.
#[tool(tags("core"))]
pub async fn operator_tools(ctx: RequestContext, on: bool) -> Result<String, ToolError> {
    let server = ctx.server();
    if on {
        let changed = server
            .enable_tag("admin")
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(format!("enabled: {changed}"))
    } else {
        Ok(format!("disabled: {}", server.disable_tag("admin")))
    }
}
// ANCHOR_END: toggle

/// The notes of the beta (only for the tenant that has the beta).
#[resource("catalog://beta/notes", tags("beta"))]
pub async fn beta_notes() -> &'static str {
    "beta notes"
}

/// Drafts the announcement of the beta.
#[prompt(tags("beta"))]
pub async fn beta_announcement() -> String {
    "Announce the beta.".to_owned()
}

// ANCHOR: rule
/// Who may see what: the beta only its tenant ("acme"), scoped items only callers with
/// their scopes.
pub fn rule(ctx: &RequestContext, item: &Listed<'_>) -> bool {
    let principal = ctx.principal();
    let beta_ok =
        !item.tags().contains(&"beta") || principal.and_then(|p| p.tenant()) == Some("acme");
    let scopes_ok = item
        .required_scopes()
        .iter()
        .all(|scope| principal.is_some_and(|p| p.has_scope(scope)));
    beta_ok && scopes_ok
}
// ANCHOR_END: rule

/// The API keys of the HTTP callers: `acme-analyst-key-0001` (tenant acme, `reports:read`),
/// `globex-clerk-key-0002` (tenant globex, no scope).
pub fn keys() -> ApiKeys {
    let keys = ApiKeys::new()
        .key(
            "acme-analyst-key-0001",
            Principal::new("ana")
                .with_tenant("acme")
                .with_scopes(["reports:read"]),
        )
        .and_then(|keys| {
            keys.key(
                "globex-clerk-key-0002",
                Principal::new("gus").with_tenant("globex"),
            )
        });
    match keys {
        Ok(keys) => keys,
        Err(error) => panic!("the fixture's keys are valid: {error}"),
    }
}

// ANCHOR: server
/// The server: operator tools disabled, the rule above, search past `threshold` tools
/// with the `core` tools pinned.
pub fn server(threshold: usize) -> Server {
    Server::new("catalogs", "1.0.0")
        .only_module(module_path!())
        .disable_tags(["admin"])
        .visible_if(rule)
        .tool_search(ToolSearch::new().threshold(threshold).pin_tags(["core"]))
        .verify_tokens(keys())
}
// ANCHOR_END: server
