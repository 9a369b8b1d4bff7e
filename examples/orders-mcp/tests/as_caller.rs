//! The generated server calls the orders API as each caller, with tokens exchanged for
//! theirs at a real authorization server (oidc-provider, `tests/auth/`, started by the test
//! command, which names it in `MCP_TEST_AUTH_ISSUER` and the API in
//! `MCP_TEST_DOWNSTREAM_API`).

use mcp_runtime::client::{Client, ClientError};
use mcp_runtime::downstream::{ClientAuth, TokenExchange};
use serde_json::{json, Value};

async fn get(url: String) -> Value {
    let body = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[tokio::test]
#[ignore = "needs the authorization server of tests/auth (the test command starts it)"]
async fn each_caller_reaches_the_api_as_themselves() {
    let issuer = std::env::var("MCP_TEST_AUTH_ISSUER").expect("MCP_TEST_AUTH_ISSUER");
    let api = std::env::var("MCP_TEST_DOWNSTREAM_API").expect("MCP_TEST_DOWNSTREAM_API");
    let discovery = get(format!("{issuer}/.well-known/openid-configuration")).await;
    let exchange = TokenExchange::new(
        discovery["token_endpoint"].as_str().unwrap(),
        ClientAuth::secret_basic("mcp-server", "mcp-server-secret"),
    );
    let server = orders_mcp::as_callers(
        orders_mcp::server(orders_mcp::api::Api::new(&api)),
        &issuer,
        "https://mcp.test",
        exchange,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = server
        .allowed_hosts(["127.0.0.1"])
        .build()
        .unwrap()
        .router();
    tokio::spawn(async move { axum_serve(listener, router).await });
    for user in ["hana", "ivan", "bob"] {
        let minted = reqwest::Client::new()
            .post(format!("{issuer}/test/token"))
            .header("content-type", "application/json")
            .body(json!({"sub": user}).to_string())
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let token = serde_json::from_slice::<Value>(&minted).unwrap()["access_token"]
            .as_str()
            .unwrap()
            .to_owned();
        let client = Client::http(format!("http://{addr}/mcp"))
            .bearer(&token)
            .connect()
            .await
            .unwrap();
        // The API sees the caller, with a token for its audience that this server got.
        let me = client.call_tool("who_am_i", json!({})).await.unwrap();
        assert_eq!(me["structuredContent"]["sub"], user, "{me}");
        assert_eq!(me["structuredContent"]["aud"], "https://orders.test");
        assert_eq!(me["structuredContent"]["act"]["sub"], "mcp-server");
        // The caller's orders, with a token asking for the operation's scope alone.
        let orders = client.call_tool("list_orders", json!({})).await.unwrap();
        let listed = orders["structuredContent"].to_string();
        assert!(listed.contains(user), "{listed}");
        let created = client
            .call_tool("create_order", json!({"item": "tea"}))
            .await;
        if user == "bob" {
            // Bob never let anything write orders for him: the model is told so, and
            // nothing reached the API.
            let Err(ClientError::Business(refused)) = created else {
                panic!("{created:?}");
            };
            assert!(refused.to_string().contains("invalid_scope"), "{refused}");
        } else {
            let created = created.unwrap();
            assert_eq!(created["structuredContent"]["owner"], user, "{created}");
        }
        // The caller's own token never reached the API.
        let seen = get(format!("{api}/test/seen")).await;
        assert!(!seen.to_string().contains(&token));
    }
}

async fn axum_serve(listener: tokio::net::TcpListener, router: axum::Router) {
    let _ = axum::serve(listener, router).await;
}

/// The generated tools, as callers see them, are pinned (`catalog.json`; written anew with
/// `MCP_CATALOG=overwrite`).
#[tokio::test]
async fn the_catalog_is_pinned() {
    let app = orders_mcp::server(orders_mcp::api::Api::new("http://127.0.0.1:8092"))
        .build()
        .unwrap();
    mcp_runtime::testing::assert_catalog(&app, "catalog.json").await;
}
