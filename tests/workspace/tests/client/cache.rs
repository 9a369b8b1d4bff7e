//! The client's cache (`ttlMs`, `cacheScope`) and its content policy, against a server of
//! this framework served over HTTP on a loopback port, with two API keys standing for two
//! users. The server counts how often each resource handler runs and how many requests of
//! each method reach it, so a cache hit is a count that did not move.
//!
//! Time is moved by pausing tokio's clock, advancing it and resuming (the cache reads
//! tokio's clock); timeouts here only keep a broken build from hanging the run.

use std::collections::HashMap;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt as _;
use mcp_runtime::client::{Cache, Client, ContentPolicy, Removal, RemovalReason};
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::prelude::*;
use serde_json::json;

const ALICE_KEY: &str = "alice-4f9a1c7e2b8d6035";
const BOB_KEY: &str = "bob-8e2d5a1f9c3b7046e";

/// How many times each thing ran on the server: resource handlers by name, requests by
/// their `Mcp-Method` header.
#[derive(Default)]
struct Counts(Mutex<HashMap<String, usize>>);

impl Counts {
    fn hit(&self, what: &str) {
        let mut counts = self.0.lock().unwrap();
        *counts.entry(what.to_owned()).or_default() += 1;
    }

    fn of(&self, what: &str) -> usize {
        self.0.lock().unwrap().get(what).copied().unwrap_or(0)
    }
}

type Shared = State<Arc<Counts>>;

/// The same for everyone.
#[resource("cache://public", cache = public, ttl = "1m")]
async fn public_note(counts: Shared) -> String {
    counts.hit("public");
    "for everyone".into()
}

/// Each caller's own.
#[resource("cache://private", cache = private, ttl = "1m")]
async fn private_note(counts: Shared, who: Principal) -> String {
    counts.hit("private");
    format!("for {}", who.subject)
}

/// Stale at once.
#[resource("cache://instant", cache = public, ttl = "0s")]
async fn instant_note(counts: Shared) -> String {
    counts.hit("instant");
    "now".into()
}

/// Changes when `touch` is called.
#[resource("cache://watched", cache = public, ttl = "1h")]
async fn watched_note(counts: Shared) -> String {
    counts.hit("watched");
    format!("version {}", counts.of("watched"))
}

/// The target of `gallery`'s link: nothing may read it unless asked.
#[resource("cache://linked", cache = public, ttl = "1m")]
async fn linked_note(counts: Shared) -> String {
    counts.hit("linked");
    "linked".into()
}

/// A yes/no form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Read only after the user confirms (an `input_required` round first).
#[resource("cache://confirmed", cache = public, ttl = "1m")]
async fn confirmed_note(counts: Shared, ctx: RequestContext) -> Result<String, InputRequired> {
    counts.hit("confirmed");
    let answer = ctx.elicit::<Confirm>("reveal", "Reveal it?")?;
    Ok(format!(
        "confirmed: {}",
        answer.accepted().is_some_and(|c| c.confirm)
    ))
}

/// Says `cache://watched` changed.
#[tool]
async fn touch(ctx: RequestContext) -> &'static str {
    ctx.server().resource_updated("cache://watched");
    "touched"
}

/// Text, an SVG, a PNG and a link to `cache://linked`.
#[tool]
async fn gallery() -> Vec<Content> {
    vec![
        Content::text("Three things:"),
        Content::image(b"<svg onload=\"alert(1)\"/>", "image/svg+xml"),
        Content::image([0u8; 300], "image/png"),
        Content::link("cache://linked", "linked"),
    ]
}

/// Stamps a letter; the office goes in the `Mcp-Param-Office` header.
#[tool]
async fn stamp(
    /// Which office.
    #[header("Office")]
    office: String,
) -> String {
    format!("stamped in {office}")
}

/// Takes `stamp` away, or brings it back.
#[tool]
async fn toggle_stamp(ctx: RequestContext) -> Result<&'static str, ToolError> {
    let server = ctx.server();
    if server.remove_tool("stamp") {
        return Ok("removed");
    }
    server
        .add_tools(tools![stamp])
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok("added")
}

/// Starts the server: its address and its counts.
async fn start() -> (SocketAddr, Arc<Counts>) {
    start_with(false).await
}

