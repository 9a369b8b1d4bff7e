//! Side effects that happen once: single-use confirmations (S-130), idempotency keys, and
//! business errors in the shape the published output schema admits (S-184). Each
//! behaviour is checked in process, over the stdio framing and over the HTTP router.

mod common;

use std::time::Duration;

use mcp_runtime::testing::{http_request, TestClient};
use mcp_runtime::{App, Principal};
use mcp_workspace_tests::side_effects::{self, Payments};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt as _;
use tower::ServiceExt as _;

fn app(payments: &Payments) -> App {
    side_effects::server(payments.clone())
        .build()
        .expect("the side-effect fixtures build")
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

/// `tools/call` params for `name` with `arguments`, plus `extra` members
/// (`inputResponses`, `requestState`).
fn params(name: &str, arguments: Value, extra: Value) -> Value {
    let mut params = json!({"name": name, "arguments": arguments, "_meta": meta()});
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        p.extend(extra);
    }
    params
}

fn accept() -> Value {
    json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
}

/// One client connection: in process, over the stdio framing, or over the HTTP router.
enum Conn {
    InProcess(TestClient),
    Stdio {
        lines: common::StdioLines,
        writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
        next_id: u64,
    },
    Http {
        app: App,
        principal: Option<Principal>,
    },
}

impl Conn {
    /// The three connections to `app`, each as `principal`; stdio has the server's
    /// environment principal (none here), so it is left out when one is asked for.
    fn all(app: &App, principal: Option<Principal>) -> Vec<(&'static str, Conn)> {
        let mut client = TestClient::new(app.clone());
        if let Some(principal) = principal.clone() {
            client = client.as_principal(principal);
        }
        let mut conns = vec![
            ("in-process", Conn::InProcess(client)),
            (
                "http",
                Conn::Http {
                    app: app.clone(),
                    principal: principal.clone(),
                },
            ),
        ];
        if principal.is_none() {
            let (lines, writer) = common::stdio(app.clone());
            conns.push((
                "stdio",
                Conn::Stdio {
                    lines,
                    writer,
                    next_id: 1,
                },
            ));
        }
        conns
    }

    /// Send `tools/call` with `params`; the whole response.
    async fn call(&mut self, params: Value) -> Value {
        match self {
            Conn::InProcess(client) => client.request("tools/call", params).await,
            Conn::Stdio {
                lines,
                writer,
                next_id,
            } => {
                *next_id += 1;
                let id = *next_id;
                let message =
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
                writer
                    .write_all(format!("{message}\n").as_bytes())
                    .await
                    .unwrap();
                loop {
                    let frame = common::next_line(lines).await;
                    if frame["id"] == json!(id) {
                        return frame;
                    }
                }
            }
            Conn::Http { app, principal } => {
                let message =
                    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
                let mut request = http_request(&message.to_string()).unwrap();
                if let Some(principal) = principal.clone() {
                    request.extensions_mut().insert(principal);
                }
                let response = app.router().oneshot(request).await.unwrap();
                let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                    .await
                    .unwrap();
                serde_json::from_slice(&bytes).unwrap()
            }
        }
    }
}

/// The `structuredContent.error.code` of a business error result.
fn error_code(response: &Value) -> &Value {
    assert_eq!(response["result"]["isError"], true, "{response}");
    &response["result"]["structuredContent"]["error"]["code"]
}

// ---- single-use confirmations ----------------------------------------------------------

#[tokio::test]
async fn a_replayed_confirmation_is_refused_and_the_payment_happens_once() {
    let payments = Payments::new();
    let app = app(&payments);
    for (wire, mut conn) in Conn::all(&app, None) {
        let payee = format!("replay-{wire}");
        let args = json!({"payee": payee, "amount_cents": 500});
        let asked = conn.call(params("pay", args.clone(), json!({}))).await;
        assert_eq!(asked["result"]["resultType"], "input_required", "{wire}");
        let state = asked["result"]["requestState"].clone();
        let confirmed = params(
            "pay",
            args.clone(),
            json!({"inputResponses": accept(), "requestState": state}),
        );
        let paid = conn.call(confirmed.clone()).await;
        assert_eq!(
            paid["result"]["structuredContent"]["number"], 1,
            "{wire}: {paid}"
        );
        // S-130: the same final round again is refused before the handler runs.
        let replayed = conn.call(confirmed).await;
        assert_eq!(replayed["error"]["code"], -32602, "{wire}: {replayed}");
        assert_eq!(replayed["error"]["data"]["reason"], "it was already used");
        assert!(replayed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("start over"));
        assert_eq!(payments.to(&payee), 1, "{wire}: paid once");

        // Starting over asks again, and a new confirmation pays again.
        let again = conn.call(params("pay", args.clone(), json!({}))).await;
        assert_eq!(again["result"]["resultType"], "input_required");
        let state = again["result"]["requestState"].clone();
        conn.call(params(
            "pay",
            args,
            json!({"inputResponses": accept(), "requestState": state}),
        ))
        .await;
        assert_eq!(payments.to(&payee), 2, "{wire}");
    }
}

