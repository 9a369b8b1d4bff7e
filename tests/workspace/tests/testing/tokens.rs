//! Testing a server secured with OAuth: a test issuer signs the tokens (the book's
//! "Securing a server" shows it).

use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::testing::{HttpTestClient, TestIssuer};
use serde_json::json;

use super::shop_server;

/// The resource the tokens are for, and who issues them.
const RESOURCE: &str = "http://127.0.0.1/mcp";
const ISSUER: &str = "https://issuer.test";

#[tokio::test]
async fn tokens_of_a_test_issuer() {
    let issuer = TestIssuer::new(ISSUER).expect("an issuer");
    let verifier = issuer.verifier(RESOURCE).expect("a verifier");
    let app = shop_server()
        .oauth(
            ProtectedResource::new(RESOURCE).authorization_server(ISSUER),
            verifier,
        )
        .build()
        .expect("the shop builds");
    let manager = issuer
        .token(RESOURCE)
        .subject("manager")
        .scopes(["orders:refund"])
        .mint();
    let refunded = HttpTestClient::new(&app)
        .bearer(&manager)
        .call_tool("refund", json!({"id": 2}))
        .await;
    assert_eq!(
        refunded.result()["content"][0]["text"],
        "Order 2 refunded by manager."
    );
    // A clerk's token lacks the scope: 403 with a challenge naming it.
    let clerk = issuer.token(RESOURCE).subject("clerk").mint();
    let refused = HttpTestClient::new(&app)
        .bearer(&clerk)
        .call_tool("refund", json!({"id": 2}))
        .await;
    assert_eq!(refused.status, 403);
    let challenge = refused.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.contains(r#"scope="orders:refund""#),
        "{challenge}"
    );
    // An expired token is 401.
    let expired = issuer.token(RESOURCE).subject("manager").expired().mint();
    let refused = HttpTestClient::new(&app)
        .bearer(&expired)
        .call_tool("refund", json!({"id": 2}))
        .await;
    assert_eq!(refused.status, 401);
}
