//! What a tool's signature puts in its schemas: `#[schemars(..)]` constraints on a
//! parameter (published, and enforced before the handler runs: S-183, S-196), doc comments
//! as descriptions (and none without one), and `output_schema = false` (structured content
//! without an `outputSchema`, S-191).

use mcp_runtime::testing::TestClient;
use serde_json::{json, Value};

fn client() -> TestClient {
    TestClient::new(
        mcp_workspace_tests::schemas::server()
            .build()
            .expect("the schema fixtures build"),
    )
}

/// The listed tool `name`.
async fn listed(client: &TestClient, name: &str) -> Value {
    let list = client.request("tools/list", json!({})).await;
    list["result"]["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .find(|t| t["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("`{name}` is listed: {list}"))
}

#[tokio::test]
async fn constraints_on_parameters_are_published_with_their_descriptions() {
    // S-183
    let client = client();
    let tool = listed(&client, "order_units").await;
    let schema = &tool["inputSchema"];
    assert_eq!(
        schema["properties"]["quantity"],
        json!({
            "type": "integer",
            "format": "uint32",
            "minimum": 1,
            "maximum": 500,
            "description": "How many; from 1 to 500."
        }),
        "{schema}"
    );
    let sku = &schema["properties"]["sku"];
    assert_eq!(sku["type"], "string");
    assert_eq!(
        (&sku["minLength"], &sku["maxLength"]),
        (&json!(1), &json!(32))
    );
    assert_eq!(sku["pattern"], "^[A-Z0-9-]+$");
    assert_eq!(sku["description"], "Stock keeping unit, such as `BOLT-M6`.");
    assert_eq!(schema["required"], json!(["sku", "quantity"]));
}

#[tokio::test]
async fn constraints_on_parameters_are_enforced_before_the_tool_runs() {
    // S-196: a value outside the published range is refused as an invalid argument, which
    // the model can read and correct (S-192); the handler never sees it.
    let client = client();
    let refused = client
        .call_tool("order_units", json!({"sku": "BOLT-M6", "quantity": 0}))
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Invalid arguments for tool `order_units`:")
            && text.contains("argument /quantity")
            && text.contains("minimum of 1"),
        "{text}"
    );
    let bad_sku = client
        .call_tool("order_units", json!({"sku": "bolt m6", "quantity": 1}))
        .await;
    assert_eq!(bad_sku["isError"], true, "{bad_sku}");
    assert!(
        bad_sku["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("argument /sku"),
        "{bad_sku}"
    );

    let ordered = client
        .call_tool("order_units", json!({"sku": "BOLT-M6", "quantity": 1}))
        .await;
    assert_eq!(ordered.get("isError"), None, "{ordered}");
    assert_eq!(ordered["content"][0]["text"], "Ordered 1 x BOLT-M6.");
}

#[tokio::test]
async fn a_parameter_without_a_doc_comment_is_published_without_a_description() {
    // Undocumented parameters are allowed: `id: u64` says enough. A doc comment becomes
    // the property's `description`.
    let client = client();
    let tool = listed(&client, "find_order").await;
    let properties = &tool["inputSchema"]["properties"];
    assert_eq!(
        properties["id"],
        json!({"type": "integer", "format": "uint64", "minimum": 0}),
        "{properties}"
    );
    assert_eq!(
        properties["lines"]["description"],
        "Include the order's lines."
    );
    let found = client.call_tool("find_order", json!({"id": 7})).await;
    assert_eq!(found["content"][0]["text"], "order 7, lines: false");
}

#[tokio::test]
async fn without_an_output_schema_the_structured_content_is_still_sent() {
    // `output_schema = false`: no `outputSchema` in the listing, the value's JSON as
    // `structuredContent` and as text (S-191).
    let client = client();
    let tool = listed(&client, "balance").await;
    assert!(tool.get("outputSchema").is_none(), "{tool}");
    let result = client.call_tool("balance", json!({})).await;
    assert_eq!(
        result["structuredContent"],
        json!({"cents": 1250, "currency": "EUR"}),
        "{result}"
    );
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "{\"cents\":1250,\"currency\":\"EUR\"}"}])
    );
}