#[tokio::test]
async fn an_answer_without_the_state_that_asked_does_not_confirm_anything() {
    let payments = Payments::new();
    let app = app(&payments);
    for (wire, mut conn) in Conn::all(&app, None) {
        let payee = format!("unasked-{wire}");
        // A confirmation sent without being asked (or with its state stripped, as a
        // replay might) counts for nothing: the question is asked (S-135, S-130).
        let skipped = conn
            .call(params(
                "pay",
                json!({"payee": payee, "amount_cents": 5}),
                json!({"inputResponses": accept()}),
            ))
            .await;
        assert_eq!(skipped["result"]["resultType"], "input_required", "{wire}");
        assert_eq!(payments.to(&payee), 0);
        // A tool that is not single-use takes an answer without a state, as a server
        // keeping no state would.
        let taken = conn
            .call(params(
                "note",
                json!({"payee": payee}),
                json!({"inputResponses": accept()}),
            ))
            .await;
        assert_eq!(taken["result"]["content"][0]["text"], "note 1", "{wire}");
    }
}

#[tokio::test]
async fn once_guards_a_tool_that_is_not_destructive_and_once_false_opts_out() {
    let payments = Payments::new();
    let client = TestClient::new(app(&payments));
    for (tool, payee, replays) in [
        ("voucher", "once-voucher", false),
        ("note", "once-note", true),
    ] {
        let asked = client
            .request(
                "tools/call",
                params(tool, json!({"payee": payee}), json!({})),
            )
            .await;
        let confirmed = params(
            tool,
            json!({"payee": payee}),
            json!({"inputResponses": accept(), "requestState": asked["result"]["requestState"]}),
        );
        let first = client.request("tools/call", confirmed.clone()).await;
        assert_eq!(first["result"]["isError"], Value::Null, "{first}");
        let second = client.request("tools/call", confirmed).await;
        if replays {
            assert_eq!(second["result"]["content"][0]["text"], "note 2");
            assert_eq!(payments.to(payee), 2);
        } else {
            assert_eq!(second["error"]["code"], -32602, "S-130: {second}");
            assert_eq!(payments.to(payee), 1);
        }
    }
}

// ---- idempotency keys ------------------------------------------------------------------

#[tokio::test]
async fn the_key_is_published_as_an_optional_argument_the_model_is_told_about() {
    let client = TestClient::new(app(&Payments::new()));
    let listed = client.request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let pay = tools.iter().find(|t| t["name"] == "pay").unwrap();
    let key = &pay["inputSchema"]["properties"]["idempotencyKey"];
    assert_eq!(key["type"], "string");
    assert_eq!(key["maxLength"], 255);
    assert!(key["description"]
        .as_str()
        .unwrap()
        .contains("call again with the same key and the same arguments"));
    assert_eq!(
        pay["inputSchema"]["required"],
        json!(["payee", "amount_cents"]),
        "the key stays optional"
    );
    let voucher = tools.iter().find(|t| t["name"] == "voucher").unwrap();
    assert!(voucher["inputSchema"]["properties"]
        .get("idempotencyKey")
        .is_none());
}

