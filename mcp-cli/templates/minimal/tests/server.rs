//! The server as a client sees it, in process: no port, no subprocess.

use mcp_runtime::testing::TestClient;
use serde_json::json;

fn client() -> TestClient {
    TestClient::new({{crate}}::server().unwrap().build().unwrap())
}

#[tokio::test]
async fn add_adds() {
    let sum: i64 = client()
        .call_tool_as("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum, 5);
}

#[tokio::test]
async fn a_wrong_argument_is_the_models_to_fix() {
    let result = client().call_tool("add", json!({"a": "two", "b": 3})).await;
    assert_eq!(result["isError"], true);
}

#[tokio::test]
async fn the_first_note_is_there_and_no_other() {
    let read = client().read_resource("notes://1").await;
    assert_eq!(
        read["contents"][0]["text"],
        "The first note of {{name}}."
    );
    let missing = client().read_resource("notes://2").await;
    assert_eq!(missing["error"]["code"], -32602);
}
