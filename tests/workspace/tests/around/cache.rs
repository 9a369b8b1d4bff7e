//! `Server::cache_responses`: the results of read-only tools and of resource reads served
//! again without running the handler, in both eras, in process and over HTTP. A hit needs
//! the same target, the same arguments (in any order) and, for a private entry, the same
//! caller; an entry expires with its time to live and goes when its resource is updated or
//! a list changes; a refused caller gets its refusal; the server's layers see every call,
//! hits too; instances sharing a store share entries and invalidations.

// ANCHOR: uses
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::layers::{Call, CallService, ResponseCache};
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::{HttpTestClient, TestClient};
use mcp_runtime::App;
use serde_json::{json, Value};
use tower::ServiceExt as _;
// ANCHOR_END: uses

/// How many times each handler ran.
#[derive(Default)]
struct Runs(Mutex<HashMap<&'static str, usize>>);

impl Runs {
    fn ran(&self, what: &'static str) {
        if let Ok(mut runs) = self.0.lock() {
            *runs.entry(what).or_default() += 1;
        }
    }

    fn of(&self, what: &str) -> usize {
        self.0
            .lock()
            .map(|runs| runs.get(what).copied().unwrap_or(0))
            .unwrap_or(0)
    }
}

// ANCHOR: tools
/// Who called, as the handlers write it.
fn caller(ctx: &RequestContext) -> String {
    match ctx.principal() {
        Some(who) => format!("{}@{}", who.subject, who.tenant().unwrap_or("-")),
        None => "anonymous".to_owned(),
    }
}

/// The caller's price for a quantity of an item.
#[tool(read_only)]
async fn price(sku: String, qty: u32, ctx: RequestContext, runs: State<Arc<Runs>>) -> String {
    runs.ran("price");
    format!("{qty} x {sku} for {}", caller(&ctx))
}

/// Today's exchange rate: the same for everyone.
#[tool(read_only)]
async fn exchange_rate(currency: String, runs: State<Arc<Runs>>) -> String {
    runs.ran("exchange_rate");
    format!("1 EUR = 1.08 {currency}")
}

/// The stock of an item, the same for everyone for a minute.
#[resource("stock://<sku>", cache = public, ttl = "1m")]
async fn stock(sku: String, runs: State<Arc<Runs>>) -> String {
    runs.ran("stock");
    format!("{sku}: 12 in stock")
}

/// The caller's own basket.
#[resource("basket://mine", cache = private, ttl = "1m")]
async fn basket(ctx: RequestContext, runs: State<Arc<Runs>>) -> String {
    runs.ran("basket");
    format!("the basket of {}", caller(&ctx))
}
// ANCHOR_END: tools

/// Adds one to a counter: not read-only.
#[tool]
async fn count_up(runs: State<Arc<Runs>>) -> String {
    runs.ran("count_up");
    "counted".into()
}

/// Fails, as a business error the model reads.
#[tool(read_only)]
async fn failing_lookup(runs: State<Arc<Runs>>) -> Result<String, ToolError> {
    runs.ran("failing_lookup");
    Err(ToolError::new("the catalogue is down"))
}

/// Only for admins; the same for every admin.
#[tool(read_only, scopes("admin"))]
async fn sales_report(runs: State<Arc<Runs>>) -> String {
    runs.ran("sales_report");
    "sales: 42".into()
}

/// A report larger than the cache keeps.
#[tool(read_only)]
async fn long_report(runs: State<Arc<Runs>>) -> String {
    runs.ran("long_report");
    "x".repeat(8 * 1024)
}

/// A confirmation form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// A price shown only once the user confirms: its result answers the user, not only the
/// arguments.
#[tool(read_only)]
async fn confirmed_price(
    sku: String,
    ctx: RequestContext,
    runs: State<Arc<Runs>>,
) -> Result<String, InputRequired> {
    runs.ran("confirmed_price");
    let answer = ctx.elicit::<Confirm>("confirm", "Show the price?")?;
    Ok(match answer.accepted() {
        Some(Confirm { confirm: true }) => format!("{sku}: 3 EUR"),
        _ => "not shown".to_owned(),
    })
}

/// The time now: fresh for 50 ms.
#[resource("ticker://now", cache = public, ttl = "50ms")]
async fn ticker(runs: State<Arc<Runs>>) -> String {
    runs.ran("ticker");
    "tick".into()
}

const ALICE_KEY: &str = "alice-key-0123456789";
const BOB_KEY: &str = "bob-key-0123456789ab";

fn server(runs: Arc<Runs>) -> Server {
    let keys = ApiKeys::new()
        .key(ALICE_KEY, Principal::new("alice").with_tenant("acme"))
        .and_then(|keys| keys.key(BOB_KEY, Principal::new("bob").with_tenant("acme")))
        .expect("valid keys");
    with_cache(
        Server::new("shop", "1.0.0")
            .only(tools![
                price,
                exchange_rate,
                count_up,
                failing_lookup,
                confirmed_price,
                sales_report,
                long_report
            ])
            .only_resources(resources![stock, basket, ticker])
            .state(runs)
            .verify_tokens(keys),
    )
}

// ANCHOR: server
/// `server`, answering read-only calls from its cache for up to a minute.
fn with_cache(server: Server) -> Server {
    server.cache_responses(
        ResponseCache::new(Duration::from_secs(60))
            // Their results hold nothing of the caller's.
            .public_tools(["exchange_rate", "sales_report"])
            // Larger results are served, not kept.
            .max_entry_bytes(4 * 1024),
    )
}
// ANCHOR_END: server

fn app(runs: &Arc<Runs>) -> App {
    server(runs.clone()).build().expect("builds")
}

fn alice() -> Principal {
    Principal::new("alice").with_tenant("acme")
}

fn bob() -> Principal {
    Principal::new("bob").with_tenant("acme")
}

/// The eras the in-process tests run in.
fn eras() -> Vec<&'static str> {
    vec![
        "2026-07-28",
        #[cfg(feature = "legacy")]
        "2025-11-25",
    ]
}

