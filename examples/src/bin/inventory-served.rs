//! The inventory API's tools served straight from its OpenAPI document, without generating
//! code (the runtime's feature `openapi`): the same tools `examples/inventory-mcp` has, read
//! at start from the document and the same curation file.
//!
//! Run it from the workspace's folder with the inventory API listening (`cargo run -p
//! inventory-api -- serve`): `INVENTORY_API_KEY_KEY=dev-key cargo run -p mcp-examples --bin
//! inventory-served`. `INVENTORY_DOCUMENT` and `INVENTORY_CURATION` name other files;
//! `INVENTORY_BASE_URL` another address of the API.

// ANCHOR: uses
use mcp_runtime::openapi::{Curation, OpenApiTools};
use mcp_runtime::Server;
// ANCHOR_END: uses

/// The committed document and curation file, unless the environment names others.
fn file(variable: &str, default: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| default.to_owned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let document = file("INVENTORY_DOCUMENT", "examples/inventory-api/openapi.json");
    let curation_file = file(
        "INVENTORY_CURATION",
        "examples/inventory-mcp/mcp-openapi.toml",
    );
    let base_url = file("INVENTORY_BASE_URL", "http://127.0.0.1:8090");
    // ANCHOR: serve
    let curation = Curation::from_toml(&std::fs::read_to_string(&curation_file)?)?;
    let tools = OpenApiTools::load(&document, &curation) // a path or an https:// URL
        .await?
        .base_url(base_url) // default: the document's first server
        .credentials_from_env("INVENTORY"); // INVENTORY_API_KEY_KEY, ..._TOKEN, ..._USER/_PASSWORD
    Server::new("inventory", "1.0.0")
        .openapi(tools)
        .serve_from_args()
        .await?;
    // ANCHOR_END: serve
    Ok(())
}
