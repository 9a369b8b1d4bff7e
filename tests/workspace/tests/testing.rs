//! The testing kit as the book's "Testing your server" chapter shows it: a small shop
//! server, tested in process in both eras, as principals, over HTTP (the server's own
//! router and a service of one's own), and with a transcript.

// ANCHOR: uses
use mcp_runtime::prelude::*;
use mcp_runtime::testing::{HttpTestClient, TestClient, Transcript};
use mcp_runtime::App;
use serde::{Deserialize, Serialize};
use serde_json::json;
// ANCHOR_END: uses

// ANCHOR: server
/// The confirmation form.
#[derive(Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Cancel the order?
    confirm: bool,
}

/// Cancels an order once the user confirms.
#[tool(destructive)]
async fn cancel_order(
    /// The order number.
    id: u64,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", &format!("Cancel order {id}?"))?;
    match answer {
        Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!("Order {id} cancelled.")),
        _ => Ok(format!("Order {id} is kept.")),
    }
}

/// A price quote.
#[derive(Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
struct Quote {
    /// Total in cents.
    total_cents: u64,
}

/// Prices a number of items at 250 cents each.
#[tool(read_only)]
async fn quote(
    /// How many items.
    items: u64,
) -> Quote {
    Quote {
        total_cents: items * 250,
    }
}

/// Refunds an order; needs the `orders:refund` scope.
#[tool(scopes("orders:refund"))]
async fn refund(
    /// The order number.
    id: u64,
    caller: Principal,
) -> String {
    format!("Order {id} refunded by {}.", caller.subject)
}

/// The shop's server: the tools of this file.
fn shop_server() -> Server {
    Server::new("shop", "1.0.0").only_module(module_path!())
}

/// The shop, as the tests build it.
fn shop() -> App {
    shop_server().build().expect("the shop builds")
}
// ANCHOR_END: server

#[path = "testing/own_router.rs"]
mod own_router;
#[path = "testing/tokens.rs"]
mod tokens;

// ANCHOR: confirm
#[tokio::test]
async fn a_confirmed_cancellation() {
    let client = TestClient::new(shop())
        .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) });
    let result = client.call_tool("cancel_order", json!({"id": 7})).await;
    assert_eq!(result["content"][0]["text"], "Order 7 cancelled.");
}
// ANCHOR_END: confirm

// ANCHOR: rounds
#[tokio::test]
async fn the_rounds_by_hand() {
    // No handler: the client only declares that it can show forms.
    let client = TestClient::new(shop()).with_capabilities(json!({"elicitation": {}}));
    let first = client.call_tool("cancel_order", json!({"id": 7})).await;
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["confirm"]["params"]["message"],
        "Cancel order 7?"
    );
    let retry = json!({
        "name": "cancel_order",
        "arguments": {"id": 7},
        "inputResponses": {"confirm": {"action": "decline"}},
        "requestState": first["requestState"],
    });
    let response = client.request("tools/call", retry).await;
    assert_eq!(response["result"]["content"][0]["text"], "Order 7 is kept.");
}
// ANCHOR_END: rounds

// ANCHOR: eras
#[cfg(feature = "legacy")]
#[tokio::test]
async fn both_eras_answer_alike() {
    let clients = [
        TestClient::new(shop()),
        TestClient::legacy(shop(), "2025-11-25"),
        TestClient::legacy(shop(), "2025-06-18"),
    ];
    for client in clients {
        let client = client.on_elicit(|question| async move {
            assert_eq!(question["message"], "Cancel order 9?");
            json!({"action": "accept", "content": {"confirm": true}})
        });
        let result = client.call_tool("cancel_order", json!({"id": 9})).await;
        assert_eq!(result["content"][0]["text"], "Order 9 cancelled.");
    }
}
// ANCHOR_END: eras

// ANCHOR: structured
#[tokio::test]
async fn a_quote_is_typed() {
    let client = TestClient::new(shop());
    let quote: Quote = client
        .call_tool_as("quote", json!({"items": 3}))
        .await
        .expect("a quote");
    assert_eq!(quote, Quote { total_cents: 750 });
    // Invalid arguments are an `isError` result, which `call_tool_as` hands back.
    let refused = client
        .call_tool_as::<Quote>("quote", json!({"items": "three"}))
        .await
        .expect_err("not a number");
    assert_eq!(refused["isError"], true);
}
// ANCHOR_END: structured

// ANCHOR: principals
#[tokio::test]
async fn refunds_need_the_scope() {
    let clerk = Principal::new("clerk").with_scopes(["orders:read"]);
    let manager = Principal::new("manager").with_scopes(["orders:refund"]);
    let refused = TestClient::new(shop())
        .as_principal(clerk)
        .call_tool("refund", json!({"id": 3}))
        .await;
    assert_eq!(refused["error"]["code"], -31403);
    let refunded = TestClient::new(shop())
        .as_principal(manager)
        .call_tool("refund", json!({"id": 3}))
        .await;
    assert_eq!(
        refunded["content"][0]["text"],
        "Order 3 refunded by manager."
    );
}
// ANCHOR_END: principals