/// A client of `app` in `era`, as `who`.
fn client(app: &App, era: &str, who: Option<Principal>) -> TestClient {
    #[cfg(feature = "legacy")]
    let client = if era == "2026-07-28" {
        TestClient::new(app.clone())
    } else {
        TestClient::legacy(app.clone(), era)
    };
    #[cfg(not(feature = "legacy"))]
    let client = {
        let _ = era;
        TestClient::new(app.clone())
    };
    match who {
        Some(who) => client.as_principal(who),
        None => client,
    }
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .or_else(|| result["contents"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn the_same_call_runs_once_and_other_arguments_run_again() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let client = client(&app, era, Some(alice()));
        let first = client
            .call_tool("price", json!({"sku": "tea", "qty": 2}))
            .await;
        let again = client
            .call_tool("price", json!({"qty": 2, "sku": "tea"}))
            .await;
        assert_eq!(text(&first), "2 x tea for alice@acme", "{era}: {first}");
        assert_eq!(first, again, "{era}");
        assert_eq!(runs.of("price"), 1, "{era}: a hit");
        let other = client
            .call_tool("price", json!({"sku": "tea", "qty": 3}))
            .await;
        assert_eq!(text(&other), "3 x tea for alice@acme", "{era}: {other}");
        assert_eq!(runs.of("price"), 2, "{era}: other arguments miss");
        client.read_resource("stock://tea").await;
        let stock = client.read_resource("stock://tea").await;
        assert_eq!(text(&stock), "tea: 12 in stock", "{era}: {stock}");
        assert_eq!(runs.of("stock"), 1, "{era}");
        client.read_resource("stock://coffee").await;
        assert_eq!(runs.of("stock"), 2, "{era}: another URI misses");
    }
}

/// The arguments as the client wrote them, in two orders, over HTTP: one entry.
#[tokio::test]
async fn the_order_of_the_arguments_does_not_matter() {
    let runs = Arc::new(Runs::default());
    let app = app(&runs);
    let http = HttpTestClient::new(&app).bearer(ALICE_KEY);
    let mut texts = Vec::new();
    for (id, arguments) in [
        (1, r#"{"sku":"tea","qty":2}"#),
        (2, r#"{"qty":2,"sku":"tea"}"#),
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"price","arguments":{arguments},"_meta":{meta}}}}}"#,
            meta = mcp_runtime::testing::default_meta()
        );
        let response = http.post(&body).await;
        texts.push(text(&response.result()));
    }
    assert_eq!(texts, ["2 x tea for alice@acme", "2 x tea for alice@acme"]);
    assert_eq!(runs.of("price"), 1);
}

