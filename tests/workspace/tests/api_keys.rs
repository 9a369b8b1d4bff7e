//! API keys and other opaque tokens without an authorization server: `ApiKeys` (keys as
//! they are, or their SHA-256) and a `TokenVerifier` of one's own, given to
//! `Server::verify_tokens`. The server then starts without protected-resource metadata,
//! publishes none, and challenges without `resource_metadata`. Over real HTTP on a
//! loopback port, through the raw client of `common`. Requirement ids (S-nnn) refer to
//! the server checklist.

mod common;
#[path = "api_keys/setup.rs"]
mod setup;

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use mcp_runtime::Principal;
use setup::{api_keys, secured as server, LoginTokens};
use sha2::{Digest as _, Sha256};

use std::net::SocketAddr;

use common::{call, get, send, serve, Reply};
use mcp_runtime::policy::oauth::ProtectedResource;
use serde_json::{json, Value};

/// The dashboard's key, as the secret store hands it over.
const DASHBOARD_KEY: &str = "dash-5c2e9a7f1b3d8046e1";
/// The billing job's key; the server is configured with its SHA-256 only.
const BILLING_KEY: &str = "bill-9e4b1f6a2c8d7035b2";

fn digest(text: &str) -> Vec<u8> {
    Sha256::digest(text.as_bytes()).to_vec()
}

fn sha256_hex(text: &str) -> String {
    digest(text).iter().map(|b| format!("{b:02x}")).collect()
}

async fn start() -> SocketAddr {
    let keys = api_keys(DASHBOARD_KEY, &sha256_hex(BILLING_KEY)).unwrap();
    serve(server(keys).build().unwrap()).await
}

async fn call_with(
    addr: SocketAddr,
    authorization: &[&str],
    tool: &str,
    arguments: Value,
) -> Reply {
    let headers: Vec<(&str, &str)> = authorization
        .iter()
        .map(|a| ("Authorization", *a))
        .collect();
    send(addr, &call(tool, arguments, &headers)).await
}

// A key is served as its principal, with its scopes and tenant.
#[tokio::test]
async fn the_right_key_is_served_as_its_principal() {
    let addr = start().await;
    let dashboard = format!("Bearer {DASHBOARD_KEY}");
    let who = call_with(addr, &[&dashboard], "caller", json!({})).await;
    assert_eq!(who.status, 200, "{who:?}");
    assert_eq!(who.tool_text(), "dashboard of acme with [orders:read]");
    let orders = call_with(addr, &[&dashboard], "tenant_orders", json!({})).await;
    assert_eq!(orders.status, 200);
    assert!(orders.tool_text().contains("acme-1: anvils"), "{orders:?}");
    // Its scopes are all it holds (S-332): no resource_metadata, there is no document.
    let place = call_with(
        addr,
        &[&dashboard],
        "place_tenant_order",
        json!({"item": "tnt"}),
    )
    .await;
    assert_eq!(place.status, 403);
    assert_eq!(
        place.header("www-authenticate"),
        Some("Bearer error=\"insufficient_scope\", scope=\"orders:write\", error_description=\"this operation needs the scope(s) orders:write\"")
    );
    assert_eq!(place.code(), Some(-31403));
}

// A key configured by its SHA-256 works as the key would.
#[tokio::test]
async fn a_key_given_by_its_digest_works() {
    let addr = start().await;
    let billing = format!("Bearer {BILLING_KEY}");
    let placed = call_with(
        addr,
        &[&billing],
        "place_tenant_order",
        json!({"item": "tnt"}),
    )
    .await;
    assert_eq!(placed.status, 200, "{placed:?}");
    assert_eq!(placed.tool_text(), "acme ordered tnt");
    // The digest itself is no key.
    let digest = format!("Bearer {}", sha256_hex(BILLING_KEY));
    assert_eq!(
        call_with(addr, &[&digest], "caller", json!({}))
            .await
            .status,
        401
    );
}

