// The URI given as a named option, as `name = ..` and `mime = ..` are.
use mcp_runtime::prelude::*;

/// One bike, as JSON.
#[resource(uri = "bikes://<id>", mime = "application/json")]
async fn bike(id: u64) -> Option<String> {
    Some(format!("{{\"id\":{id}}}"))
}

fn main() {}
