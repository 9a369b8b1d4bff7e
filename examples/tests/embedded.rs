//! The `embedded` example as a process over real HTTP: the REST routes and the MCP tools
//! share one database, the principal the team's middleware makes of the gateway's headers
//! reaches the tools, and a refusal for want of scopes is HTTP 403 with an
//! `insufficient_scope` challenge, for a caller without the scope and for an anonymous one
//! alike (S-331, S-332, S-333).

use serde_json::{json, Value};

mod common;
use common::{Client, Reply};

/// The gateway's headers for `user` with `scopes`.
fn employee<'a>(user: &'a str, scopes: &'a str) -> [(&'a str, &'a str); 2] {
    [("x-forwarded-user", user), ("x-forwarded-scopes", scopes)]
}

async fn call_as(client: &Client, headers: &[(&str, &str)], tool: &str, arguments: Value) -> Reply {
    client
        .send_with(
            "tools/call",
            Some(tool),
            json!({"name": tool, "arguments": arguments}),
            headers,
        )
        .await
}

/// `GET /api/items` of the service at `mcp_url`.
async fn items(client: &Client) -> Value {
    let url = client.url.replace("/mcp", "/api/items");
    let reply = client.http.get(url).send().await.unwrap();
    assert_eq!(reply.status(), 200);
    serde_json::from_slice(&reply.bytes().await.unwrap()).unwrap()
}

fn quantity_of(items: &Value, name: &str) -> (i64, Value) {
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {items}"));
    (
        item["quantity"].as_i64().unwrap(),
        item["restocked_by"].clone(),
    )
}

#[tokio::test]
async fn rest_routes_and_tools_share_the_database_and_the_caller() {
    let (_server, url) = common::start_http(env!("CARGO_BIN_EXE_embedded"), &[]).await;
    let client = Client::new(&url);
    assert_eq!(
        quantity_of(&items(&client).await, "anvil"),
        (3, Value::Null)
    );

    // A tool writes in the name the middleware made of the gateway's headers; the REST
    // route reads it back.
    let ana = employee("ana", "stock:write");
    let restocked = call_as(
        &client,
        &ana,
        "restock",
        json!({"item": "anvil", "quantity": 4}),
    )
    .await;
    assert_eq!(restocked.status, 200, "{}", restocked.body);
    assert_eq!(
        restocked.result()["structuredContent"],
        json!({"name": "anvil", "quantity": 7, "restocked_by": "ana"})
    );
    assert_eq!(
        quantity_of(&items(&client).await, "anvil"),
        (7, json!("ana"))
    );

    // The REST route writes, as the same middleware names the caller; a tool reads it.
    let delivered = client
        .http
        .post(url.replace("/mcp", "/api/items/rocket%20skates/restock"))
        .header("x-forwarded-user", "bo")
        .header("x-forwarded-scopes", "stock:write")
        .header("content-type", "application/json")
        .body(json!({"quantity": 2}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(delivered.status(), 200);
    let levels = call_as(&client, &[], "stock_levels", json!({})).await;
    assert_eq!(levels.status, 200, "{}", levels.body);
    let listed = levels.result()["structuredContent"].clone();
    assert_eq!(quantity_of(&listed, "rocket skates"), (2, json!("bo")));
}

#[tokio::test]
async fn a_missing_scope_is_403_with_the_challenge_for_callers_and_anonymous_alike() {
    let (_server, url) = common::start_http(env!("CARGO_BIN_EXE_embedded"), &[]).await;
    let client = Client::new(&url);
    let expected = "Bearer error=\"insufficient_scope\", scope=\"stock:write\", error_description=\"this operation needs the scope(s) stock:write\"";
    let reader = employee("cy", "stock:read");
    let anonymous: [(&str, &str); 0] = [];
    for (who, headers) in [("cy", &reader[..]), ("anonymous", &anonymous[..])] {
        let refused = call_as(
            &client,
            headers,
            "restock",
            json!({"item": "anvil", "quantity": 1}),
        )
        .await;
        assert_eq!(refused.status, 403, "{who}: {}", refused.body);
        assert_eq!(refused.challenge, expected, "{who}");
        assert_eq!(
            refused.body["error"],
            json!({
                "code": -31403,
                "message": "Access denied to tool restock: it needs the scope(s) stock:write",
                "data": {
                    "name": "restock",
                    "reason": "it needs the scope(s) stock:write",
                    "requiredScopes": ["stock:write"]
                }
            }),
            "{who}"
        );
    }
    // Nothing was written.
    assert_eq!(
        quantity_of(&items(&client).await, "anvil"),
        (3, Value::Null)
    );
}

// The gateway's headers are trusted as they come: beyond loopback, the example serves only
// when told that only the gateway can reach it.
#[test]
fn it_refuses_other_addresses_unless_told_the_gateway_guards_them() {
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_embedded"))
        .args(["--http", "0.0.0.0:0"])
        .env_remove("TRUST_GATEWAY_HEADERS")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("set TRUST_GATEWAY_HEADERS=1"), "{stderr}");
}
