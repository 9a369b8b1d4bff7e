//! The smallest view: a tool whose result a host shows in a page, and a button on the page
//! that calls the tool again through the host. The page is plain HTML with the view bridge
//! of mcp-runtime inlined (`mcp_runtime::VIEW_BRIDGE_JS`): no Node, no build step.
//!
//! Run it with `cargo run -p mcp-examples --bin hello-view` (stdio) or add
//! `-- --http 127.0.0.1:8080` to serve Streamable HTTP at `http://127.0.0.1:8080/mcp`.
//! tests/browser/hello-view.mjs renders its view in headless Chromium through the
//! official MCP Apps host bridge.

// ANCHOR: uses
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
// ANCHOR_END: uses

// ANCHOR: view
/// A greeting, and a button for another.
#[view("ui://hello/greeting", title = "Greetings", prefers_border = true)]
fn greeting_page() -> String {
    include_str!("../../views/hello-view.html")
        .replace("/*VIEW_BRIDGE_JS*/", mcp_runtime::VIEW_BRIDGE_JS)
}
// ANCHOR_END: view

// ANCHOR: tool
/// A greeting for someone.
#[derive(Serialize, JsonSchema)]
struct Greeting {
    /// Who is greeted.
    name: String,
    /// The words of the greeting.
    message: String,
}

/// Greets someone by name.
#[tool(read_only, idempotent, ui = "ui://hello/greeting")]
async fn greet(
    /// Who to greet.
    name: String,
) -> Greeting {
    let message = format!("Hello, {name}!");
    Greeting { name, message }
}
// ANCHOR_END: tool

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("hello-view", env!("CARGO_PKG_VERSION"))
        .serve_from_args()
        .await
}
// ANCHOR_END: main
