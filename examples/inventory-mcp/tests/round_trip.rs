//! The generated server in front of the inventory API it was generated from: every call
//! goes through the generated tools to the real service (SQLite in memory, on a local
//! port) and back. Paging reaches the end without losing a row, a create retried under its
//! key creates once, a confirmed delete runs once, and business errors arrive typed.

// ANCHOR: uses
use inventory_mcp::api::{Api, Secret};
use mcp_runtime::testing::TestClient;
use serde_json::{json, Value};
// ANCHOR_END: uses

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
    // The model follows the framework's cursor; the API's page number is the server's.
    let mut seen = Vec::new();
    let mut arguments = json!({"perPage": 5});
    let mut pages = 0;
    loop {
        let listed = client.call_tool("list_items", arguments.clone()).await;
        let page = &listed["structuredContent"];
        let items = page["items"].as_array().cloned().unwrap_or_default();
        seen.extend(
            items
                .iter()
                .map(|i| i["sku"].as_str().unwrap_or_default().to_owned()),
        );
        assert_eq!(page["total"], 23, "{listed}");
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(cursor) => arguments["cursor"] = json!(cursor),
            None => break,
        }
    }
    // Five pages of 5, 5, 5, 5 and 3: the short one is the last, with no cursor after it.
    assert_eq!(pages, 5);
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

/// A server in front of an API at `base_url` with the key `test-key`.
fn client_of(base_url: String) -> TestClient {
    let api = Api::new(base_url).with_credential("api_key", Secret::ApiKey("test-key".into()));
    TestClient::new(
        inventory_mcp::server(api)
            .build()
            .expect("the server builds"),
    )
}

#[tokio::test]
async fn a_failing_or_absent_api_is_an_error_the_model_can_act_on() {
    // An API that fails.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let failing =
        axum::Router::new().fallback(|| async { axum::http::StatusCode::SERVICE_UNAVAILABLE });
    tokio::spawn(async move { axum::serve(listener, failing).await.ok() });
    let result = client_of(format!("http://{address}"))
        .call_tool("get_item", json!({"itemId": 1}))
        .await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["structuredContent"]["error"]["code"], "api_failed",
        "{result}"
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("503"),
        "{result}"
    );

    // No API at all (a port nothing listens on).
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    let result = client_of(format!("http://{address}"))
        .call_tool("get_item", json!({"itemId": 1}))
        .await;
    assert_eq!(
        result["structuredContent"]["error"]["code"], "api_unavailable",
        "{result}"
    );
}

#[tokio::test]
async fn the_api_gets_the_deployment_s_key_and_nothing_of_the_caller_s() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<axum::http::HeaderMap>>> = Arc::default();
    let record = seen.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let recording = axum::Router::new().fallback(move |headers: axum::http::HeaderMap| {
        let record = record.clone();
        async move {
            record.lock().unwrap().push(headers);
            axum::Json(
                json!({"id": 1, "name": "bolt", "sku": "BLT-1", "quantity": 1, "reserved": 0,
                "available": 1, "priceCents": 1, "tags": [], "category": "parts"}),
            )
        }
    });
    tokio::spawn(async move { axum::serve(listener, recording).await.ok() });
    let caller = mcp_runtime::Principal::new("alice").with_scopes(["inventory:read"]);
    client_of(format!("http://{address}"))
        .as_principal(caller)
        .call_tool("get_item", json!({"itemId": 1}))
        .await;
    let seen = seen.lock().unwrap();
    let headers = &seen[0];
    assert_eq!(headers["x-api-key"], "test-key");
    assert!(
        headers.get("authorization").is_none() && headers.get("cookie").is_none(),
        "{headers:?}"
    );
}

#[tokio::test]
async fn a_label_is_handed_on_as_an_artifact_the_caller_reads() {
    let client = setup(true).await;
    client
        .call_tool("create_item", with_key(item(7), "label"))
        .await;
    let linked = client.call_tool("item_label", json!({"itemId": 1})).await;
    assert_eq!(linked["isError"], Value::Null, "{linked}");
    // The model reads a line about the file, not the file.
    let link = &linked["structuredContent"];
    assert_eq!(link["mimeType"], "image/svg+xml", "{linked}");
    assert_eq!(
        link["summary"],
        "Print an item's shelf label (image/svg+xml): GET /items/1/label"
    );
    let uri = link["uri"].as_str().unwrap();
    assert!(uri.starts_with("artifact://"), "{uri}");
    // The caller reads the whole label back.
    let read = client.request("resources/read", json!({"uri": uri})).await;
    let contents = &read["result"]["contents"][0];
    // SVG is XML, so it comes back as text.
    let svg = contents["text"].as_str().unwrap_or_default();
    assert!(svg.contains(">BLT-007</text>"), "{read}");
}

// ANCHOR: pinned
/// The tools generated from the document, as callers see them, are pinned
/// (`catalog.json`): generating again from a changed document fails here until the file is
/// written anew (`MCP_CATALOG=overwrite`) and the change reviewed with `mcp catalog diff`.
#[tokio::test]
async fn the_catalog_is_pinned() {
    let app = inventory_mcp::server(Api::new("http://127.0.0.1:8090"))
        .build()
        .expect("the server builds");
    mcp_runtime::testing::assert_catalog(&app, "catalog.json").await;
}
// ANCHOR_END: pinned