#[tokio::test]
async fn a_retry_with_the_same_key_gets_the_recorded_result_and_the_payment_happens_once() {
    let payments = Payments::new();
    let app = app(&payments);
    for (wire, mut conn) in Conn::all(&app, None) {
        let payee = format!("retry-{wire}");
        let call = params(
            "pay_now",
            json!({"payee": payee, "amount_cents": 700, "idempotencyKey": format!("key-{wire}")}),
            json!({}),
        );
        let first = conn.call(call.clone()).await;
        assert_eq!(first["result"]["structuredContent"]["number"], 1, "{wire}");
        let retried = conn.call(call).await;
        assert_eq!(
            retried["result"]["structuredContent"], first["result"]["structuredContent"],
            "{wire}"
        );
        assert_eq!(retried["result"]["content"], first["result"]["content"]);
        assert_eq!(payments.to(&payee), 1, "{wire}: the handler ran once");
        // Without a key, every call runs.
        conn.call(params(
            "pay_now",
            json!({"payee": payee, "amount_cents": 700}),
            json!({}),
        ))
        .await;
        assert_eq!(payments.to(&payee), 2, "{wire}");
    }
}

#[tokio::test]
async fn a_handler_reads_the_key_to_forward_it_and_never_sees_it_among_its_arguments() {
    let payments = Payments::new();
    let app = app(&payments);
    for (wire, mut conn) in Conn::all(&app, None) {
        let payee = format!("bank-{wire}");
        let keyed = conn
            .call(params(
                "pay_via_bank",
                json!({"payee": payee, "idempotencyKey": format!("k-{wire}")}),
                json!({}),
            ))
            .await;
        assert_eq!(
            keyed["result"]["content"][0]["text"],
            format!("payment 1 sent with Idempotency-Key k-{wire}"),
            "{wire}"
        );
        let unkeyed = conn
            .call(params("pay_via_bank", json!({"payee": payee}), json!({})))
            .await;
        assert_eq!(
            unkeyed["result"]["content"][0]["text"], "payment 2 sent without a key",
            "{wire}"
        );
    }
}

#[tokio::test]
async fn a_retry_gets_the_very_bytes_of_the_first_answer() {
    // The receipt's members are written in the type's order (payee, amount_cents,
    // number), not sorted: the record keeps the result as that text.
    let payments = Payments::new();
    let app = app(&payments);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params(
        "pay_now",
        json!({"payee": "bytes", "amount_cents": 5, "idempotencyKey": "key-bytes"}),
        json!({}),
    )});
    let mut bodies = Vec::new();
    for _ in 0..2 {
        let request = http_request(&message.to_string()).unwrap();
        let response = app.router().oneshot(request).await.unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        bodies.push(String::from_utf8(bytes.to_vec()).unwrap());
    }
    assert!(
        bodies[0].contains(r#""structuredContent":{"payee":"bytes","amount_cents":5,"number":1}"#),
        "{}",
        bodies[0]
    );
    assert_eq!(bodies[1], bodies[0]);
    assert_eq!(payments.to("bytes"), 1);
}

#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_handshake_era_retry_with_the_same_key_gets_the_recorded_result() {
    let payments = Payments::new();
    let app = app(&payments);
    let client = mcp_runtime::testing::TestClient::legacy(app, "2025-11-25")
        .on_elicit(|_| async { json!({"action": "accept", "content": {"confirm": true}}) });
    let args = json!({"payee": "legacy", "amount_cents": 30, "idempotencyKey": "legacy-1"});
    let first = client.call_tool("pay", args.clone()).await;
    assert_eq!(first["structuredContent"]["number"], 1, "{first}");
    let retried = client.call_tool("pay", args).await;
    assert_eq!(retried["structuredContent"], first["structuredContent"]);
    assert_eq!(payments.to("legacy"), 1);
}

#[tokio::test]
async fn the_rounds_of_one_call_share_its_key() {
    let payments = Payments::new();
    let client = TestClient::new(app(&payments));
    let args = json!({"payee": "rounds", "amount_cents": 40, "idempotencyKey": "rounds-1"});
    // Round 1 asks; it records no outcome, so round 2 under the same key runs.
    let asked = client
        .request("tools/call", params("pay", args.clone(), json!({})))
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required");
    let state = asked["result"]["requestState"].clone();
    let confirmed = params(
        "pay",
        args.clone(),
        json!({"inputResponses": accept(), "requestState": state}),
    );
    let paid = client.request("tools/call", confirmed.clone()).await;
    assert_eq!(paid["result"]["structuredContent"]["number"], 1);
    // The final round retried under its key (its answer lost, say) gets the outcome, not
    // a refusal of its used state; so does the call started over.
    let retried = client.request("tools/call", confirmed).await;
    assert_eq!(retried["result"], paid["result"]);
    let restarted = client
        .request("tools/call", params("pay", args.clone(), json!({})))
        .await;
    assert_eq!(restarted["result"], paid["result"]);
    assert_eq!(payments.to("rounds"), 1);
    // A state opens only with the key of its call.
    let asked = client
        .request(
            "tools/call",
            params(
                "pay",
                json!({"payee": "rounds", "amount_cents": 40, "idempotencyKey": "rounds-2"}),
                json!({}),
            ),
        )
        .await;
    let other = client
        .request(
            "tools/call",
            params(
                "pay",
                json!({"payee": "rounds", "amount_cents": 40, "idempotencyKey": "rounds-3"}),
                json!({"inputResponses": accept(), "requestState": asked["result"]["requestState"]}),
            ),
        )
        .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert_eq!(payments.to("rounds"), 1);
}