#[tokio::test]
async fn a_private_result_is_never_served_to_another_caller() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let callers = [
            (Some(alice()), "alice@acme"),
            (Some(bob()), "bob@acme"),
            // The same subject in another tenant is another caller.
            (
                Some(Principal::new("alice").with_tenant("globex")),
                "alice@globex",
            ),
            (Some(Principal::new("alice")), "alice@-"),
            (None, "anonymous"),
        ];
        for (who, name) in &callers {
            let client = client(&app, era, who.clone());
            let price = client
                .call_tool("price", json!({"sku": "tea", "qty": 1}))
                .await;
            assert_eq!(
                text(&price),
                format!("1 x tea for {name}"),
                "{era}: {price}"
            );
            let basket = client.read_resource("basket://mine").await;
            assert_eq!(text(&basket), format!("the basket of {name}"), "{era}");
        }
        assert_eq!(runs.of("price"), callers.len(), "{era}: each ran its own");
        assert_eq!(runs.of("basket"), callers.len(), "{era}");
        // Each caller's own entry serves it again.
        for (who, name) in &callers {
            let client = client(&app, era, who.clone());
            let price = client
                .call_tool("price", json!({"sku": "tea", "qty": 1}))
                .await;
            assert_eq!(
                text(&price),
                format!("1 x tea for {name}"),
                "{era}: {price}"
            );
        }
        assert_eq!(runs.of("price"), callers.len(), "{era}: all hits");
    }
}

#[tokio::test]
async fn a_private_result_stays_with_its_caller_over_http() {
    let runs = Arc::new(Runs::default());
    let app = app(&runs);
    let alice = HttpTestClient::new(&app).bearer(ALICE_KEY);
    let bob = HttpTestClient::new(&app).bearer(BOB_KEY);
    for _ in 0..2 {
        for (client, name) in [(&alice, "alice@acme"), (&bob, "bob@acme")] {
            let price = client
                .call_tool("price", json!({"sku": "tea", "qty": 1}))
                .await;
            assert_eq!(text(&price.result()), format!("1 x tea for {name}"));
        }
    }
    assert_eq!(runs.of("price"), 2, "one run per caller");
    let anonymous = HttpTestClient::new(&app)
        .call_tool("price", json!({"sku": "tea", "qty": 1}))
        .await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.text);
    assert_eq!(runs.of("price"), 2);
}

#[tokio::test]
async fn a_public_result_is_shared_by_every_caller() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        for who in [Some(alice()), Some(bob()), None] {
            let client = client(&app, era, who);
            let rate = client
                .call_tool("exchange_rate", json!({"currency": "USD"}))
                .await;
            assert_eq!(text(&rate), "1 EUR = 1.08 USD", "{era}: {rate}");
            let stock = client.read_resource("stock://tea").await;
            assert_eq!(text(&stock), "tea: 12 in stock", "{era}: {stock}");
        }
        assert_eq!(runs.of("exchange_rate"), 1, "{era}");
        assert_eq!(runs.of("stock"), 1, "{era}");
    }
    let runs = Arc::new(Runs::default());
    let app = app(&runs);
    for key in [ALICE_KEY, BOB_KEY] {
        let http = HttpTestClient::new(&app).bearer(key);
        let rate = http
            .call_tool("exchange_rate", json!({"currency": "USD"}))
            .await;
        assert_eq!(text(&rate.result()), "1 EUR = 1.08 USD");
    }
    assert_eq!(runs.of("exchange_rate"), 1, "over HTTP");
}

#[tokio::test]
async fn only_whole_successful_results_of_read_only_tools_are_kept() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let client = client(&app, era, Some(alice()));
        for _ in 0..2 {
            let counted = client.call_tool("count_up", json!({})).await;
            assert_eq!(text(&counted), "counted", "{era}: {counted}");
            let failed = client.call_tool("failing_lookup", json!({})).await;
            assert_eq!(failed["isError"], true, "{era}: {failed}");
            let long = client.call_tool("long_report", json!({})).await;
            assert_eq!(text(&long).len(), 8 * 1024, "{era}");
            // Refused by the argument checks: never reaches the cache.
            let invalid = client.call_tool("price", json!({"sku": "tea"})).await;
            assert_eq!(invalid["isError"], true, "{era}: {invalid}");
        }
        assert_eq!(runs.of("count_up"), 2, "{era}: not read-only");
        assert_eq!(runs.of("failing_lookup"), 2, "{era}: an error");
        assert_eq!(runs.of("long_report"), 2, "{era}: too large");
        assert_eq!(runs.of("price"), 0, "{era}");
    }
}

#[tokio::test]
async fn a_call_that_asked_the_user_is_never_cached() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let client = client(&app, era, Some(alice()))
            .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) });
        let first = client
            .call_tool("confirmed_price", json!({"sku": "tea"}))
            .await;
        assert_eq!(text(&first), "tea: 3 EUR", "{era}: {first}");
        let rounds = runs.of("confirmed_price");
        assert!(rounds >= 1, "{era}");
        let again = client
            .call_tool("confirmed_price", json!({"sku": "tea"}))
            .await;
        assert_eq!(text(&again), "tea: 3 EUR", "{era}: {again}");
        assert_eq!(runs.of("confirmed_price"), 2 * rounds, "{era}: asked again");
    }
}

