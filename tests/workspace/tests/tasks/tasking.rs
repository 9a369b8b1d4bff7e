//! The in-process client of the Tasks tests (the book's "Long-running work" shows it).

use mcp_runtime::testing::TestClient;
use mcp_runtime::App;
use serde_json::json;

/// The extension's name, as clients declare it.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A client declaring the extension (and form elicitation).
pub fn tasking(app: &App) -> TestClient {
    TestClient::new(app.clone()).with_capabilities(json!({
        "elicitation": {"form": {}},
        "extensions": {TASKS: {}}
    }))
}
