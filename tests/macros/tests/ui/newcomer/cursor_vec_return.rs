// A Cursor parameter, but the tool returns a plain Vec instead of a Page.
use mcp_runtime::prelude::*;
use mcp_runtime::Cursor;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Clone, Serialize, JsonSchema)]
pub struct Bike {
    pub id: u64,
}

/// Lists the bikes needing repair, a page at a time.
#[tool(read_only)]
async fn list_bikes_needing_repair(after: Cursor<u64>) -> Vec<Bike> {
    let start = after.position().copied().unwrap_or(0);
    (start + 1..start + 51).map(|id| Bike { id }).collect()
}

fn main() {}
