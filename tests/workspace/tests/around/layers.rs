//! `Server::layer` and `Server::layer_if`: `tower` layers around `tools/call`,
//! `resources/read` and `prompts/get`, in both eras and over HTTP. A layer sees the call
//! (kind, target, checked arguments, caller) and its outcome; it may answer itself or
//! refuse; it runs after authorization and argument checks, so it never sees a call that
//! fails them; it cannot run a handler twice; a layer for some calls skips the others.

// ANCHOR: uses
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_runtime::layers::{Call, CallKind, CallService, Outcome};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::codes;
use mcp_runtime::testing::{HttpTestClient, TestClient};
use mcp_runtime::App;
use serde_json::{json, Value};
use tower::ServiceExt as _;
// ANCHOR_END: uses

/// How many times the handlers ran.
#[derive(Default)]
struct Runs(AtomicUsize);

impl Runs {
    fn ran(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Adds two numbers.
#[tool(read_only)]
async fn add(a: i64, b: i64, runs: State<Arc<Runs>>) -> i64 {
    runs.ran();
    a + b
}

/// Always refuses.
#[tool]
async fn refuse() -> Result<String, ToolError> {
    Err(ToolError::new("no"))
}

/// Charges a card; billing.
#[tool(tags("billing"), idempotency)]
async fn charge(cents: u64, runs: State<Arc<Runs>>) -> String {
    runs.ran();
    format!("charged {cents}")
}

/// Quick, within a short limit of its own.
#[tool(timeout = "100ms")]
async fn quick() -> &'static str {
    "quick"
}

/// Only for admins.
#[tool(scopes("admin"))]
async fn purge() -> &'static str {
    "purged"
}

/// A note.
#[resource("notes://<id>")]
async fn note(id: u64) -> String {
    format!("note {id}")
}

/// Greets someone.
#[prompt]
async fn greet(name: String) -> String {
    format!("Hello, {name}")
}

// ANCHOR: recording
/// What a layer saw of one call: kind, target, arguments, caller, and how it ended
/// ("ok", "business error" or the protocol error's message).
type Seen = (CallKind, String, Value, Option<String>, String);

/// A layer recording every call it sees into `log`.
fn recording(
    log: Arc<Mutex<Vec<Seen>>>,
) -> impl tower::Layer<CallService, Service = CallService> + Clone + Send + Sync + 'static {
    tower::layer::layer_fn(move |inner: CallService| {
        let log = log.clone();
        CallService::new(tower::service_fn(move |call: Call| {
            let (inner, log) = (inner.clone(), log.clone());
            async move {
                let who = call.context().principal().map(|p| p.subject.clone());
                let (kind, target) = (call.kind(), call.target().to_owned());
                let arguments = Value::Object(call.arguments().clone());
                let outcome = inner.oneshot(call).await;
                let ended = match &outcome {
                    Ok(Outcome::Tool(result)) if result.is_error => "business error".to_owned(),
                    Ok(_) => "ok".to_owned(),
                    Err(error) => error.message.clone(),
                };
                if let Ok(mut log) = log.lock() {
                    log.push((kind, target, arguments, who, ended));
                }
                outcome
            }
        }))
    })
}

// ANCHOR_END: recording

fn server(runs: Arc<Runs>) -> Server {
    Server::new("layered", "1.0.0")
        .only(tools![add, refuse, charge, purge, quick])
        .only_resources(resources![note])
        .only_prompts(prompts![greet])
        .state(runs)
}

fn alice() -> Principal {
    Principal::new("alice")
}

fn clients(app: &App) -> Vec<(&'static str, TestClient)> {
    vec![
        (
            "2026-07-28",
            TestClient::new(app.clone()).as_principal(alice()),
        ),
        #[cfg(feature = "legacy")]
        (
            "2025-11-25",
            TestClient::legacy(app.clone(), "2025-11-25").as_principal(alice()),
        ),
    ]
}

/// The server with the recording layer, and its log.
fn recorded() -> (App, Arc<Mutex<Vec<Seen>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let app = server(Arc::default())
        .layer(recording(log.clone()))
        .build()
        .expect("builds");
    (app, log)
}

fn taken(log: &Arc<Mutex<Vec<Seen>>>) -> Vec<Seen> {
    log.lock()
        .map(|mut log| std::mem::take(&mut *log))
        .unwrap_or_default()
}