/// Starts the server; `hints_on_retries`: a server that wrongly marks the results of
/// multi round-trip retries as cacheable for a minute (this framework's server marks them
/// `ttlMs: 0`), to show the client does not rely on it.
async fn start_with(hints_on_retries: bool) -> (SocketAddr, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let keys = ApiKeys::new()
        .key(ALICE_KEY, Principal::new("alice"))
        .unwrap()
        .key(BOB_KEY, Principal::new("bob"))
        .unwrap();
    let app = Server::new("cached", "1.0.0")
        .only_module(module_path!())
        .state(counts.clone())
        // One entry per page: listings have several pages.
        .page_size(1)
        .verify_tokens(keys)
        .build()
        .unwrap();
    let requests = counts.clone();
    let mut router = app.router();
    if hints_on_retries {
        router = router.layer(axum::middleware::from_fn(hint_retries));
    }
    let router = router.layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            if let Some(method) = request.headers().get("mcp-method") {
                requests.hit(method.to_str().unwrap_or_default());
            }
            next.run(request)
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (addr, counts)
}

/// Rewrites `"ttlMs":0` into a minute in the answers to requests carrying
/// `inputResponses`.
async fn hint_retries(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let retry = String::from_utf8_lossy(&body).contains("inputResponses");
    let response = next
        .run(axum::extract::Request::from_parts(parts, body.into()))
        .await;
    if !retry {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let body = String::from_utf8_lossy(&body).replace("\"ttlMs\":0", "\"ttlMs\":60000");
    parts.headers.remove("content-length");
    axum::response::Response::from_parts(parts, body.into())
}

const HANG: Duration = Duration::from_secs(60);

async fn bounded<T>(future: impl IntoFuture<Output = T>) -> T {
    tokio::time::timeout(HANG, future.into_future())
        .await
        .expect("must not hang")
}

/// A client of the server at `addr` with `key`, with its own cache or `shared`.
async fn connect(addr: SocketAddr, key: &str, shared: Option<&Cache>) -> Client {
    let mut builder = Client::http(format!("http://{addr}/mcp")).bearer(key);
    if let Some(cache) = shared {
        builder = builder.cache(cache);
    }
    bounded(builder.connect()).await.expect("connects")
}

async fn read(client: &Client, uri: &str) -> String {
    let result = bounded(client.read_resource(uri)).await.expect("reads");
    result["contents"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Move tokio's clock (which the cache reads) forward.
async fn advance(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

// A read within its ttlMs is served from the cache; after it, from the server again.
#[tokio::test]
async fn a_read_is_served_from_the_cache_within_its_ttl_only() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    assert_eq!(read(&client, "cache://public").await, "for everyone");
    assert_eq!(read(&client, "cache://public").await, "for everyone");
    assert_eq!(counts.of("public"), 1);
    advance(Duration::from_secs(59)).await;
    read(&client, "cache://public").await;
    assert_eq!(counts.of("public"), 1);
    advance(Duration::from_secs(1)).await;
    read(&client, "cache://public").await;
    assert_eq!(counts.of("public"), 2);
}

// `ttlMs: 0` is stale at once: never served from the cache.
#[tokio::test]
async fn a_ttl_of_zero_is_never_served_from_the_cache() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    let first = bounded(client.read_resource("cache://instant"))
        .await
        .unwrap();
    assert_eq!(first["ttlMs"], 0);
    read(&client, "cache://instant").await;
    assert_eq!(counts.of("instant"), 2);
}

// An error is not kept: asking again asks the server.
#[tokio::test]
async fn errors_are_not_cached() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    for _ in 0..2 {
        let error = bounded(client.read_resource("cache://missing"))
            .await
            .expect_err("no such resource");
        assert_eq!(error.code(), Some(-32602), "{error}");
    }
    assert_eq!(counts.of("resources/read"), 2);
}

// Two credentials sharing one Cache: a private result goes only to the credential that
// fetched it.
#[tokio::test]
async fn private_results_are_never_shared_across_credentials() {
    let (addr, counts) = start().await;
    let shared = Cache::new();
    let alice = connect(addr, ALICE_KEY, Some(&shared)).await;
    let bob = connect(addr, BOB_KEY, Some(&shared)).await;
    assert_eq!(read(&alice, "cache://private").await, "for alice");
    assert_eq!(read(&bob, "cache://private").await, "for bob");
    assert_eq!(counts.of("private"), 2);
    // Each is served its own from the cache.
    assert_eq!(read(&alice, "cache://private").await, "for alice");
    assert_eq!(read(&bob, "cache://private").await, "for bob");
    assert_eq!(counts.of("private"), 2);
}

// Two credentials sharing one Cache share what the server called public; two clients
// with their own caches (the default) share nothing.
#[tokio::test]
async fn public_results_are_shared_through_a_shared_cache_only() {
    let (addr, counts) = start().await;
    let shared = Cache::new();
    let alice = connect(addr, ALICE_KEY, Some(&shared)).await;
    let bob = connect(addr, BOB_KEY, Some(&shared)).await;
    read(&alice, "cache://public").await;
    assert_eq!(read(&bob, "cache://public").await, "for everyone");
    assert_eq!(counts.of("public"), 1);

    let (addr, counts) = start().await;
    let alice = connect(addr, ALICE_KEY, None).await;
    let bob = connect(addr, BOB_KEY, None).await;
    read(&alice, "cache://public").await;
    read(&bob, "cache://public").await;
    assert_eq!(counts.of("public"), 2);
}

// A shared cache serves the server/discover of a second client's connect too.
#[tokio::test]
async fn a_shared_cache_serves_discovery_to_the_next_client() {
    let (addr, counts) = start().await;
    let shared = Cache::new();
    let alice = connect(addr, ALICE_KEY, Some(&shared)).await;
    let bob = connect(addr, BOB_KEY, Some(&shared)).await;
    assert_eq!(counts.of("server/discover"), 1);
    assert_eq!(bob.discovery(), alice.discovery());
    assert_eq!(bob.server_info().unwrap()["name"], "cached");
    // Without it, each client discovers for itself.
    connect(addr, ALICE_KEY, None).await;
    assert_eq!(counts.of("server/discover"), 2);
}

// Request::fresh asks the server even when the cache is fresh, and keeps the new result.
#[tokio::test]
async fn a_fresh_request_bypasses_the_cache_and_refreshes_it() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    assert_eq!(read(&client, "cache://watched").await, "version 1");
    let fresh = bounded(client.read_resource("cache://watched").fresh())
        .await
        .unwrap();
    assert_eq!(fresh["contents"][0]["text"], "version 2");
    assert_eq!(read(&client, "cache://watched").await, "version 2");
    assert_eq!(counts.of("watched"), 2);
}

