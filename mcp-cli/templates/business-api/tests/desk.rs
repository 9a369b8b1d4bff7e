//! The desk as its callers see it, in process.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use serde_json::{json, Value};

/// A caller with both scopes (an `API_KEY_WRITE` holder).
fn agent() -> TestClient {
    let app = {{crate}}::server().unwrap().build().unwrap();
    TestClient::new(app)
        .as_principal(Principal::new("agent").with_scopes(["tickets:read", "tickets:write"]))
}

#[tokio::test]
async fn the_tickets_page_to_the_end_with_none_lost_or_repeated() {
    let client = agent();
    let mut seen = Vec::new();
    let mut arguments = json!({});
    loop {
        let page = client.call_tool("list_tickets", arguments.clone()).await;
        let items = page["structuredContent"]["items"].as_array().unwrap().clone();
        seen.extend(items.iter().map(|t| t["id"].as_u64().unwrap()));
        match page["structuredContent"]["nextCursor"].as_str() {
            Some(cursor) => arguments = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert_eq!(seen, (1..=120).collect::<Vec<u64>>());
}

#[tokio::test]
async fn a_retried_open_with_its_key_opens_one_ticket() {
    let client = agent();
    let call = json!({"title": "The printer is on fire", "idempotencyKey": "3f9c2e1a-retry"});
    let first = client.call_tool("open_ticket", call.clone()).await;
    let again = client.call_tool("open_ticket", call).await;
    assert_eq!(first["structuredContent"], again["structuredContent"]);
    assert_eq!(first["structuredContent"]["id"], 121);
}

#[tokio::test]
async fn closing_asks_the_user_first() {
    let client = agent()
        .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) });
    let closed = client.call_tool("close_ticket", json!({"id": 7})).await;
    assert_eq!(closed["content"][0]["text"], "Ticket 7 closed.");
    let ticket = client.read_resource("tickets://7").await;
    let ticket: Value = serde_json::from_str(ticket["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(ticket["status"], "closed");

    let declined = agent().on_elicit(|_| async { json!({"action": "decline"}) });
    let kept = declined.call_tool("close_ticket", json!({"id": 8})).await;
    assert_eq!(kept["content"][0]["text"], "Ticket 8 stays open: the user did not confirm.");
}

#[tokio::test]
async fn a_reader_cannot_write() {
    let app = {{crate}}::server().unwrap().build().unwrap();
    let reader = TestClient::new(app)
        .as_principal(Principal::new("reader").with_scopes(["tickets:read"]));
    let refused = reader.call_tool("open_ticket", json!({"title": "Hi"})).await;
    assert_eq!(refused["error"]["code"], -31403, "{refused}");
    let listed = reader.call_tool("list_tickets", json!({"status": "open"})).await;
    assert_eq!(listed["structuredContent"]["items"][0]["id"], 1);
}

#[tokio::test]
async fn hosts_that_render_views_get_the_tickets_page() {
    let client = agent();
    let listed = client.request("tools/list", json!({})).await;
    let tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "list_tickets")
        .unwrap()
        .clone();
    let uri = tool["_meta"]["ui"]["resourceUri"].as_str().unwrap().to_owned();
    assert_eq!(uri, "ui://{{name}}/tickets");
    let page = client.read_resource(&uri).await;
    let html = page["contents"][0]["text"].as_str().unwrap();
    // The view bridge is inlined: the page needs nothing but the host.
    assert!(html.contains(mcp_runtime::VIEW_BRIDGE_JS), "{html}");
    assert!(html.contains("mcpView.connect"));
}