#[tokio::test]
async fn a_layer_sees_every_call_its_caller_and_its_outcome() {
    let (app, log) = recorded();
    for (era, client) in clients(&app) {
        let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await;
        assert_eq!(sum["content"][0]["text"], "5", "{era}: {sum}");
        client.call_tool("refuse", json!({})).await;
        client.read_resource("notes://7").await;
        client.get_prompt("greet", json!({"name": "Ann"})).await;
        let alice = Some("alice".to_owned());
        assert_eq!(
            taken(&log),
            [
                (
                    CallKind::Tool,
                    "add".into(),
                    json!({"a": 2, "b": 3}),
                    alice.clone(),
                    "ok".into()
                ),
                (
                    CallKind::Tool,
                    "refuse".into(),
                    json!({}),
                    alice.clone(),
                    "business error".into()
                ),
                (
                    CallKind::Resource,
                    "notes://7".into(),
                    json!({}),
                    alice.clone(),
                    "ok".into()
                ),
                (
                    CallKind::Prompt,
                    "greet".into(),
                    json!({"name": "Ann"}),
                    alice,
                    "ok".into()
                ),
            ],
            "{era}"
        );
    }
    let http = HttpTestClient::new(&app);
    let sum = http.call_tool("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(sum.result()["content"][0]["text"], "2");
    let seen = taken(&log);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!((seen[0].0, seen[0].1.as_str()), (CallKind::Tool, "add"));
}

// ANCHOR: answering
/// A layer that answers `add` itself, as a cache would, and refuses `refuse`.
fn answering() -> impl tower::Layer<CallService, Service = CallService> + Clone + Send + Sync {
    tower::layer::layer_fn(|inner: CallService| {
        CallService::new(tower::service_fn(move |call: Call| {
            let inner = inner.clone();
            async move {
                match call.target() {
                    "add" => Ok(Outcome::Tool(CallToolResult {
                        content: vec![Content::text("42")],
                        structured_content: Some(json!(42).into()),
                        ..Default::default()
                    })),
                    "refuse" => Err(RpcError::new(codes::ACCESS_DENIED, "refused by a layer")),
                    _ => inner.oneshot(call).await,
                }
            }
        }))
    })
}

// ANCHOR_END: answering

#[tokio::test]
async fn a_layer_may_answer_itself_or_refuse() {
    let runs = Arc::new(Runs::default());
    let app = server(runs.clone())
        .layer(answering())
        .build()
        .expect("builds");
    for (era, client) in clients(&app) {
        let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await;
        assert_eq!(sum["content"][0]["text"], "42", "{era}: {sum}");
        let refused = client
            .request("tools/call", json!({"name": "refuse", "arguments": {}}))
            .await;
        assert_eq!(
            (&refused["error"]["code"], &refused["error"]["message"]),
            (&json!(-31403), &json!("refused by a layer")),
            "{era}: {refused}"
        );
        let greeting = client.get_prompt("greet", json!({"name": "Ann"})).await;
        assert!(
            greeting.to_string().contains("Hello, Ann"),
            "{era}: {greeting}"
        );
    }
    assert_eq!(
        runs.0.load(Ordering::SeqCst),
        0,
        "the handler of add never ran"
    );
}

#[tokio::test]
async fn a_layer_never_sees_a_call_that_fails_authorization_or_its_checks() {
    let (app, log) = recorded();
    for (era, client) in clients(&app) {
        // Alice lacks the scope `admin`.
        let refused = client
            .request("tools/call", json!({"name": "purge", "arguments": {}}))
            .await;
        assert!(refused.get("error").is_some(), "{era}: {refused}");
        // Arguments of the wrong type.
        let invalid = client.call_tool("add", json!({"a": "two", "b": 3})).await;
        assert_eq!(invalid["isError"], true, "{era}: {invalid}");
        assert_eq!(taken(&log), [], "{era}");
    }
}

/// A layer that runs the call twice, as a careless retry would, and answers the second.
fn twice() -> impl tower::Layer<CallService, Service = CallService> + Clone + Send + Sync {
    tower::layer::layer_fn(|inner: CallService| {
        CallService::new(tower::service_fn(move |call: Call| {
            let inner = inner.clone();
            async move {
                let again = call.clone();
                let _first = inner.clone().oneshot(call).await;
                inner.oneshot(again).await
            }
        }))
    })
}

#[tokio::test]
async fn a_layer_cannot_run_a_call_twice() {
    let runs = Arc::new(Runs::default());
    let app = server(runs.clone()).layer(twice()).build().expect("builds");
    let client = TestClient::new(app).as_principal(alice());
    let charged = client
        .request(
            "tools/call",
            json!({"name": "charge", "arguments": {"cents": 500, "idempotencyKey": "k-1"}}),
        )
        .await;
    let message = charged["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("a second time"), "{charged}");
    assert_eq!(runs.0.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_layer_for_some_calls_skips_the_others() {
    // ANCHOR: layer_if
    let refuse_billing = tower::layer::layer_fn(|_inner: CallService| {
        CallService::new(tower::service_fn(|_call: Call| async {
            Err::<Outcome, _>(RpcError::new(codes::ACCESS_DENIED, "billing is closed"))
        }))
    });
    let app = server(Arc::default())
        .layer_if(
            |call: &Call| call.tags().contains(&"billing"),
            refuse_billing,
        )
        .build()
        .expect("builds");
    // ANCHOR_END: layer_if
    for (era, client) in clients(&app) {
        let charged = client
            .request(
                "tools/call",
                json!({"name": "charge", "arguments": {"cents": 5, "idempotencyKey": "k-2"}}),
            )
            .await;
        assert_eq!(
            charged["error"]["message"], "billing is closed",
            "{era}: {charged}"
        );
        let sum = client.call_tool("add", json!({"a": 1, "b": 2})).await;
        assert_eq!(sum["content"][0]["text"], "3", "{era}: {sum}");
    }
}

/// A layer noting its name in `order` as a call passes in.
fn noting(
    name: &'static str,
    order: Arc<Mutex<Vec<&'static str>>>,
) -> impl tower::Layer<CallService, Service = CallService> + Clone + Send + Sync {
    tower::layer::layer_fn(move |inner: CallService| {
        let order = order.clone();
        CallService::new(tower::service_fn(move |call: Call| {
            let (inner, order) = (inner.clone(), order.clone());
            async move {
                if let Ok(mut order) = order.lock() {
                    order.push(name);
                }
                inner.oneshot(call).await
            }
        }))
    })
}

#[tokio::test]
async fn layers_run_in_the_order_they_were_added_the_first_outermost() {
    let order = Arc::new(Mutex::new(Vec::new()));
    let app = server(Arc::default())
        .layer(noting("first", order.clone()))
        .layer(noting("second", order.clone()))
        .build()
        .expect("builds");
    let client = TestClient::new(app).as_principal(alice());
    client.call_tool("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(*order.lock().expect("not poisoned"), ["first", "second"]);
}

/// The call's time limit holds the layers too: a layer slower than the tool's `timeout`
/// ends in the tool's timeout error.
#[tokio::test]
async fn layers_run_within_the_calls_time_limit() {
    let slow = tower::layer::layer_fn(|inner: CallService| {
        CallService::new(tower::service_fn(move |call: Call| {
            let inner = inner.clone();
            async move {
                tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                inner.oneshot(call).await
            }
        }))
    });
    let app = server(Arc::default()).layer(slow).build().expect("builds");
    for (era, client) in clients(&app) {
        let result = client.call_tool("quick", json!({})).await;
        assert_eq!(
            result["structuredContent"]["error"]["code"], "timeout",
            "{era}: {result}"
        );
    }
}

/// A layer counting the calls that reach it.
fn counting(
    seen: Arc<AtomicUsize>,
) -> impl tower::Layer<CallService, Service = CallService> + Clone + Send + Sync + 'static {
    tower::layer::layer_fn(move |inner: CallService| {
        let seen = seen.clone();
        CallService::new(tower::service_fn(move |call: Call| {
            seen.fetch_add(1, Ordering::SeqCst);
            inner.clone().oneshot(call)
        }))
    })
}

/// No layer can make a confirmed payment happen twice (S-130): a replayed confirmation is
/// refused by the single-use check that the bottom of the stack runs before the handler,
/// whatever the layers do; a repeated idempotency key is answered from its record before
/// any layer runs.
#[tokio::test]
async fn a_layer_cannot_skip_a_confirmation_or_an_idempotency_record() {
    use mcp_workspace_tests::side_effects::{self, Payments};
    let payments = Payments::new();
    let seen = Arc::new(AtomicUsize::new(0));
    let app = side_effects::server(payments.clone())
        .layer(counting(seen.clone()))
        .build()
        .expect("builds");
    let client = TestClient::new(app);
    let pay = |key: Option<&str>, extra: Value| {
        let mut params = json!({
            "name": "pay",
            "arguments": {"payee": "layered", "amount_cents": 500},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            },
        });
        if let Some(key) = key {
            params["arguments"]["idempotencyKey"] = json!(key);
        }
        if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
            p.extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    };
    // Asked, confirmed: the handler runs twice (it asks, then pays), through the layer.
    let confirm = |asked: &Value| {
        json!({
            "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
            "requestState": asked["result"]["requestState"].clone(),
        })
    };
    let asked = client.message(pay(None, json!({}))).await.unwrap();
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let confirmed = pay(None, confirm(&asked));
    let paid = client.message(confirmed.clone()).await.unwrap();
    assert_eq!(paid["result"]["structuredContent"]["number"], 1, "{paid}");
    assert_eq!(seen.load(Ordering::SeqCst), 2);
    // The confirmation replayed: the single-use check is part of the handler's run at the
    // bottom of the stack, so the layer passes the call on and gets the refusal back; the
    // payment does not happen again.
    let replayed = client.message(confirmed).await.unwrap();
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert_eq!(replayed["error"]["data"]["reason"], "it was already used");
    assert_eq!(seen.load(Ordering::SeqCst), 3);
    assert_eq!(payments.to("layered"), 1);

    // Under an idempotency key: once paid, the same key is answered from its record
    // before any layer.
    let asked = client.message(pay(Some("pay-1"), json!({}))).await.unwrap();
    let paid = client
        .message(pay(Some("pay-1"), confirm(&asked)))
        .await
        .unwrap();
    assert_eq!(paid["result"]["structuredContent"]["number"], 2, "{paid}");
    let reached = seen.load(Ordering::SeqCst);
    let repeated = client.message(pay(Some("pay-1"), json!({}))).await.unwrap();
    assert_eq!(
        repeated["result"]["structuredContent"]["number"], 2,
        "{repeated}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), reached);
    assert_eq!(payments.to("layered"), 2);
}