// Each page of a listing is cached on its own, by its cursor (caching.mdx; S-239 lets
// pages differ in ttlMs).
#[tokio::test]
async fn list_pages_are_cached_by_their_cursor() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    let resources = bounded(client.list_resources()).await.unwrap();
    let pages = counts.of("resources/list");
    // One resource per page, and the last page says there is no more.
    assert!(resources.len() >= 6, "{resources:?}");
    assert_eq!(pages, resources.len());
    assert_eq!(bounded(client.list_resources()).await.unwrap(), resources);
    assert_eq!(counts.of("resources/list"), pages);
    // The first page alone, then the second by its cursor: both from the cache.
    let first = bounded(client.request("resources/list", json!({})))
        .await
        .unwrap();
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = bounded(client.request("resources/list", json!({"cursor": cursor})))
        .await
        .unwrap();
    assert_eq!(second["resources"][0], resources[1]);
    assert_eq!(counts.of("resources/list"), pages);
    // The tools' pages too, until they expire.
    let tools = bounded(client.list_tools()).await.unwrap().len();
    bounded(client.list_tools()).await.unwrap();
    assert_eq!(counts.of("tools/list"), tools);
    advance(Duration::from_secs(60)).await;
    bounded(client.list_tools()).await.unwrap();
    assert_eq!(counts.of("tools/list"), 2 * tools);
}

// A result that needed an input_required round is not kept, even when the server marks
// it cacheable: the next read asks again (caching.mdx: results of multi round-trip
// retries are not cacheable; S-236).
#[tokio::test]
async fn results_after_an_input_required_round_are_not_cached() {
    let (addr, counts) = start_with(true).await;
    let client = bounded(
        Client::http(format!("http://{addr}/mcp"))
            .bearer(ALICE_KEY)
            .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) })
            .connect(),
    )
    .await
    .unwrap();
    assert_eq!(read(&client, "cache://confirmed").await, "confirmed: true");
    // The handler ran for the question and again for the answer.
    assert_eq!(counts.of("confirmed"), 2);
    read(&client, "cache://confirmed").await;
    assert_eq!(counts.of("confirmed"), 4);
}

