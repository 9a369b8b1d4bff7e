//! Every operation the document gives is a tool a client can list, with its arguments'
//! schema; the API itself is not called.

use mcp_runtime::testing::TestClient;
use serde_json::json;

#[tokio::test]
async fn the_operations_are_tools_with_their_schemas() {
    let app = {{crate}}::server({{crate}}::api::Api::from_env())
        .build()
        .expect("the server builds");
    let listed = TestClient::new(app).request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().expect("a list of tools");
    assert!(!tools.is_empty(), "{listed}");
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()), "{tool}");
    }
}
