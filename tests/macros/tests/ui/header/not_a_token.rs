// S-186: an x-mcp-header name is an RFC 9110 token without control characters; each bad
// name is reported at the character that breaks it.
use mcp_runtime::prelude::*;

/// Runs a query.
#[tool]
async fn query(
    #[header("Region Code")] region: String,
    #[header("Tenant:Id")] tenant: String,
    #[header("Zoné")] zone: String,
    #[header("Trace\r\nX-Evil")] trace: String,
) -> String {
    format!("{region}{tenant}{zone}{trace}")
}

fn main() {}
