//! The view bridge (`VIEW_BRIDGE_JS`) inlined in a view's page, as its documentation shows,
//! is served whole inside the page: `resources/read` of the view returns the document with
//! the script in its `<script>` element, as a 2026-07-28 client and as a handshake-era one
//! read it. (What the script does in a browser, through the official MCP Apps host bridge,
//! is tests/browser/hello-view.mjs.)
//!
//! The in-process client is the crate's `testing` feature, which the workspace's test run
//! turns on (the examples use it).
#![cfg(feature = "testing")]

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, VIEW_BRIDGE_JS};
use serde_json::Value;

mod greeting {
    use mcp_runtime::prelude::*;

    const PAGE: &str = r#"<!DOCTYPE html>
<html><body><p id="greeting">…</p>
<script>/*VIEW_BRIDGE_JS*/</script>
<script type="module">
  const view = await mcpView.connect({ name: 'greeting', version: '1.0.0' });
  view.onToolResult((result) => {
    document.getElementById('greeting').textContent = result.structuredContent.message;
  });
</script>
</body></html>"#;

    /// A greeting, shown.
    #[view("ui://hello/greeting")]
    pub fn greeting_page() -> String {
        PAGE.replace("/*VIEW_BRIDGE_JS*/", mcp_runtime::VIEW_BRIDGE_JS)
    }
}

fn served(read: &Value) -> &str {
    let contents = &read["contents"][0];
    assert_eq!(contents["uri"], "ui://hello/greeting", "{read}");
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app", "{read}");
    contents["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {read}"))
}

fn assert_bridge_inlined(page: &str) {
    let script = format!("<script>{VIEW_BRIDGE_JS}</script>");
    assert_eq!(
        page.matches(&script).count(),
        1,
        "the bridge inlined once in:\n{page}"
    );
    assert!(
        !page.contains("/*VIEW_BRIDGE_JS*/"),
        "the placeholder is left in the page"
    );
    // The page's own script follows the bridge, which defines what it calls.
    let bridge_at = page.find(&script).unwrap();
    assert!(page.rfind("mcpView.connect(").unwrap() > bridge_at + script.len());
}

#[tokio::test]
async fn the_page_of_a_view_carries_the_bridge() {
    let app = Server::new("greeting", "1")
        .only_module(concat!(module_path!(), "::greeting"))
        .build()
        .unwrap();
    #[allow(unused_mut)]
    let mut clients = vec![("2026-07-28", TestClient::new(app.clone()))];
    #[cfg(feature = "legacy")]
    clients.push(("2025-11-25", TestClient::legacy(app, "2025-11-25")));
    for (era, client) in clients {
        let read = client.read_resource("ui://hello/greeting").await;
        let page = served(&read);
        assert_bridge_inlined(page);
        eprintln!("{era}: the page carries the bridge ({} bytes)", page.len());
    }
}