#[tokio::test]
async fn a_key_used_with_other_arguments_is_refused_with_a_structured_conflict() {
    let payments = Payments::new();
    let app = app(&payments);
    for (wire, mut conn) in Conn::all(&app, None) {
        let key = format!("conflict-{wire}");
        let first = conn
            .call(params(
                "pay_now",
                json!({"payee": "conflict", "amount_cents": 1, "idempotencyKey": key}),
                json!({}),
            ))
            .await;
        assert!(first["result"]["structuredContent"]["number"].is_u64());
        let other = conn
            .call(params(
                "pay_now",
                json!({"payee": "conflict", "amount_cents": 2, "idempotencyKey": key}),
                json!({}),
            ))
            .await;
        assert_eq!(error_code(&other), "idempotency_conflict", "{wire}");
        assert!(other["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Use a new key for a new operation"));
        // The same arguments in another order are the same arguments.
        let reordered = conn
            .call(params(
                "pay_now",
                json!({"idempotencyKey": key, "amount_cents": 1, "payee": "conflict"}),
                json!({}),
            ))
            .await;
        assert_eq!(reordered["result"], first["result"], "{wire}");
    }
    assert_eq!(payments.to("conflict"), 3, "one payment per connection");
}

#[tokio::test]
async fn concurrent_duplicates_run_once() {
    let payments = Payments::new();
    let client = std::sync::Arc::new(TestClient::new(app(&payments)));
    let call = params(
        "pay_now",
        json!({"payee": "burst", "amount_cents": 9, "linger_ms": 300, "idempotencyKey": "burst-1"}),
        json!({}),
    );
    let calls = (0..8).map(|_| {
        let client = client.clone();
        let call = call.clone();
        tokio::spawn(async move { client.request("tools/call", call).await })
    });
    let answers = futures_util::future::join_all(calls).await;
    for answer in answers {
        let answer = answer.unwrap();
        assert_eq!(
            answer["result"]["structuredContent"]["number"], 1,
            "{answer}"
        );
    }
    assert_eq!(payments.to("burst"), 1);
}