#[tokio::test]
async fn an_entry_expires_with_its_time_to_live() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        // The cache's own time to live bounds the tools'.
        let app = server(runs.clone())
            .cache_responses(ResponseCache::new(Duration::from_millis(50)))
            .build()
            .expect("builds");
        let client = client(&app, era, Some(alice()));
        for _ in 0..2 {
            client
                .call_tool("price", json!({"sku": "tea", "qty": 1}))
                .await;
            // The resource's own, shorter than the cache's.
            client.read_resource("ticker://now").await;
        }
        assert_eq!((runs.of("price"), runs.of("ticker")), (1, 1), "{era}");
        tokio::time::sleep(Duration::from_millis(120)).await;
        client
            .call_tool("price", json!({"sku": "tea", "qty": 1}))
            .await;
        client.read_resource("ticker://now").await;
        assert_eq!(
            (runs.of("price"), runs.of("ticker")),
            (2, 2),
            "{era}: expired"
        );
    }
}

#[tokio::test]
async fn an_updated_resource_is_read_again_and_only_it() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let client = client(&app, era, Some(alice()));
        for uri in [
            "stock://tea",
            "stock://coffee",
            "stock://tea",
            "stock://coffee",
        ] {
            client.read_resource(uri).await;
        }
        assert_eq!(runs.of("stock"), 2, "{era}");
        // ANCHOR: updated
        app.handle().resource_updated("stock://tea");
        // ANCHOR_END: updated
        client.read_resource("stock://tea").await;
        client.read_resource("stock://coffee").await;
        assert_eq!(
            runs.of("stock"),
            3,
            "{era}: tea again, coffee from the cache"
        );
    }
}

#[tokio::test]
async fn a_list_change_drops_every_entry() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let client = client(&app, era, Some(alice()));
        let calls = || async {
            client
                .call_tool("price", json!({"sku": "tea", "qty": 1}))
                .await;
            client.read_resource("stock://tea").await;
        };
        calls().await;
        calls().await;
        assert_eq!((runs.of("price"), runs.of("stock")), (1, 1), "{era}");
        // Another tool goes: `notifications/tools/list_changed`.
        assert!(app.handle().remove_tool("count_up"));
        calls().await;
        calls().await;
        assert_eq!((runs.of("price"), runs.of("stock")), (2, 2), "{era}");
        // A tag turned off, even one nothing carries, changes the lists too.
        assert!(app.handle().disable_tag("seasonal"));
        calls().await;
        assert_eq!((runs.of("price"), runs.of("stock")), (3, 3), "{era}");
    }
}

#[tokio::test]
async fn a_refused_caller_gets_its_refusal_not_the_cached_result() {
    let admin = || Principal::new("ann").with_scopes(["admin"]);
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let app = app(&runs);
        let report = client(&app, era, Some(admin()))
            .call_tool("sales_report", json!({}))
            .await;
        assert_eq!(text(&report), "sales: 42", "{era}: {report}");
        for who in [Some(bob()), None] {
            let refused = client(&app, era, who)
                .request(
                    "tools/call",
                    json!({"name": "sales_report", "arguments": {}}),
                )
                .await;
            assert!(
                !refused.to_string().contains("sales: 42"),
                "{era}: {refused}"
            );
            assert!(
                refused.get("error").is_some() || refused["result"]["isError"] == true,
                "{era}: {refused}"
            );
        }
        let again = client(&app, era, Some(admin()))
            .call_tool("sales_report", json!({}))
            .await;
        assert_eq!(text(&again), "sales: 42", "{era}: {again}");
        assert_eq!(
            runs.of("sales_report"),
            1,
            "{era}: public, so shared by admins"
        );
    }
}

/// A layer counting the calls it sees.
fn counting(
    seen: Arc<Mutex<usize>>,
) -> impl tower::Layer<CallService, Service = CallService> + Clone + Send + Sync + 'static {
    tower::layer::layer_fn(move |inner: CallService| {
        let seen = seen.clone();
        CallService::new(tower::service_fn(move |call: Call| {
            let (inner, seen) = (inner.clone(), seen.clone());
            async move {
                if let Ok(mut seen) = seen.lock() {
                    *seen += 1;
                }
                inner.oneshot(call).await
            }
        }))
    })
}