// S-327, S-331: a wrong key, no key, or a malformed Authorization header is 401 with a
// plain Bearer challenge (no resource_metadata: no authorization server exists); nothing
// runs.
#[tokio::test]
async fn wrong_missing_and_malformed_keys_get_401() {
    let addr = start().await;
    let wrong = call_with(
        addr,
        &["Bearer dash-5c2e9a7f1b3d8046e2"],
        "caller",
        json!({}),
    )
    .await;
    // S-327: an invalid credential gets 401 with invalid_token.
    assert_eq!(wrong.status, 401);
    assert_eq!(
        wrong.header("www-authenticate"),
        Some("Bearer error=\"invalid_token\", error_description=\"unknown API key\"")
    );
    assert_eq!(wrong.code(), Some(-31401));
    assert!(wrong.json()["error"]["data"]
        .get("resource_metadata")
        .is_none());

    let missing = call_with(addr, &[], "caller", json!({})).await;
    assert_eq!(missing.status, 401);
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    assert_eq!(missing.code(), Some(-31401));

    let key = DASHBOARD_KEY;
    for malformed in [
        format!("Basic {key}"),
        format!("Bearer{key}"),
        "Bearer ".to_owned(),
        format!("Bearer {key} extra"),
        format!("Bearer \"{key}\""),
    ] {
        let refused = call_with(addr, &[&malformed], "caller", json!({})).await;
        assert_eq!(refused.status, 401, "{malformed}: {refused:?}");
        let challenge = refused.header("www-authenticate").unwrap_or_default();
        assert!(challenge.starts_with("Bearer"), "{malformed}: {challenge}");
        assert!(!challenge.contains("resource_metadata"), "{challenge}");
    }
}

// Without an OAuth flow there is no protected-resource document to serve.
#[tokio::test]
async fn no_metadata_document_is_served() {
    let addr = start().await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        assert_eq!(send(addr, &get(path, &[])).await.status, 404, "{path}");
    }
}