// notifications/resources/updated, received on a subscription, drops the cached read of
// that URI.
#[tokio::test]
async fn an_updated_notification_drops_the_cached_read() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    assert_eq!(read(&client, "cache://watched").await, "version 1");
    read(&client, "cache://public").await;
    let mut subscription = bounded(client.listen(json!({
        "resourceSubscriptions": ["cache://watched"],
    })))
    .await
    .unwrap();
    bounded(client.call_tool("touch", json!({}))).await.unwrap();
    let notification = bounded(subscription.next()).await.unwrap();
    assert_eq!(notification["method"], "notifications/resources/updated");
    assert_eq!(read(&client, "cache://watched").await, "version 2");
    // Other entries stay.
    read(&client, "cache://public").await;
    assert_eq!(counts.of("public"), 1);
}

// A handshake-era server sends no cache hints: nothing is cached.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_era_results_are_not_cached() {
    use mcp_runtime::client::Era;
    let (addr, counts) = start().await;
    let client = bounded(
        Client::http(format!("http://{addr}/mcp"))
            .bearer(ALICE_KEY)
            .pin(Era::Legacy)
            .connect(),
    )
    .await
    .unwrap();
    let result = bounded(client.read_resource("cache://public"))
        .await
        .unwrap();
    assert!(result.get("ttlMs").is_none(), "{result}");
    read(&client, "cache://public").await;
    assert_eq!(counts.of("public"), 2);
}

// A call refused for headers the client did not know the tool mirrors (-32020, S-106)
// makes the client list the tools again: from the server, not from a cached list that
// predates the tool.
#[tokio::test]
async fn relisting_after_a_header_mismatch_skips_the_cache() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    let removed = bounded(client.call_tool("toggle_stamp", json!({})))
        .await
        .unwrap();
    assert_eq!(removed["content"][0]["text"], "removed");
    // A cached listing without `stamp`.
    let tools = bounded(client.list_tools()).await.unwrap();
    assert!(tools.iter().all(|tool| tool["name"] != "stamp"));
    let listed = counts.of("tools/list");
    bounded(client.call_tool("toggle_stamp", json!({})))
        .await
        .unwrap();
    let stamped = bounded(client.call_tool("stamp", json!({"office": "HQ"})))
        .await
        .expect("sent again with the header, once listed");
    assert_eq!(stamped["content"][0]["text"], "stamped in HQ");
    assert!(counts.of("tools/list") > listed);
}

// ---- Content policy --------------------------------------------------------------------

// The policy replaces the refused block where it was, says why, lists it in _meta; the
// link is returned as it is and nothing reads it.
#[tokio::test]
async fn a_content_policy_replaces_refused_blocks_and_reports_them() {
    let (addr, counts) = start().await;
    let client = bounded(
        Client::http(format!("http://{addr}/mcp"))
            .bearer(ALICE_KEY)
            .content_policy(
                ContentPolicy::new()
                    .allow_mime(["text/*", "image/png"])
                    .max_block_bytes(200),
            )
            .connect(),
    )
    .await
    .unwrap();
    let result = bounded(client.call_tool("gallery", json!({})))
        .await
        .unwrap();
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 4);
    assert_eq!(content[0]["text"], "Three things:");
    let svg = content[1]["text"].as_str().unwrap();
    assert!(
        svg.contains("image/svg+xml") && svg.contains("not allowed"),
        "{svg}"
    );
    let png = content[2]["text"].as_str().unwrap();
    assert!(
        png.contains("300 bytes") && png.contains("200 bytes per block"),
        "{png}"
    );
    assert_eq!(content[3]["type"], "resource_link");
    assert_eq!(content[3]["uri"], "cache://linked");
    let removed = Removal::in_result(&result);
    let reasons: Vec<_> = removed.iter().map(|r| (r.at.as_str(), r.reason)).collect();
    assert_eq!(
        reasons,
        [
            ("/content/1", RemovalReason::MimeNotAllowed),
            ("/content/2", RemovalReason::BlockTooLarge { limit: 200 }),
        ]
    );
    assert_eq!(counts.of("linked"), 0);
    assert_eq!(counts.of("resources/read"), 0);
}

// Without a policy (the default) content arrives as sent, and links are still not
// followed.
#[tokio::test]
async fn without_a_policy_content_is_untouched_and_links_are_not_followed() {
    let (addr, counts) = start().await;
    let client = connect(addr, ALICE_KEY, None).await;
    let result = bounded(client.call_tool("gallery", json!({})))
        .await
        .unwrap();
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(result["content"][1]["mimeType"], "image/svg+xml");
    assert!(Removal::in_result(&result).is_empty());
    assert_eq!(result["content"][3]["uri"], "cache://linked");
    assert_eq!(counts.of("linked"), 0);
    assert_eq!(counts.of("resources/read"), 0);
}
