// A resource returning the record itself, as a tool may.
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Clone, Serialize, JsonSchema)]
pub struct Bike {
    pub id: u64,
    pub station: String,
}

/// One bike, as JSON.
#[resource("bikes://<id>", mime = "application/json")]
async fn bike(id: u64) -> Option<Bike> {
    Some(Bike { id, station: "Central".into() })
}

fn main() {}