#[tokio::test]
async fn the_servers_layers_see_every_call_hits_too() {
    for era in eras() {
        let runs = Arc::new(Runs::default());
        let seen = Arc::new(Mutex::new(0));
        let app = server(runs.clone())
            .layer(counting(seen.clone()))
            .build()
            .expect("builds");
        let client = client(&app, era, Some(alice()));
        for _ in 0..3 {
            let price = client
                .call_tool("price", json!({"sku": "tea", "qty": 1}))
                .await;
            assert_eq!(text(&price), "1 x tea for alice@acme", "{era}");
        }
        assert_eq!(runs.of("price"), 1, "{era}");
        assert_eq!(*seen.lock().expect("not poisoned"), 3, "{era}");
    }
}

/// A handshake-era session over HTTP, as `key`: `initialize`, then requests on the
/// session.
#[cfg(feature = "legacy")]
async fn handshake_over_http(app: &App, key: &str) -> HttpTestClient {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "cache-test", "version": "1.0.0"}}});
    let opened = HttpTestClient::new(app)
        .bearer(key)
        .post(&initialize.to_string())
        .await;
    let session = opened
        .header("mcp-session-id")
        .unwrap_or_default()
        .to_owned();
    assert!(!session.is_empty(), "{}", opened.text);
    let client = HttpTestClient::new(app)
        .bearer(key)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25");
    client
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
        .await;
    client
}

#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_era_sessions_over_http_hit_and_miss_per_caller() {
    let runs = Arc::new(Runs::default());
    let app = app(&runs);
    let alice = handshake_over_http(&app, ALICE_KEY).await;
    let bob = handshake_over_http(&app, BOB_KEY).await;
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    for id in 1..=2 {
        for (client, name) in [(&alice, "alice@acme"), (&bob, "bob@acme")] {
            let price = client
                .post(&call(id, "price", json!({"sku": "tea", "qty": 1})))
                .await;
            assert_eq!(
                text(&price.result()),
                format!("1 x tea for {name}"),
                "{}",
                price.text
            );
            let rate = client
                .post(&call(id, "exchange_rate", json!({"currency": "USD"})))
                .await;
            assert_eq!(text(&rate.result()), "1 EUR = 1.08 USD", "{}", rate.text);
        }
    }
    assert_eq!(runs.of("price"), 2, "private: one run per caller");
    assert_eq!(runs.of("exchange_rate"), 1, "public: one run in all");
}

/// Two instances of one server sharing a SQLite file, as two processes would: one's
/// entry serves the other, and a change announced on one drops the other's entries.
#[tokio::test]
async fn instances_sharing_a_store_share_entries_and_invalidations() {
    for era in eras() {
        let dir = std::env::temp_dir().join(format!("mcp-cache-{}-{era}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let file = dir.join("records.db");
        let runs = Arc::new(Runs::default());
        let instance = || {
            // ANCHOR: shared
            let store = mcp_runtime::store::SqliteStore::open(&file).expect("opens");
            server(runs.clone()).store(store).build().expect("builds")
            // ANCHOR_END: shared
        };
        let (one, two) = (instance(), instance());
        let (on_one, on_two) = (
            client(&one, era, Some(alice())),
            client(&two, era, Some(alice())),
        );
        let price = json!({"sku": "tea", "qty": 1});
        on_one.read_resource("stock://tea").await;
        on_one.call_tool("price", price.clone()).await;
        let read = on_two.read_resource("stock://tea").await;
        assert_eq!(text(&read), "tea: 12 in stock", "{era}: {read}");
        let quoted = on_two.call_tool("price", price.clone()).await;
        assert_eq!(text(&quoted), "1 x tea for alice@acme", "{era}: {quoted}");
        assert_eq!(
            (runs.of("stock"), runs.of("price")),
            (1, 1),
            "{era}: the second served from the first's entries"
        );
        two.handle().resource_updated("stock://tea");
        // The second reads again (writing the change first) and keeps the new entry,
        // which the first then serves.
        on_two.read_resource("stock://tea").await;
        on_one.read_resource("stock://tea").await;
        assert_eq!(runs.of("stock"), 2, "{era}");
        // A list changed on the second drops the first's entries too.
        assert!(two.handle().remove_tool("count_up"));
        on_two.call_tool("price", price.clone()).await;
        on_one.call_tool("price", price.clone()).await;
        on_one.read_resource("stock://tea").await;
        assert_eq!((runs.of("stock"), runs.of("price")), (3, 2), "{era}");
        drop((one, two));
        std::fs::remove_dir_all(&dir).ok();
    }
}
