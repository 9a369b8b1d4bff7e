//! The generated server in front of the inventory API it was generated from: every call
//! goes through the generated tools to the real service (SQLite in memory, on a local
//! port) and back. Paging reaches the end without losing a row, a create retried under its
//! key creates once, a confirmed delete runs once, and business errors arrive typed.

use inventory_mcp::api::{Api, Secret};
use mcp_runtime::testing::TestClient;
use serde_json::{json, Value};

/// The inventory API on a local port, and a client of the generated server in front of it
/// (confirming every question with `confirm`).
async fn setup(confirm: bool) -> TestClient {
    let inventory = inventory_api::Inventory::open(":memory:")
        .await
        .expect("an in-memory inventory");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, inventory_api::router(inventory, "test-key"))
            .await
            .ok();
    });
    let api = Api::new(format!("http://{address}"))
        .with_credential("api_key", Secret::ApiKey("test-key".into()));
    let app = inventory_mcp::server(api)
        .build()
        .expect("the server builds");
    TestClient::new(app).on_elicit(move |_question| async move {
        json!({"action": "accept", "content": {"confirm": confirm}})
    })
}

fn item(n: usize) -> Value {
    json!({
        "name": format!("bolt {n}"),
        "sku": format!("BLT-{n:03}"),
        "quantity": 10,
        "priceCents": 25,
        "tags": ["steel"],
        "category": "parts",
    })
}

fn with_key(mut arguments: Value, key: &str) -> Value {
    arguments["idempotencyKey"] = json!(key);
    arguments
}

#[tokio::test]
async fn paging_reaches_every_item_once() {
    let client = setup(true).await;
    for n in 0..23 {
        let created = client
            .call_tool("create_item", with_key(item(n), &format!("k{n}")))
            .await;
        assert_eq!(created["isError"], Value::Null, "{created}");
    }
    let mut seen = Vec::new();
    for page in 1.. {
        let listed = client
            .call_tool("list_items", json!({"page": page, "perPage": 5}))
            .await;
        let items = listed["structuredContent"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if items.is_empty() {
            break;
        }
        seen.extend(
            items
                .iter()
                .map(|i| i["sku"].as_str().unwrap_or_default().to_owned()),
        );
        assert_eq!(listed["structuredContent"]["total"], 23);
    }
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (23, 23), "{seen:?}");
}

#[tokio::test]
async fn a_create_retried_under_its_key_creates_once() {
    let client = setup(true).await;
    let first = client
        .call_tool("create_item", with_key(item(1), "retry-1"))
        .await;
    let again = client
        .call_tool("create_item", with_key(item(1), "retry-1"))
        .await;
    assert_eq!(first["structuredContent"], again["structuredContent"]);
    let listed = client.call_tool("list_items", json!({})).await;
    assert_eq!(listed["structuredContent"]["total"], 1);
    // Without a key of its own, a call still gets one: the API requires it.
    let keyless = client.call_tool("create_item", item(2)).await;
    assert_eq!(keyless["isError"], Value::Null, "{keyless}");
}

#[tokio::test]
async fn business_errors_arrive_typed() {
    let client = setup(true).await;
    client
        .call_tool("create_item", with_key(item(1), "a"))
        .await;
    let duplicate = client
        .call_tool("create_item", with_key(item(1), "b"))
        .await;
    assert_eq!(duplicate["isError"], true);
    let error = &duplicate["structuredContent"]["error"];
    assert_eq!(error["code"], "http_409", "{duplicate}");
    assert_eq!(error["detail"]["code"], "duplicate_sku");
    assert_eq!(error["detail"]["sku"], "BLT-001");

    let id = client.call_tool("list_items", json!({})).await["structuredContent"]["items"][0]["id"]
        .clone();
    let short = client
        .call_tool("reserve_item", json!({"itemId": id, "quantity": 11}))
        .await;
    assert_eq!(
        short["structuredContent"]["error"]["detail"]["code"], "insufficient_stock",
        "{short}"
    );
    assert_eq!(
        short["structuredContent"]["error"]["detail"]["available"],
        10
    );
    let missing = client.call_tool("get_item", json!({"itemId": 999})).await;
    assert_eq!(
        missing["structuredContent"]["error"]["code"], "http_404",
        "{missing}"
    );
}

#[tokio::test]
async fn a_delete_runs_once_and_only_when_confirmed() {
    let declined = setup(false).await;
    declined
        .call_tool("create_item", with_key(item(1), "a"))
        .await;
    let refused = declined
        .call_tool("delete_item", json!({"itemId": 1}))
        .await;
    assert_eq!(
        refused["structuredContent"]["error"]["code"], "not_confirmed",
        "{refused}"
    );
    let still = declined.call_tool("get_item", json!({"itemId": 1})).await;
    assert_eq!(still["isError"], Value::Null, "{still}");

    let client = setup(true).await;
    client
        .call_tool("create_item", with_key(item(1), "a"))
        .await;
    let deleted = client.call_tool("delete_item", json!({"itemId": 1})).await;
    assert_eq!(
        deleted["content"][0]["text"], "Done (HTTP 204).",
        "{deleted}"
    );
    let again = client.call_tool("delete_item", json!({"itemId": 1})).await;
    assert_eq!(
        again["structuredContent"]["error"]["code"], "http_404",
        "{again}"
    );
}