#[tokio::test]
async fn a_retry_while_the_first_call_runs_waits_for_it_up_to_a_bound() {
    let payments = Payments::new();
    let app = side_effects::server(payments.clone())
        .idempotency_wait(Duration::from_millis(200))
        .build()
        .unwrap();
    let client = std::sync::Arc::new(TestClient::new(app));
    let call = params(
        "pay_now",
        json!({"payee": "slow", "amount_cents": 3, "linger_ms": 1500, "idempotencyKey": "slow-1"}),
        json!({}),
    );
    let first = {
        let (client, call) = (client.clone(), call.clone());
        tokio::spawn(async move { client.request("tools/call", call).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let early = client.request("tools/call", call.clone()).await;
    assert_eq!(error_code(&early), "in_progress", "{early}");
    assert!(early["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("do not switch to a new key"));
    let first = first.await.unwrap();
    let later = client.request("tools/call", call).await;
    assert_eq!(later["result"], first["result"]);
    assert_eq!(payments.to("slow"), 1);
}

#[tokio::test]
async fn keys_of_another_principal_or_tenant_are_their_own() {
    let payments = Payments::new();
    let app = app(&payments);
    let callers = [
        Principal::new("alice"),
        Principal::new("bob"),
        Principal::new("alice").with_tenant("acme"),
        Principal::new("alice").with_tenant("globex"),
    ];
    for principal in callers {
        for (wire, mut conn) in Conn::all(&app, Some(principal.clone())) {
            let answer = conn
                .call(params(
                    "pay_now",
                    json!({"payee": "shared", "amount_cents": 1, "idempotencyKey": "same-key"}),
                    json!({}),
                ))
                .await;
            assert_eq!(answer["result"]["isError"], Value::Null, "{wire}: {answer}");
        }
    }
    // Each caller's first call paid (in process); its HTTP call got that caller's record.
    assert_eq!(payments.to("shared"), 4);
}

#[tokio::test]
async fn refusals_before_the_handler_and_its_protocol_errors_record_nothing() {
    let payments = Payments::new();
    let client = TestClient::new(app(&payments));
    // A malformed key is an argument error the model can fix.
    for bad in [
        json!(""),
        json!("has space"),
        json!("x".repeat(256)),
        json!(7),
    ] {
        let refused = client
            .request(
                "tools/call",
                params(
                    "pay_now",
                    json!({"payee": "p", "amount_cents": 1, "idempotencyKey": bad}),
                    json!({}),
                ),
            )
            .await;
        assert_eq!(refused["result"]["isError"], true, "{bad}: {refused}");
        assert!(refused["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("idempotencyKey"));
    }
    // Invalid arguments: nothing recorded, so the corrected call runs under the key.
    let invalid = client
        .request(
            "tools/call",
            params(
                "pay_now",
                json!({"payee": "fixed", "amount_cents": -1, "idempotencyKey": "fix-1"}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(invalid["result"]["isError"], true);
    let fixed = client
        .request(
            "tools/call",
            params(
                "pay_now",
                json!({"payee": "fixed", "amount_cents": 1, "idempotencyKey": "fix-1"}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(fixed["result"]["structuredContent"]["number"], 1, "{fixed}");
    // The handler's own protocol error: nothing recorded either.
    let blank = client
        .request(
            "tools/call",
            params(
                "pay_checked",
                json!({"payee": " ", "idempotencyKey": "fix-2"}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(blank["error"]["code"], -32602);
    let corrected = client
        .request(
            "tools/call",
            params(
                "pay_checked",
                json!({"payee": "checked", "idempotencyKey": "fix-2"}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(corrected["result"]["content"][0]["text"], "payment 1");
}

#[tokio::test]
async fn a_handler_that_fails_midway_leaves_its_outcome_unknown_and_never_runs_again() {
    let payments = Payments::new();
    let client = TestClient::new(app(&payments));
    let call = params(
        "pay_then_crash",
        json!({"payee": "crash", "idempotencyKey": "crash-1"}),
        json!({}),
    );
    let crashed = client.request("tools/call", call.clone()).await;
    assert_eq!(crashed["error"]["code"], -32603, "{crashed}");
    let retried = client.request("tools/call", call).await;
    assert_eq!(error_code(&retried), "outcome_unknown", "{retried}");
    assert!(retried["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Check the current state"));
    assert_eq!(payments.to("crash"), 1, "paid once, never again");
}

// ---- business errors -------------------------------------------------------------------

/// The tool's published output schema, compiled.
async fn output_validator(client: &TestClient, tool: &str) -> mcp_runtime::validate::ArgValidator {
    let listed = client.request("tools/list", json!({})).await;
    let schema = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("{tool} is listed"))["outputSchema"]
        .clone();
    mcp_runtime::validate::ArgValidator::compile(&schema).expect("the output schema compiles")
}

#[tokio::test]
async fn business_errors_conform_to_the_published_output_schema() {
    let payments = Payments::new();
    let client = TestClient::new(app(&payments));
    let pay = output_validator(&client, "pay").await;
    // S-184: the success shape...
    let asked = client
        .request(
            "tools/call",
            params(
                "pay",
                json!({"payee": "shape", "amount_cents": 1}),
                json!({}),
            ),
        )
        .await;
    let paid = client
        .request(
            "tools/call",
            params(
                "pay",
                json!({"payee": "shape", "amount_cents": 1}),
                json!({"inputResponses": accept(), "requestState": asked["result"]["requestState"]}),
            ),
        )
        .await;
    pay.check(&paid["result"]["structuredContent"]).unwrap();
    // ...a typed refusal, with its detail and a readable text...
    let refused = client
        .request(
            "tools/call",
            params(
                "pay",
                json!({"payee": "shape", "amount_cents": 200_000}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(error_code(&refused), "over_limit");
    assert_eq!(
        refused["result"]["structuredContent"]["error"]["detail"],
        json!({"limit_cents": 100_000, "requested_cents": 200_000})
    );
    assert_eq!(
        refused["result"]["content"][0]["text"],
        "The amount is over the payment limit."
    );
    pay.check(&refused["result"]["structuredContent"]).unwrap();
    // ...and the server's own refusals.
    let key = json!({"payee": "shape", "amount_cents": 200_000, "idempotencyKey": "shape-1"});
    client
        .request("tools/call", params("pay", key.clone(), json!({})))
        .await;
    let mut other = key.clone();
    other["amount_cents"] = json!(3);
    let conflict = client
        .request("tools/call", params("pay", other, json!({})))
        .await;
    assert_eq!(error_code(&conflict), "idempotency_conflict");
    pay.check(&conflict["result"]["structuredContent"]).unwrap();

    // A detail of no declared type (ToolError::with_detail) fits too.
    let fixtures = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let order = output_validator(&fixtures, "place_order").await;
    let discontinued = fixtures
        .call_tool("place_order", json!({"sku": "discontinued", "quantity": 1}))
        .await;
    order.check(&discontinued["structuredContent"]).unwrap();
    let placed = fixtures
        .call_tool("place_order", json!({"sku": "A-1", "quantity": 1}))
        .await;
    order.check(&placed["structuredContent"]).unwrap();
    // A shape the tool does not publish is refused by the same schema.
    assert!(order.check(&json!({"sku": 5})).is_err());
}

#[tokio::test]
async fn a_tool_without_structured_errors_keeps_its_plain_output_schema() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let listed = client.request("tools/list", json!({})).await;
    let add = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add")
        .unwrap()
        .clone();
    assert_eq!(
        add["outputSchema"],
        json!({"type": "integer", "format": "int64"})
    );
}

#[tokio::test]
async fn keys_of_another_tool_are_their_own_and_outcomes_expire() {
    let payments = Payments::new();
    let app = side_effects::server(payments.clone())
        .idempotency_ttl(Duration::from_millis(300))
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let now = |payee: &str| {
        params(
            "pay_now",
            json!({"payee": payee, "amount_cents": 1, "idempotencyKey": "shared-key"}),
            json!({}),
        )
    };
    let checked = params(
        "pay_checked",
        json!({"payee": "tools", "idempotencyKey": "shared-key"}),
        json!({}),
    );
    client.request("tools/call", now("tools")).await;
    let other_tool = client.request("tools/call", checked).await;
    assert_eq!(other_tool["result"]["content"][0]["text"], "payment 2");
    assert_eq!(payments.to("tools"), 2, "each tool has its own keys");
    // Within the outcome's lifetime a retry is answered from the record...
    client.request("tools/call", now("tools")).await;
    assert_eq!(payments.to("tools"), 2);
    // ...after it, the key is free and the call runs again.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let later = client.request("tools/call", now("tools")).await;
    assert_eq!(later["result"]["structuredContent"]["number"], 3, "{later}");
}

#[tokio::test]
async fn a_call_abandoned_mid_way_answers_outcome_unknown_at_once() {
    let payments = Payments::new();
    // A short wait: a retry that had to wait for the lease would answer `in_progress`.
    let app = side_effects::server(payments.clone())
        .idempotency_wait(Duration::from_millis(200))
        .build()
        .unwrap();
    let call = |payee: &str, linger_ms: u64| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params(
            "pay_now",
            json!({"payee": payee, "amount_cents": 1, "linger_ms": linger_ms, "idempotencyKey": format!("gone-{payee}")}),
            json!({}),
        )})
    };
    // The HTTP client goes away while the payment lingers: its request is cancelled, and
    // nobody knows whether the work it had started finished.
    let request = http_request(&call("abandoned", 5_000).to_string()).unwrap();
    let dropped =
        tokio::time::timeout(Duration::from_millis(300), app.router().oneshot(request)).await;
    assert!(
        dropped.is_err(),
        "the request was still running when dropped"
    );
    assert_eq!(payments.to("abandoned"), 1);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let retry = TestClient::new(app.clone())
        .request("tools/call", call("abandoned", 5_000)["params"].clone())
        .await;
    assert_eq!(error_code(&retry), "outcome_unknown", "{retry}");
    assert_eq!(payments.to("abandoned"), 1);
}
