// Every way to misspell the attribute, each with the form to write instead.
use mcp_runtime::prelude::*;

/// Runs a query.
#[tool]
async fn query(
    #[header] region_code: String,
    #[header(Tenant)] tenant: String,
    #[header = "Zone"] zone: String,
    #[header("Shard")]
    #[header("Partition")]
    shard: u32,
    #[header("Mcp-Param-Trace")] trace: String,
) -> String {
    format!("{region_code}{tenant}{zone}{shard}{trace}")
}

fn main() {}