// A verifier alone is authentication enough to serve an address other than loopback.
#[tokio::test]
async fn a_server_with_only_a_verifier_serves_remote_addresses() {
    let keys = api_keys(DASHBOARD_KEY, &sha256_hex(BILLING_KEY)).unwrap();
    let app = server(keys).build().unwrap();
    let serving = tokio::spawn(async move { app.serve_http("0.0.0.0:0".parse().unwrap()).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !serving.is_finished(),
        "refused: {:?}",
        serving.await.map(|r| r.map_err(|e| e.to_string()))
    );
    serving.abort();
}

// A ProtectedResource exists to point clients at an authorization server: one naming none
// stops the server at start, and the error says what to use for API keys.
#[tokio::test]
async fn metadata_without_an_authorization_server_is_refused_at_start() {
    let keys = api_keys(DASHBOARD_KEY, &sha256_hex(BILLING_KEY)).unwrap();
    let refused = mcp_workspace_tests::secured::server()
        .oauth(ProtectedResource::new("https://mcp.example.com/mcp"), keys)
        .build()
        .err()
        .expect("refused")
        .to_string();
    // S-321: metadata must name an authorization server, or the server does not start.
    assert!(
        refused.contains("names no authorization server"),
        "{refused}"
    );
    assert!(
        refused.contains("Server::verify_tokens(verifier)"),
        "{refused}"
    );
}

// A verifier of one's own: its refusal's description reaches the client in the challenge.
#[tokio::test]
async fn a_verifier_of_ones_own_checks_opaque_tokens() {
    let now = SystemTime::now();
    let hour = Duration::from_secs(3600);
    let alice = Principal::new("alice")
        .with_scopes(["orders:read"])
        .with_tenant("globex");
    let tokens = LoginTokens {
        by_digest: HashMap::from([
            (digest("fresh-token-1"), (alice.clone(), now + hour)),
            (digest("stale-token-2"), (alice, now - hour)),
        ]),
    };
    let app = mcp_workspace_tests::secured::server()
        .verify_tokens(tokens)
        .build()
        .unwrap();
    let addr = serve(app).await;
    let fresh = call_with(addr, &["Bearer fresh-token-1"], "tenant_orders", json!({})).await;
    assert_eq!(fresh.status, 200, "{fresh:?}");
    assert!(fresh.tool_text().contains("globex-1: magnets"));
    let stale = call_with(addr, &["Bearer stale-token-2"], "caller", json!({})).await;
    assert_eq!(stale.status, 401);
    assert!(stale
        .header("www-authenticate")
        .unwrap_or_default()
        .contains("error_description=\"the token expired; log in again\""));
}

// Bad keys are configuration errors, found when the set is made, readable from `main`.
#[test]
fn bad_keys_stop_the_server_before_it_starts() {
    let short = api_keys("short", &sha256_hex(BILLING_KEY)).unwrap_err();
    assert!(short.to_string().contains("at least 16"), "{short}");
    let digest = api_keys(DASHBOARD_KEY, "not-a-digest").unwrap_err();
    assert!(
        digest.to_string().contains("64 hexadecimal digits"),
        "{digest}"
    );
    let same = api_keys(BILLING_KEY, &sha256_hex(BILLING_KEY)).unwrap_err();
    assert!(
        same.to_string()
            .contains("give every principal its own key"),
        "{same}"
    );
}

#[tokio::test]
async fn with_a_verifier_a_principal_from_ones_own_layer_is_not_used() {
    use mcp_runtime::testing::HttpTestClient;
    let keys = api_keys(DASHBOARD_KEY, &sha256_hex(BILLING_KEY)).unwrap();
    // The book's server: the keys alone.
    let app = setup::server(keys).build().unwrap();
    let vouching = app.router().layer(axum::middleware::from_fn(
        |mut request: axum::extract::Request, next: axum::middleware::Next| async move {
            request
                .extensions_mut()
                .insert(Principal::new("layer").with_scopes(["orders:read"]));
            next.run(request).await
        },
    ));
    let anonymous = HttpTestClient::new(&app).via(vouching.clone());
    let refused = anonymous.request("tools/list", json!({})).await;
    assert_eq!(refused.status, 401, "{}", refused.text);
    let keyed = HttpTestClient::new(&app)
        .via(vouching)
        .bearer(DASHBOARD_KEY);
    let listed = keyed.call_tool("open_orders", json!({})).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(
        listed.result()["content"][0]["text"],
        "No open orders for acme."
    );
}

/// The `caller` tool's answer over a byte stream served by `app` (`App::serve_io`).
async fn caller_over_a_stream(app: mcp_runtime::App) -> Value {
    use tokio::io::AsyncWriteExt as _;
    let (mut lines, mut write) = common::stdio(app);
    let ask = common::body(1, "tools/call", json!({"name": "caller", "arguments": {}})) + "\n";
    write.write_all(ask.as_bytes()).await.unwrap();
    common::next_line(&mut lines).await["result"]["content"][0]["text"].clone()
}

// A byte stream carries no token, so its peer has stdio's trust: a server that checks its
// callers' tokens refuses a stream no caller is named for; one named for it (a peer the
// application authenticated) is served as that caller; a server without a verifier
// serves a stream as stdio, anonymously.
#[tokio::test]
async fn a_byte_stream_needs_a_named_caller_on_a_server_that_checks_tokens() {
    let keys = || api_keys(DASHBOARD_KEY, &sha256_hex(BILLING_KEY)).unwrap();
    let (_peer, stream) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(stream);
    let refused = tokio::time::timeout(
        Duration::from_secs(5),
        server(keys()).build().unwrap().serve_io(read, write),
    )
    .await
    .expect("refused at once, without waiting for the peer");
    let message = refused
        .expect_err("an anonymous stream past the verifier")
        .to_string();
    // S-024: refused before anything is read, saying why and what to do instead.
    assert!(
        message.contains("refusing to serve a byte stream without a caller")
            && message.contains("Server::stdio_principal")
            && message.contains("App::serve_http"),
        "{message}"
    );
    let named = server(keys())
        .stdio_principal(
            Principal::new("pipe-peer")
                .with_tenant("acme")
                .with_scopes(["orders:read"]),
        )
        .build()
        .unwrap();
    // S-024: the peer the application named calls as that caller, for the whole stream.
    assert_eq!(
        caller_over_a_stream(named).await,
        "pipe-peer of acme with [orders:read]"
    );
    let open = mcp_workspace_tests::secured::server().build().unwrap();
    assert_eq!(caller_over_a_stream(open).await, "anonymous");
}
