use mcp_runtime::prelude::*;

/// Orders of every tenant (fixed data).
pub fn orders_of(tenant: &str) -> Vec<&'static str> {
    match tenant {
        "acme" => vec!["acme-1: anvils", "acme-2: rockets"],
        "globex" => vec!["globex-1: magnets"],
        _ => Vec::new(),
    }
}

/// Lists the orders of the caller's tenant.
#[tool(read_only, scopes("orders:read"))]
pub async fn tenant_orders(tenant: Tenant) -> Vec<String> {
    orders_of(&tenant).into_iter().map(str::to_owned).collect()
}

/// Places an order for the caller's tenant.
#[tool(scopes("orders:write"))]
pub async fn place_tenant_order(item: String, tenant: Tenant) -> String {
    format!("{tenant} ordered {item}")
}

/// Says who calls (anyone may ask).
#[tool(read_only)]
pub async fn caller(ctx: RequestContext) -> String {
    ctx.principal().map_or("anonymous".into(), |p| {
        format!(
            "{} of {} with [{}]",
            p.subject,
            p.tenant().unwrap_or("no tenant"),
            p.scopes().collect::<Vec<_>>().join(" ")
        )
    })
}

/// Sleeps for `ms` milliseconds, then says so.
#[tool(read_only)]
pub async fn nap(ms: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// One order, by tenant and position.
#[resource("tenant-orders://<tenant>/<index>", scopes("orders:read"))]
pub async fn order(tenant: String, index: usize) -> Result<String, ToolError> {
    orders_of(&tenant)
        .get(index)
        .map(|o| (*o).to_owned())
        .ok_or_else(|| ToolError::new(format!("{tenant} has no order {index}")))
}

/// The caller's profile (differs per caller, so never shared by caches).
#[resource("secured://profile")]
pub async fn profile(who: Principal) -> String {
    format!("profile of {}", who.subject)
}

/// The public price list.
#[resource("secured://prices")]
pub async fn prices() -> String {
    "anvils: 10".into()
}

/// Summarizes the caller's orders.
#[prompt(scopes("orders:read"))]
pub async fn order_summary(tenant: Tenant) -> String {
    format!("Summarize: {}", orders_of(&tenant).join("; "))
}

/// Refuses resource URIs naming another tenant than the caller's.
pub struct SameTenant;

impl Authorize for SameTenant {
    async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        let Action::ReadResource { uri, .. } = action else {
            return Ok(());
        };
        let Some(rest) = uri.strip_prefix("tenant-orders://") else {
            return Ok(());
        };
        let owner = rest.split('/').next().unwrap_or_default();
        match ctx.principal().and_then(Principal::tenant) {
            Some(tenant) if tenant == owner => Ok(()),
            _ => Err(Denied::new("that order belongs to another tenant")),
        }
    }
}

/// The secured service, without authentication configured (tests add it).
pub fn server() -> Server {
    Server::new("secured", "1.0.0")
        .only_module(module_path!())
        .authorize(SameTenant)
}
