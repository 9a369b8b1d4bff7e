//! A 2025-era host in a test: the in-process handshake-era client (the book's "Protocol
//! eras" shows it).

use mcp_runtime::testing::LegacyTestClient;
use mcp_runtime::App;
use serde_json::{json, Value};

/// A 2025-06-18 host declaring `capabilities` calls `transfer`, and its user confirms when
/// the server asks.
pub async fn confirms_a_transfer(app: &App, capabilities: Value) {
    let mut client = LegacyTestClient::connect(app, "2025-06-18", capabilities)
        .await
        .unwrap()
        .answering(|method, params| {
            assert_eq!(method, "elicitation/create");
            assert_eq!(params["message"], "Send 5 cents to ann?");
            json!({"action": "accept", "content": {"confirm": true}})
        });
    assert_eq!(client.initialize_result()["protocolVersion"], "2025-06-18");
    let sent = client
        .call_tool("transfer", json!({"amount": 5, "to": "ann"}))
        .await
        .unwrap();
    assert_eq!(
        sent["content"][0]["text"],
        "Sent 5 cents to ann (quoted 5 on round 1)."
    );
}
