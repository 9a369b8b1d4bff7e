//! Testing through a service of one's own: the MCP endpoint merged into an axum app with
//! the team's authentication middleware in front (the book's "Testing your server").

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::HttpTestClient;
use serde_json::json;

use super::shop;

/// The team's own authentication: the company gateway names the user in `x-user`.
async fn gateway_user(mut request: Request, next: Next) -> Response {
    let user = request
        .headers()
        .get("x-user")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(user) = user {
        let principal = Principal::new(user).with_scopes(["orders:refund"]);
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}

#[tokio::test]
async fn through_our_own_service() {
    let app = shop();
    let service = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(app.router())
        .layer(middleware::from_fn(gateway_user));
    let client = HttpTestClient::new(&app)
        .via(service)
        .header("x-user", "ann")
        .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) });
    let refunded = client.call_tool("refund", json!({"id": 4})).await;
    assert_eq!(
        refunded.result()["content"][0]["text"],
        "Order 4 refunded by ann."
    );
    let cancelled = client.call_tool("cancel_order", json!({"id": 4})).await;
    assert_eq!(
        cancelled.result()["content"][0]["text"],
        "Order 4 cancelled."
    );
    // The service's other routes answer through the same client.
    let health = client
        .send(
            Request::get("/health")
                .body(Body::empty())
                .expect("a request"),
        )
        .await;
    assert_eq!((health.status, health.text.as_str()), (200, "ok"));
}