// ANCHOR: http
#[tokio::test]
async fn over_http() {
    let app = shop();
    let client = HttpTestClient::new(&app);
    let response = client.call_tool("quote", json!({"items": 2})).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.result()["structuredContent"]["total_cents"], 500);
    // The client sent what a gateway routes on; a request without it is refused.
    let bare = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    let request = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(axum::body::Body::from(bare))
        .expect("a request");
    let refused = client.send(request).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.response()["error"]["code"], -32020);
}
// ANCHOR_END: http

// ANCHOR: transcript
#[tokio::test]
async fn the_recorded_exchange_still_holds() {
    let recorded = include_str!("shop.transcript");
    let transcript = Transcript::parse(recorded).expect("a transcript");
    let app = shop();
    transcript.replay_stdio(&app).await.expect("over stdio");
    transcript.replay_http(&app).await.expect("over HTTP");
}
// ANCHOR_END: transcript

// Beyond the chapter: what the kit promises in its documentation.

/// A 2026-07-28 client, and a 2025-11-25 one when the handshake era is built in.
fn every_era(app: &App) -> Vec<TestClient> {
    let clients = vec![TestClient::new(app.clone())];
    #[cfg(feature = "legacy")]
    let clients = {
        let mut clients = clients;
        clients.push(TestClient::legacy(app.clone(), "2025-11-25"));
        clients
    };
    clients
}

#[tokio::test]
async fn handlers_declare_their_capability_and_answer_every_kind_of_question() {
    // Without a handler the client declares no elicitation, so the server cannot ask:
    // the call fails with the missing capability (S-123) rather than asking.
    let silent = TestClient::new(shop())
        .call_tool("cancel_order", json!({"id": 1}))
        .await;
    assert_eq!(silent["error"]["code"], -32021, "{silent}");
    let app = mcp_workspace_tests::interactive_server(Default::default())
        .build()
        .expect("builds");
    for client in every_era(&app) {
        let client = client
            .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) })
            .on_sample(|request| async move {
                assert_eq!(request["messages"][0]["content"]["text"], "Summarize");
                json!({"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "test"})
            })
            .on_roots(|_| async { json!({"roots": [{"uri": "file:///work"}]}) });
        let result = client.call_tool("gather", json!({})).await;
        assert_eq!(
            result["content"][0]["text"], "true / short / file:///work",
            "{result}"
        );
    }
}

#[tokio::test]
async fn http_progress_arrives_as_notifications_before_the_result() {
    let app = mcp_workspace_tests::interactive_server(Default::default())
        .build()
        .expect("builds");
    let client = HttpTestClient::new(&app);
    let response = client
        .request(
            "tools/call",
            json!({"name": "crunch", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}}),
        )
        .await;
    assert_eq!(response.status, 200);
    assert!(response
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream")));
    let progress = response.notifications();
    assert!(!progress.is_empty(), "{}", response.text);
    assert!(progress
        .iter()
        .all(|n| n["method"] == "notifications/progress"));
    assert_eq!(
        response.result()["content"][0]["text"],
        "3 steps, progress requested: true"
    );
}

#[tokio::test]
async fn every_method_works_the_same_in_both_eras() {
    let app = mcp_workspace_tests::server().build().expect("builds");
    let manager = Principal::new("manager").with_scopes(["orders:refund"]);
    for (era, client) in ["2026-07-28", "2025-11-25"]
        .into_iter()
        .zip(every_era(&app))
    {
        let info = client.discover().await;
        assert!(info["capabilities"]["tools"].is_object(), "{era}: {info}");
        let read = client.read_resource("library://notes").await;
        assert_eq!(
            read["contents"][0]["uri"], "library://notes",
            "{era}: {read}"
        );
        let prompt = client
            .get_prompt("summarize_book", json!({"id": "1"}))
            .await;
        assert_eq!(prompt["messages"][0]["role"], "user", "{era}: {prompt}");
        // Unknown ones come back as the whole error response.
        let missing = client.read_resource("library://nowhere").await;
        assert!(missing["error"]["code"].is_i64(), "{era}: {missing}");
        let missing = client.get_prompt("nowhere", json!({})).await;
        assert!(missing["error"]["code"].is_i64(), "{era}: {missing}");
        // A notification gets no answer and disturbs nothing.
        client
            .notify("notifications/cancelled", json!({"requestId": 99}))
            .await;
        let raw = client
            .message(json!({"jsonrpc": "2.0", "id": "raw", "method": "tools/list", "params": {"_meta": mcp_runtime::testing::default_meta()}}))
            .await
            .expect("a response");
        assert_eq!(raw["id"], "raw", "{era}: {raw}");
        assert!(raw["result"].is_object(), "{era}: {raw}");
    }
    // A handshake-era client calls as its principal too (the stdio host vouches for it).
    for client in every_era(&shop()) {
        let refunded = client
            .as_principal(manager.clone())
            .call_tool("refund", json!({"id": 8}))
            .await;
        assert_eq!(
            refunded["content"][0]["text"],
            "Order 8 refunded by manager."
        );
    }
}

#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_session_that_cannot_open_is_an_error_response_not_a_panic() {
    // A server that accepts no handshake revision refuses `initialize`.
    let app = shop_server().legacy_versions([]).build().expect("builds");
    let client = TestClient::legacy(app, "2025-11-25");
    let response = client.call_tool("quote", json!({"items": 1})).await;
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("test client: initialize failed"),
        "{message}"
    );
    assert_eq!(client.discover().await["error"]["code"], -32603);
}
