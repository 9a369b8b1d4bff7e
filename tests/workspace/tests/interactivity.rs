//! Interactivity over both transports: multi round-trip requests (S-116..S-137), progress
//! (S-149..S-156), per-request logging (S-264..S-269), cancellation (S-067, S-068,
//! S-090..S-092, S-140..S-147) and subscriptions (S-157..S-167).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt as _;
use mcp_runtime::testing::http_request;
use mcp_runtime::{App, Principal};
use mcp_workspace_tests::interactive::Probe;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt as _;

const VERSION: &str = "2026-07-28";

fn app() -> App {
    app_with_probe().0
}

/// The server and the probe its `wait_for_cancel` tool reports to.
fn app_with_probe() -> (App, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let app = mcp_workspace_tests::interactive_server(probe.clone())
        .build()
        .expect("the interactive fixtures build");
    (app, probe)
}

/// `_meta` with these client capabilities (and extra keys).
fn meta(capabilities: Value, extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    if let (Value::Object(m), Value::Object(extra)) = (&mut meta, extra) {
        m.extend(extra);
    }
    meta
}

fn all_caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}})
}

fn call(id: u64, name: &str, arguments: Value, extra: Value) -> Value {
    let mut params =
        json!({"name": name, "arguments": arguments, "_meta": meta(all_caps(), json!({}))});
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        for (k, v) in extra {
            if k == "_meta" {
                if let (Some(Value::Object(m)), Value::Object(v)) = (p.get_mut("_meta"), v) {
                    m.extend(v);
                }
            } else {
                p.insert(k, v);
            }
        }
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// What one request produced: notifications before the response, then the response.
#[derive(Debug)]
struct Exchange {
    notifications: Vec<Value>,
    response: Value,
    /// HTTP only: whether the answer was an SSE stream.
    streamed: bool,
}

/// One client connection, over stdio framing or the HTTP router.
enum Wire {
    Stdio {
        writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
        lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    },
    Http {
        // Boxed: an App is large beside the stdio pipes.
        app: Box<App>,
        principal: Option<Principal>,
    },
}

impl Wire {
    fn stdio(app: &App) -> Wire {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let app = app.clone();
        tokio::spawn(async move { app.serve_io(server_read, server_write).await });
        let (read, writer) = tokio::io::split(client);
        Wire::Stdio {
            writer,
            lines: BufReader::new(read).lines(),
        }
    }

    fn http(app: &App) -> Wire {
        Wire::Http {
            app: Box::new(app.clone()),
            principal: None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Wire::Stdio { .. } => "stdio",
            Wire::Http { .. } => "http",
        }
    }

    async fn send(&mut self, message: &Value) {
        if let Wire::Stdio { writer, .. } = self {
            writer
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
        }
    }

    /// The next line the server writes (stdio).
    async fn frame(&mut self) -> Value {
        let Wire::Stdio { lines, .. } = self else {
            panic!("frames are read on stdio only");
        };
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("a frame within 10 s")
            .unwrap()
            .expect("the server keeps its output open");
        serde_json::from_str(&line).unwrap()
    }

    /// Send a request and collect everything that belongs to it.
    async fn exchange(&mut self, message: Value) -> Exchange {
        match self {
            Wire::Stdio { .. } => {
                let id = message["id"].clone();
                self.send(&message).await;
                let mut notifications = Vec::new();
                loop {
                    let frame = self.frame().await;
                    if frame.get("id") == Some(&id) {
                        return Exchange {
                            notifications,
                            response: frame,
                            streamed: false,
                        };
                    }
                    notifications.push(frame);
                }
            }
            Wire::Http { app, principal } => {
                let mut request = http_request(&message.to_string()).unwrap();
                if let Some(principal) = principal.clone() {
                    request.extensions_mut().insert(principal);
                }
                let response = app.router().oneshot(request).await.unwrap();
                let streamed = response
                    .headers()
                    .get("content-type")
                    .is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
                let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                    .await
                    .unwrap();
                let mut messages: Vec<Value> = if streamed {
                    let text = String::from_utf8_lossy(&bytes);
                    // S-089: streams cannot be resumed, so events carry no id to resume from.
                    assert!(!text.lines().any(|l| l.starts_with("id:")), "{text}");
                    sse_messages(&text)
                } else {
                    vec![serde_json::from_slice(&bytes).unwrap()]
                };
                let response = messages.pop().expect("a response");
                Exchange {
                    notifications: messages,
                    response,
                    streamed,
                }
            }
        }
    }
}

fn sse_messages(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter_map(|event| {
            let data: String = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
        })
        .collect()
}

fn wires(app: &App) -> Vec<Wire> {
    vec![Wire::stdio(app), Wire::http(app)]
}

fn result(exchange: &Exchange) -> &Value {
    &exchange.response["result"]
}

fn text(exchange: &Exchange) -> &str {
    result(exchange)["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {}", exchange.response))
}

// ---- multi round-trip requests -----------------------------------------------------------

#[tokio::test]
async fn a_missing_answer_ends_the_call_with_input_required_and_the_retry_finishes_it() {
    let app = app();
    for mut wire in wires(&app) {
        let args = json!({"amount": 500, "to": "ACME"});
        let first = wire
            .exchange(call(1, "transfer", args.clone(), json!({})))
            .await;
        // S-058, S-066, S-084, S-116: the question travels in the result; the server sends
        // the client no request of its own, on any transport.
        assert!(first.notifications.is_empty(), "{:?}", first.notifications);
        let first = result(&first).clone();
        // S-117, S-122: input_required with the request and a state.
        assert_eq!(first["resultType"], "input_required", "{}", wire.name());
        let request = &first["inputRequests"]["confirm"];
        assert_eq!(request["method"], "elicitation/create");
        // S-281, S-282: a form request has its message, mode "form" and a flat
        // requestedSchema of primitive properties.
        assert_eq!(request["params"]["mode"], "form");
        assert_eq!(request["params"]["message"], "Send 500 cents to ACME?");
        assert_eq!(
            request["params"]["requestedSchema"],
            json!({"type": "object", "properties": {"confirm": {"type": "boolean", "description": "Go ahead?"}}, "required": ["confirm"]})
        );
        assert!(
            first.get("ttlMs").is_none(),
            "input_required carries no cache hints"
        );
        let state = first["requestState"].as_str().unwrap().to_owned();
        // S-313: the arguments travel sealed in the state; the client cannot read them.
        assert!(!state.contains("ACME"), "the state is sealed, not readable");

        let retry = wire
            .exchange(call(
                2,
                "transfer",
                args.clone(),
                json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}, "requestState": state}),
            ))
            .await;
        // S-001: the retry carrying the answer and the state completes the call (MRTR).
        assert_eq!(result(&retry)["resultType"], "complete");
        assert_eq!(
            text(&retry),
            "Sent 500 cents to ACME (quoted 500 on round 1)."
        );

        // S-130: the round that finished the transfer cannot be replayed: its state was
        // recorded as used before the handler ran.
        let replayed = wire
            .exchange(call(
                3,
                "transfer",
                args.clone(),
                json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}, "requestState": state}),
            ))
            .await;
        assert_eq!(
            replayed.response["error"]["code"],
            -32602,
            "{}",
            wire.name()
        );
        assert_eq!(
            replayed.response["error"]["data"]["reason"],
            "it was already used"
        );

        let again = wire
            .exchange(call(5, "transfer", args.clone(), json!({})))
            .await;
        let fresh = result(&again)["requestState"].clone();
        let declined = wire
            .exchange(call(
                6,
                "transfer",
                args,
                json!({"inputResponses": {"confirm": {"action": "decline"}}, "requestState": fresh}),
            ))
            .await;
        // S-291: a declined confirmation reaches the handler as declined.
        assert_eq!(text(&declined), "Transfer declined.");

        // S-125: a state altered in transit is refused, on every transport.
        let mut tampered = state.clone();
        tampered.insert(10, 'x');
        let refused = wire
            .exchange(call(
                4,
                "transfer",
                json!({"amount": 500, "to": "ACME"}),
                json!({"inputResponses": {"confirm": {"action": "decline"}}, "requestState": tampered}),
            ))
            .await;
        assert_eq!(refused.response["error"]["code"], -32602, "{}", wire.name());

        // A state another server process sealed (each makes a key of its own when none is
        // set) is refused saying so, and what to set.
        let args = json!({"amount": 5, "to": "ACME"});
        let asked = wire
            .exchange(call(7, "transfer", args.clone(), json!({})))
            .await;
        let state = result(&asked)["requestState"].clone();
        let elsewhere = app_with_probe().0;
        let mut other = Wire::stdio(&elsewhere);
        let refused = other
            .exchange(call(
                8,
                "transfer",
                args,
                json!({"inputResponses": {"confirm": {"action": "decline"}}, "requestState": state}),
            ))
            .await;
        assert_eq!(refused.response["error"]["code"], -32602, "{}", wire.name());
        let message = refused.response["error"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(
            message.contains("sealed with another key") && message.contains("MCP_SEAL_KEY"),
            "{message}"
        );
    }
}

/// One round of `transfer` (single-use: each answer needs the state of a round of its
/// own), answered with `responses` (no `inputResponses` when null): the answer's exchange.
async fn answer_transfer(wire: &mut Wire, id: u64, responses: Value) -> Exchange {
    let args = json!({"amount": 70, "to": "ACME"});
    let asked = wire
        .exchange(call(id, "transfer", args.clone(), json!({})))
        .await;
    assert_eq!(result(&asked)["resultType"], "input_required", "{asked:?}");
    let mut extra = json!({"requestState": result(&asked)["requestState"]});
    if !responses.is_null() {
        extra["inputResponses"] = responses;
    }
    wire.exchange(call(id + 1, "transfer", args, extra)).await
}

// Whatever the client makes of a question, the call ends as it said: a dismissed or
// declined form reaches the handler as such, and an answer the client could not give
// (an error where the ElicitResult goes, or no answer) never reads as one the user gave.
#[tokio::test]
async fn a_cancelled_declined_or_failed_elicitation_ends_the_call_as_the_client_said() {
    let app = app();
    for mut wire in wires(&app) {
        let name = wire.name();
        let cancelled =
            answer_transfer(&mut wire, 1, json!({"confirm": {"action": "cancel"}})).await;
        // S-291: the user dismissed the form: the handler sees `Cancelled`.
        assert_eq!(text(&cancelled), "Transfer cancelled.", "{name}");
        let declined =
            answer_transfer(&mut wire, 3, json!({"confirm": {"action": "decline"}})).await;
        // S-291: the user said no: the handler sees `Declined`.
        assert_eq!(text(&declined), "Transfer declined.", "{name}");
        // The 2026-07-28 schema has no error answer: a client that cannot ask its user
        // sends something else where the ElicitResult goes, or an accept without the form.
        let failures = [
            json!({"error": {"code": -32603, "message": "no window to show the form in"}}),
            json!({"code": -1, "message": "User agent failed"}),
            json!({"action": "accept"}),
        ];
        for (n, failure) in (0..).zip(failures) {
            let failed = answer_transfer(&mut wire, 10 + 2 * n, json!({"confirm": failure})).await;
            let error = &failed.response["error"];
            // S-291: a clear error naming the question, never a result of the handler's.
            assert_eq!(
                error["code"], -32602,
                "{name}: {failure}: {}",
                failed.response
            );
            assert_eq!(error["data"]["key"], "confirm", "{name}: {error}");
            assert!(
                error["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("inputResponses.confirm")),
                "{name}: {error}"
            );
            assert!(failed.response.get("result").is_none(), "{name}");
        }
        // S-291: no answer at all is asked again, not taken for one.
        let silent = answer_transfer(&mut wire, 20, Value::Null).await;
        assert_eq!(result(&silent)["resultType"], "input_required", "{name}");
        assert!(result(&silent)["inputRequests"]["confirm"].is_object());
        // The server goes on: the next answer is taken.
        let accepted = answer_transfer(
            &mut wire,
            22,
            json!({"confirm": {"action": "accept", "content": {"confirm": true}}}),
        )
        .await;
        assert_eq!(
            text(&accepted),
            "Sent 70 cents to ACME (quoted 70 on round 1).",
            "{name}"
        );
    }
}

#[tokio::test]
async fn answers_of_earlier_rounds_travel_in_the_state_across_several_rounds() {
    let app = app();
    for mut wire in wires(&app) {
        let first = wire
            .exchange(call(1, "checkout", json!({}), json!({})))
            .await;
        let schema = &result(&first)["inputRequests"]["shipping"]["params"]["requestedSchema"];
        // A documented enum becomes titled options.
        assert_eq!(
            schema["properties"]["speed"]["oneOf"],
            json!([{"const": "standard", "title": "Standard."}, {"const": "express", "title": "Express."}])
        );
        assert_eq!(schema["properties"]["note"]["type"], "string");
        assert_eq!(schema["required"], json!(["speed"]));
        let state = result(&first)["requestState"].clone();
        let second = wire
            .exchange(call(
                2,
                "checkout",
                json!({}),
                json!({"inputResponses": {"shipping": {"action": "accept", "content": {"speed": "express", "note": "ring twice"}}}, "requestState": state}),
            ))
            .await;
        // S-132: a second round asks the next question; the first answer rides in the state.
        assert_eq!(result(&second)["resultType"], "input_required");
        assert_eq!(
            result(&second)["inputRequests"]["confirm"]["params"]["message"],
            "Ship express?"
        );
        assert!(result(&second)["inputRequests"].get("shipping").is_none());
        let state = result(&second)["requestState"].clone();
        let third = wire
            .exchange(call(
                3,
                "checkout",
                json!({}),
                json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}, "requestState": state}),
            ))
            .await;
        // S-021: the answers of both rounds reached the handler through the requestState
        // the client sent back each time.
        assert_eq!(
            text(&third),
            "Shipping express (ring twice), confirmed: true"
        );
    }
}

#[tokio::test]
async fn several_requests_go_out_in_one_round_and_extra_answers_are_ignored() {
    let app = app();
    for mut wire in wires(&app) {
        let first = wire.exchange(call(1, "gather", json!({}), json!({}))).await;
        let requests = result(&first)["inputRequests"].as_object().unwrap().clone();
        let methods: Vec<&str> = requests
            .values()
            .map(|r| r["method"].as_str().unwrap())
            .collect();
        // S-116, S-120: elicitation, sampling and roots each travel as an input request of
        // the result, and no other method does.
        assert_eq!(methods.len(), 3, "S-119: three keys in one round");
        assert!(methods.contains(&"elicitation/create"));
        assert!(methods.contains(&"sampling/createMessage"));
        assert!(methods.contains(&"roots/list"));
        assert_eq!(requests["summary"]["params"]["maxTokens"], 20, "S-311");
        let answers = json!({
            "confirm": {"action": "accept", "content": {"confirm": true}},
            "summary": {"role": "assistant", "content": {"type": "text", "text": "all good"}, "model": "m"},
            "roots": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": "B"}]},
            "unrelated": {"action": "accept"}
        });
        let state = result(&first)["requestState"].clone();
        let done = wire
            .exchange(call(
                2,
                "gather",
                json!({}),
                json!({"inputResponses": answers, "requestState": state}),
            ))
            .await;
        // S-135: the extra "unrelated" answer is ignored.
        assert_eq!(text(&done), "true / all good / file:///a,file:///b");

        // S-136: a missing answer is asked again rather than failing.
        let partial = wire
            .exchange(call(
                3,
                "gather",
                json!({}),
                json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}, "requestState": state}),
            ))
            .await;
        let asked: Vec<&String> = result(&partial)["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(asked, ["roots", "summary"]);
    }
}

#[tokio::test]
async fn undeclared_capabilities_are_never_asked_for() {
    let app = app();
    for mut wire in wires(&app) {
        let mut message = call(1, "transfer", json!({"amount": 1, "to": "x"}), json!({}));
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"sampling": {}});
        let refused = wire.exchange(message).await;
        // S-040, S-041, S-123, S-280: no elicitation without the capability; -32021 names
        // what is missing in data.requiredCapabilities.
        assert_eq!(refused.response["error"]["code"], -32021, "{}", wire.name());
        assert_eq!(
            refused.response["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {"form": {}}})
        );

        let mut message = call(2, "sample_with_tools", json!({}), json!({}));
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"sampling": {}});
        let refused = wire.exchange(message).await;
        // S-304: tool-enabled sampling needs sampling.tools.
        assert_eq!(
            refused.response["error"]["data"]["requiredCapabilities"],
            json!({"sampling": {"tools": {}}})
        );

        let mut message = call(3, "connect_account", json!({}), json!({}));
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"elicitation": {}});
        let refused = wire.exchange(message).await;
        // `elicitation: {}` means form only (S-280).
        assert_eq!(
            refused.response["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {"url": {}}})
        );
        // S-278, S-279, S-281: a handler can ask in URL mode, for what no form should
        // carry; the request has its mode and message.
        let url = wire
            .exchange(call(4, "connect_account", json!({}), json!({})))
            .await;
        assert_eq!(
            result(&url)["inputRequests"]["signin"]["params"],
            json!({"mode": "url", "message": "Sign in to the bank", "url": "https://bank.example/signin"}),
            "S-283"
        );
    }
}

// A URL question names a page a person opens: it goes out with `mode: "url"`, its message
// and an https URL (plain http only to this machine); any other URL is the handler's
// mistake, which fails the call and is never shown to the user.
#[tokio::test]
async fn a_url_question_goes_out_only_with_a_url_a_user_may_open() {
    let app = app();
    for mut wire in wires(&app) {
        let name = wire.name();
        for (id, url) in (1..).zip([
            "https://bank.example/signin?state=x1",
            "http://localhost:8080/callback",
            "http://127.0.0.1/callback",
            "http://[::1]:9000/",
        ]) {
            let asked = wire
                .exchange(call(id, "open_page", json!({"url": url}), json!({})))
                .await;
            // S-283: mode "url", the message and the URL as the handler gave it.
            assert_eq!(
                result(&asked)["inputRequests"]["page"]["params"],
                json!({"mode": "url", "message": "Open this page", "url": url}),
                "{name}: {url}"
            );
        }
        for (id, url) in (10..).zip([
            "bank.example/signin",
            "http://bank.example/signin",
            "javascript:alert(1)",
            "https:///signin",
            "https://user:secret@bank.example/",
        ]) {
            let refused = wire
                .exchange(call(id, "open_page", json!({"url": url}), json!({})))
                .await;
            let error = &refused.response["error"];
            // S-283: no question with a URL the user should not open; the call fails
            // naming the question and the URL.
            assert_eq!(error["code"], -32603, "{name}: {url}: {}", refused.response);
            let message = error["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with("Internal error: the URL question `page` cannot be sent: ")
                    && message.contains(&format!("{url:?}")),
                "{name}: {message}"
            );
            assert!(refused.response.get("result").is_none(), "{name}: {url}");
            assert!(refused.notifications.is_empty(), "{name}: {url}");
        }
    }
}

#[tokio::test]
async fn tampered_expired_and_foreign_state_is_refused_with_invalid_params() {
    let app = app();
    let client = mcp_runtime::testing::TestClient::new(app.clone());
    let caps = json!({"_meta": meta(all_caps(), json!({}))});
    let mut first_params = json!({"name": "transfer", "arguments": {"amount": 9, "to": "A"}});
    first_params["_meta"] = caps["_meta"].clone();
    let first = client.request("tools/call", first_params.clone()).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let retry = |arguments: Value, name: &str, state: Value| {
        let mut params = json!({"name": name, "arguments": arguments, "inputResponses": answer, "requestState": state});
        params["_meta"] = caps["_meta"].clone();
        params
    };
    // S-124, S-125: flip one character of the ciphertext.
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() / 2;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    // S-129: the same state for other arguments or another tool.
    let cases = [
        (
            "tampered",
            retry(json!({"amount": 9, "to": "A"}), "transfer", json!(tampered)),
        ),
        (
            "other arguments",
            retry(json!({"amount": 9000, "to": "A"}), "transfer", json!(state)),
        ),
        ("another tool", retry(json!({}), "checkout", json!(state))),
        (
            "junk",
            retry(json!({"amount": 9, "to": "A"}), "transfer", json!("v1.!!!")),
        ),
        (
            "huge",
            retry(
                json!({"amount": 9, "to": "A"}),
                "transfer",
                json!("v1.".to_owned() + &"A".repeat(200_000)),
            ),
        ),
        (
            "not a string",
            retry(json!({"amount": 9, "to": "A"}), "transfer", json!(42)),
        ),
    ];
    for (case, params) in cases {
        let response = client.request("tools/call", params).await;
        // S-124: every altered, foreign or malformed state is refused as invalid params.
        assert_eq!(response["error"]["code"], -32602, "{case}: {response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("requestState"),
            "{case}: {response}"
        );
    }
    // Arguments in another key order are the same arguments.
    let reordered = client
        .request(
            "tools/call",
            retry(json!({"to": "A", "amount": 9}), "transfer", json!(state)),
        )
        .await;
    assert_eq!(reordered["result"]["resultType"], "complete", "{reordered}");

    // S-127, S-284, S-292: the state is bound to the principal who started the call;
    // another cannot continue it.
    let alice =
        mcp_runtime::testing::TestClient::new(app.clone()).as_principal(Principal::new("alice"));
    let bob =
        mcp_runtime::testing::TestClient::new(app.clone()).as_principal(Principal::new("bob"));
    let started = alice.request("tools/call", first_params.clone()).await;
    let alice_state = started["result"]["requestState"].clone();
    let stolen = bob
        .request(
            "tools/call",
            retry(
                json!({"amount": 9, "to": "A"}),
                "transfer",
                alice_state.clone(),
            ),
        )
        .await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    let own = alice
        .request(
            "tools/call",
            retry(json!({"amount": 9, "to": "A"}), "transfer", alice_state),
        )
        .await;
    assert_eq!(own["result"]["resultType"], "complete", "{own}");

    // S-128: a state older than its time to live is refused as expired.
    let short = mcp_workspace_tests::interactive_server(Arc::default())
        .request_state_ttl(Duration::ZERO)
        .build()
        .unwrap();
    let short = mcp_runtime::testing::TestClient::new(short);
    let first = short.request("tools/call", first_params).await;
    let state = first["result"]["requestState"].clone();
    let expired = short
        .request(
            "tools/call",
            retry(json!({"amount": 9, "to": "A"}), "transfer", state),
        )
        .await;
    assert_eq!(expired["error"]["code"], -32602);
    assert!(
        expired["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{expired}"
    );

    // The same over the transports.
    let short = mcp_workspace_tests::interactive_server(Arc::default())
        .request_state_ttl(Duration::ZERO)
        .build()
        .unwrap();
    for mut wire in wires(&short) {
        let args = json!({"amount": 9, "to": "A"});
        let first = wire
            .exchange(call(1, "transfer", args.clone(), json!({})))
            .await;
        let state = result(&first)["requestState"].clone();
        let retry = wire
            .exchange(call(
                2,
                "transfer",
                args,
                json!({"inputResponses": answer, "requestState": state}),
            ))
            .await;
        assert_eq!(retry.response["error"]["code"], -32602, "{}", wire.name());
        assert_eq!(retry.response["error"]["data"]["reason"], "it has expired");
    }
}

#[tokio::test]
async fn malformed_answers_are_protocol_errors() {
    let client = mcp_runtime::testing::TestClient::new(app());
    let mut params = json!({"name": "transfer", "arguments": {"amount": 1, "to": "x"}});
    params["_meta"] = meta(all_caps(), json!({}));
    // S-133, S-134.
    let cases = [
        (json!(null), "inputResponses must be an object"),
        (json!([1]), "inputResponses must be an object"),
        (
            json!({"confirm": 12345}),
            "inputResponses.confirm must be an object",
        ),
        (
            json!({"confirm": {"action": "maybe"}}),
            "inputResponses.confirm must be an ElicitResult",
        ),
        (
            json!({"confirm": {"action": "accept", "content": {"confirm": "yes"}}}),
            "does not match the requested schema",
        ),
    ];
    for (responses, expected) in cases {
        // Answers count only with the state of the round that asked; and `transfer` is
        // single-use, so each case starts its own round.
        let asked = client.request("tools/call", params.clone()).await;
        let mut p = params.clone();
        p["requestState"] = asked["result"]["requestState"].clone();
        p["inputResponses"] = responses.clone();
        let response = client.request("tools/call", p).await;
        assert_eq!(response["error"]["code"], -32602, "{responses}: {response}");
        let message = response["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{responses}: {message}");
    }
}

#[tokio::test]
async fn resources_and_prompts_ask_too_but_no_other_method_does() {
    let app = app();
    let client = mcp_runtime::testing::TestClient::new(app);
    let m = meta(all_caps(), json!({}));
    let read = client
        .request(
            "resources/read",
            json!({"uri": "vault://alpha", "_meta": m}),
        )
        .await;
    assert_eq!(read["result"]["resultType"], "input_required");
    let state = read["result"]["requestState"].clone();
    let yes = json!({"reveal": {"action": "accept", "content": {"confirm": true}}});
    let done = client
        .request(
            "resources/read",
            json!({"uri": "vault://alpha", "_meta": m, "inputResponses": yes, "requestState": state}),
        )
        .await;
    assert_eq!(done["result"]["contents"][0]["text"], "secret of alpha");
    // A read shaped by the user's answers is private and not reusable.
    assert_eq!(done["result"]["ttlMs"], 0);
    assert_eq!(done["result"]["cacheScope"], "private");
    // The state of vault://alpha does not open vault://beta.
    let other = client
        .request(
            "resources/read",
            json!({"uri": "vault://beta", "_meta": m, "inputResponses": yes, "requestState": state}),
        )
        .await;
    assert_eq!(other["error"]["code"], -32602);

    let prompt = client
        .request(
            "prompts/get",
            json!({"name": "briefing", "arguments": {"topic": "tides"}, "_meta": m}),
        )
        .await;
    assert_eq!(
        prompt["result"]["inputRequests"]["expert"]["method"],
        "elicitation/create"
    );
    let state = prompt["result"]["requestState"].clone();
    let prompt = client
        .request(
            "prompts/get",
            json!({"name": "briefing", "arguments": {"topic": "tides"}, "_meta": m,
                   "inputResponses": {"expert": {"action": "accept", "content": {"confirm": false}}},
                   "requestState": state}),
        )
        .await;
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"],
        "Brief a beginner on tides."
    );

    // S-118: a completer that tries to ask fails; it never answers input_required.
    let completion = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "briefing"}, "argument": {"name": "topic", "value": "t"}, "_meta": m}),
        )
        .await;
    assert_eq!(completion["error"]["code"], -32603, "{completion}");
    assert!(completion["error"]["message"]
        .as_str()
        .unwrap()
        .contains("only tools/call"));
}

#[tokio::test]
async fn a_handler_may_carry_on_without_an_answer_and_bad_forms_are_reported() {
    let client = mcp_runtime::testing::TestClient::new(app());
    let m = meta(all_caps(), json!({}));
    let optional = client
        .request(
            "tools/call",
            json!({"name": "optional_input", "arguments": {}, "_meta": m}),
        )
        .await;
    // S-131: a handler that asks may carry on without the answer: the call completes.
    assert_eq!(optional["result"]["resultType"], "complete");
    assert_eq!(optional["result"]["content"][0]["text"], "no extras");
    let nickname = client
        .request(
            "tools/call",
            json!({"name": "nickname", "arguments": {}, "_meta": m}),
        )
        .await;
    assert_eq!(
        nickname["result"]["resultType"], "input_required",
        "a String error type asks too"
    );
    let declined = client
        .request(
            "tools/call",
            json!({"name": "nickname", "arguments": {}, "_meta": m,
                   "inputResponses": {"nick": {"action": "decline"}},
                   "requestState": nickname["result"]["requestState"]}),
        )
        .await;
    assert_eq!(
        declined["result"]["isError"], true,
        "its own errors stay tool errors"
    );
    assert_eq!(
        declined["result"]["content"][0]["text"],
        "no nickname given"
    );
    let bad = client
        .request(
            "tools/call",
            json!({"name": "bad_form", "arguments": {}, "_meta": m}),
        )
        .await;
    // S-282: a form that is not flat is never sent: the call fails, naming the field.
    assert_eq!(bad["error"]["code"], -32603);
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("field `inner`"),
        "{bad}"
    );
}

// ---- progress and logging ------------------------------------------------------------

#[tokio::test]
async fn progress_goes_to_the_requests_own_stream_and_only_advances() {
    let app = app();
    for mut wire in wires(&app) {
        let exchange = wire
            .exchange(call(
                7,
                "crunch",
                json!({"steps": 3}),
                json!({"_meta": {"progressToken": "p-7"}}),
            ))
            .await;
        assert_eq!(text(&exchange), "3 steps, progress requested: true");
        let progress: Vec<&Value> = exchange
            .notifications
            .iter()
            .map(|n| &n["params"])
            .collect();
        // S-150: the repeated, non-advancing reports were skipped.
        assert_eq!(
            progress.len(),
            3,
            "{}: {:?}",
            wire.name(),
            exchange.notifications
        );
        // S-083, S-153: each names the token of the request it belongs to, while it runs.
        for (i, p) in progress.iter().enumerate() {
            assert_eq!(p["progressToken"], "p-7");
            assert_eq!(p["progress"], (i + 1) as f64);
            assert_eq!(p["total"], 3.0);
            assert_eq!(p["message"], format!("step {}", i + 1));
        }
        // S-016: notifications carry no id.
        assert!(exchange
            .notifications
            .iter()
            .all(|n| n["method"] == "notifications/progress" && n.get("id").is_none()));
        if let Wire::Http { .. } = wire {
            // S-089: the stream's events carry no id to resume from (`Wire::exchange`
            // checks every SSE answer).
            assert!(
                exchange.streamed,
                "S-081: notifications need an SSE response"
            );
        }

        // Without a token: no notifications, and a plain JSON answer on HTTP.
        let quiet = wire
            .exchange(call(8, "crunch", json!({"steps": 2}), json!({})))
            .await;
        assert!(quiet.notifications.is_empty());
        assert!(!quiet.streamed);
        assert_eq!(text(&quiet), "2 steps, progress requested: false");
    }

    // The in-process test client collects them too.
    let client = mcp_runtime::testing::TestClient::new(app);
    let mut params = json!({"name": "crunch", "arguments": {"steps": 2}});
    params["_meta"] = meta(json!({}), json!({"progressToken": 3}));
    let (notifications, response) = client
        .request_with_notifications("tools/call", params)
        .await;
    assert_eq!(notifications.len(), 2);
    assert_eq!(notifications[1]["params"]["progress"], 2.0);
    assert_eq!(
        response["result"]["content"][0]["text"],
        "2 steps, progress requested: true"
    );
}

#[tokio::test]
async fn log_messages_flow_only_at_or_above_the_requested_level() {
    let app = app();
    let discover = mcp_runtime::testing::TestClient::new(app.clone())
        .request("server/discover", json!({}))
        .await;
    assert_eq!(
        discover["result"]["capabilities"]["logging"],
        json!({}),
        "S-265"
    );
    for mut wire in wires(&app) {
        let exchange = wire
            .exchange(call(
                1,
                "chatty",
                json!({}),
                json!({"_meta": {"io.modelcontextprotocol/logLevel": "error"}}),
            ))
            .await;
        // S-268: the messages arrive on the asking request's own stream, before its answer.
        let levels: Vec<&str> = exchange
            .notifications
            .iter()
            .map(|n| n["params"]["level"].as_str().unwrap())
            .collect();
        assert_eq!(levels, ["error", "critical", "alert", "emergency"], "S-267");
        assert_eq!(exchange.notifications[0]["params"]["logger"], "chatty");
        assert_eq!(
            exchange.notifications[0]["params"]["data"],
            "a error message"
        );
        // S-266: nothing without a level.
        let silent = wire.exchange(call(2, "chatty", json!({}), json!({}))).await;
        assert!(silent.notifications.is_empty());
        // S-269: an unknown level is refused.
        let bad = wire
            .exchange(call(
                3,
                "chatty",
                json!({}),
                json!({"_meta": {"io.modelcontextprotocol/logLevel": "loud"}}),
            ))
            .await;
        assert_eq!(bad.response["error"]["code"], -32602);
        let bad = wire
            .exchange(call(
                4,
                "chatty",
                json!({}),
                json!({"_meta": {"progressToken": {"no": 1}}}),
            ))
            .await;
        assert_eq!(
            bad.response["error"]["code"], -32602,
            "a progress token is a string or an integer"
        );
    }
}

// ---- cancellation ----------------------------------------------------------------------

async fn until(condition: impl Fn() -> bool) {
    for _ in 0..500 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not reached within 5 s");
}

#[tokio::test]
async fn a_cancelled_stdio_request_stops_and_sends_nothing_more() {
    let (app, probe) = app_with_probe();
    let mut wire = Wire::stdio(&app);
    wire.send(&call(
        41,
        "wait_for_cancel",
        json!({}),
        json!({"_meta": {"progressToken": 1}}),
    ))
    .await;
    let started = wire.frame().await;
    assert_eq!(started["method"], "notifications/progress");
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41, "reason": "user pressed stop"}}))
        .await;
    until(|| probe.cancelled.load(Ordering::SeqCst) == 1).await;
    // S-147: cancelling it again, an unknown id, or garbage is ignored.
    for junk in [
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "nope"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}),
    ] {
        wire.send(&junk).await;
    }
    // S-068: the next frame is the answer to the next request, not a late result for 41;
    // S-139: nor a notifications/cancelled echoing the client's.
    let next = wire
        .exchange(call(42, "crunch", json!({"steps": 1}), json!({})))
        .await;
    assert!(next.notifications.is_empty(), "{:?}", next.notifications);
    assert_eq!(next.response["id"], 42);
    assert_eq!(probe.finished.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_cancellation_that_arrives_after_the_answer_changes_nothing() {
    let app = app();
    let mut wire = Wire::stdio(&app);
    let answered = wire
        .exchange(call(43, "crunch", json!({"steps": 1}), json!({})))
        .await;
    assert_eq!(text(&answered), "1 steps, progress requested: false");
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 43, "reason": "too late"}}))
        .await;
    // S-145: the cancellation lost the race to the answer: it is ignored, nothing is sent
    // for it, and the next request is served as if it had not come.
    let next = wire
        .exchange(call(44, "crunch", json!({"steps": 2}), json!({})))
        .await;
    assert!(next.notifications.is_empty(), "{:?}", next.notifications);
    assert_eq!(next.response["id"], 44);
    assert_eq!(text(&next), "2 steps, progress requested: false");
}

#[tokio::test]
async fn work_a_cancelled_stdio_request_left_running_can_send_nothing_for_it() {
    // S-068: `heartbeat` leaves a task holding its `Progress` and `Log` that reports every
    // 10 ms and never looks at the cancellation.
    let (app, probe) = app_with_probe();
    let mut wire = Wire::stdio(&app);
    wire.send(&call(
        61,
        "heartbeat",
        json!({"stay_ms": 60_000}),
        json!({"_meta": {"progressToken": "beat", "io.modelcontextprotocol/logLevel": "info"}}),
    ))
    .await;
    let first = wire.frame().await;
    assert_eq!(first["params"]["progressToken"], "beat", "{first}");
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 61}}))
        .await;
    // Lines are read in order, so once the next request is answered the cancellation has
    // been handled; beats that went out before it may precede that answer.
    let handled = wire
        .exchange(call(62, "crunch", json!({"steps": 0}), json!({})))
        .await;
    assert_eq!(handled.response["id"], 62);
    // The task goes on reporting well after the cancellation...
    let at_cancel = probe.beats.load(Ordering::SeqCst);
    until(|| probe.beats.load(Ordering::SeqCst) >= at_cancel + 10).await;
    // ...and none of it reaches the client: the next frames belong to the next request.
    let next = wire
        .exchange(call(
            63,
            "crunch",
            json!({"steps": 2}),
            json!({"_meta": {"progressToken": "crunch"}}),
        ))
        .await;
    assert!(!next.notifications.is_empty());
    for notification in &next.notifications {
        assert_eq!(
            notification["params"]["progressToken"], "crunch",
            "{notification}"
        );
    }
    assert_eq!(next.response["id"], 63);
    assert!(
        probe.beats.load(Ordering::SeqCst) < 500,
        "the task still runs"
    );
}

#[tokio::test]
async fn nothing_is_reported_for_a_request_once_it_is_answered() {
    // S-153, S-156: `heartbeat` answers after 30 ms and leaves a task reporting progress and
    // logs with the request's token; none of it follows the response.
    let (app, probe) = app_with_probe();
    for mut wire in wires(&app) {
        let answered = wire
            .exchange(call(
                71,
                "heartbeat",
                json!({"stay_ms": 30}),
                json!({"_meta": {"progressToken": "late", "io.modelcontextprotocol/logLevel": "info"}}),
            ))
            .await;
        assert_eq!(text(&answered), "finished", "{}", wire.name());
        let at_answer = probe.beats.load(Ordering::SeqCst);
        until(|| probe.beats.load(Ordering::SeqCst) >= at_answer + 10).await;
        let next = wire
            .exchange(call(72, "crunch", json!({"steps": 1}), json!({})))
            .await;
        assert!(
            next.notifications.is_empty(),
            "{}: {:?}",
            wire.name(),
            next.notifications
        );
        assert_eq!(next.response["id"], 72);
    }
}

#[tokio::test]
async fn closing_an_http_response_stream_cancels_the_request() {
    let (app, probe) = app_with_probe();
    let message = call(
        51,
        "wait_for_cancel",
        json!({}),
        json!({"_meta": {"progressToken": "w"}}),
    );
    let response = app
        .router()
        .oneshot(http_request(&message.to_string()).unwrap())
        .await
        .unwrap();
    // S-081: a request that reports progress is answered with an SSE stream.
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-accel-buffering"], "no", "S-087");
    let mut body = response.into_body().into_data_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("notifications/progress"));
    // S-090, S-140: the client goes away.
    drop(body);
    until(|| probe.cancelled.load(Ordering::SeqCst) == 1).await;
    // S-092: the handler is stopped before it finishes: nothing more is produced for it.
    assert_eq!(probe.finished.load(Ordering::SeqCst), 0);

    // A plain JSON request whose connection drops is cancelled too.
    let message = call(52, "wait_for_cancel", json!({}), json!({}));
    let pending = tokio::spawn(
        app.router()
            .oneshot(http_request(&message.to_string()).unwrap()),
    );
    until(|| probe.started.load(Ordering::SeqCst) == 2).await;
    pending.abort();
    until(|| probe.cancelled.load(Ordering::SeqCst) == 2).await;
}

// ---- subscriptions ---------------------------------------------------------------------

fn listen(id: Value, notifications: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
           "params": {"notifications": notifications, "_meta": meta(json!({}), json!({}))}})
}

#[tokio::test]
async fn stdio_listeners_get_an_acknowledgement_then_only_what_they_asked_for() {
    let app = app();
    let mut wire = Wire::stdio(&app);
    wire.send(&listen(json!("sub-1"), json!({"toolsListChanged": true, "resourceSubscriptions": ["vault://alpha"], "somethingElse": true})))
        .await;
    let ack = wire.frame().await;
    // S-158, S-159, S-161: the acknowledgement comes first, naming what is honoured.
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["vault://alpha"]})
    );
    let toggled = wire.exchange(call(2, "toggle", json!({}), json!({}))).await;
    let mut seen = toggled.notifications.clone();
    while seen.len() < 2 {
        seen.push(wire.frame().await);
    }
    let methods: Vec<&str> = seen.iter().map(|n| n["method"].as_str().unwrap()).collect();
    // S-001: subscribe/notify: the listener is told of the changes another request made.
    assert!(
        methods.contains(&"notifications/tools/list_changed"),
        "{methods:?}"
    );
    assert!(
        methods.contains(&"notifications/resources/updated"),
        "{methods:?}"
    );
    for n in &seen {
        // S-046, S-162: every notification carries the subscription id.
        assert_eq!(
            n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub-1"
        );
    }
    // The change is real: extra_tool (served at start) is gone from the list (S-173:
    // tools/list shows the tools available now).
    let list = wire
        .exchange(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta(json!({}), json!({}))}}))
        .await;
    let names: Vec<&str> = result(&list)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"extra_tool"), "{names:?}");

    // The client cancels the subscription: nothing more arrives for it.
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub-1"}}))
        .await;
    let again = wire.exchange(call(4, "toggle", json!({}), json!({}))).await;
    // S-139: and no notifications/cancelled comes back for the client's own cancellation.
    assert!(again.notifications.is_empty());
    let after = wire
        .exchange(call(5, "crunch", json!({"steps": 1}), json!({})))
        .await;
    assert!(after.notifications.is_empty(), "{:?}", after.notifications);

    // A listener at EOF gets its closing result (S-163, S-164), then the cancellation.
    wire.send(&listen(json!(9), json!({"promptsListChanged": true})))
        .await;
    assert_eq!(
        wire.frame().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    if let Wire::Stdio { writer, .. } = &mut wire {
        writer.shutdown().await.unwrap();
    }
    let closing = wire.frame().await;
    assert_eq!(closing["id"], 9);
    assert_eq!(closing["result"]["resultType"], "complete");
    assert_eq!(
        closing["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    // S-138: the server ended the stream, so it sends notifications/cancelled for the
    // listen request.
    let cancelled = wire.frame().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], 9);
    assert_eq!(
        cancelled["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
}

#[tokio::test]
async fn resource_updates_reach_only_the_streams_subscribed_to_them() {
    // S-167: an update goes to a stream that subscribed to its URI, or to a URI it lies
    // under, and to no other.
    let app = app();
    let client = mcp_runtime::testing::TestClient::new(app.clone());
    let listen = |uris: Value| {
        client
            .listen(
                json!({"notifications": {"resourceSubscriptions": uris, "toolsListChanged": true}}),
            )
            .unwrap()
    };
    let mut alpha = listen(json!(["vault://alpha"]));
    let mut beta = listen(json!(["vault://beta"]));
    let server = app.handle();
    for uri in [
        "vault://alphabet",
        "vault://alpha",
        "vault://gamma",
        "vault://alpha/logs/today",
    ] {
        server.resource_updated(uri);
    }
    // A change every stream asked for marks the end of what each was sent.
    server.remove_tool("crunch");
    assert_eq!(
        seen(&mut alpha).await,
        ["vault://alpha", "vault://alpha/logs/today"]
    );
    assert!(seen(&mut beta).await.is_empty());
}

/// The URIs of the `resources/updated` notifications of `sub` before its next
/// `tools/list_changed`.
async fn seen(sub: &mut mcp_runtime::testing::Subscription) -> Vec<String> {
    let mut uris = Vec::new();
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
            .await
            .unwrap()
            .unwrap();
        if n["method"] == "notifications/tools/list_changed" {
            return uris;
        }
        assert_eq!(n["method"], "notifications/resources/updated");
        uris.push(n["params"]["uri"].as_str().unwrap().to_owned());
    }
}

/// The next SSE event of a stream (skipping keep-alive comments), as JSON.
async fn next_event(body: &mut axum::body::BodyDataStream) -> Value {
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("a frame within 10 s")
            .expect("the stream is open")
            .unwrap();
        let mut messages = sse_messages(&String::from_utf8_lossy(&chunk));
        if !messages.is_empty() {
            assert_eq!(messages.len(), 1, "one message per event");
            return messages.remove(0);
        }
    }
}

#[tokio::test]
async fn http_listeners_stream_tagged_notifications_until_the_server_closes() {
    let app = app();
    let response = app
        .router()
        .oneshot(
            http_request(
                &listen(
                    json!(77),
                    json!({"toolsListChanged": true, "promptsListChanged": true}),
                )
                .to_string(),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body().into_data_stream();
    let ack = next_event(&mut body).await;
    // S-158, S-159: the acknowledgement is the stream's first event.
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true})
    );
    let mut http = Wire::http(&app);
    http.exchange(call(1, "toggle", json!({}), json!({}))).await;
    let changed = next_event(&mut body).await;
    // S-157: `toggle` also reports an update of vault://alpha, which this stream did not
    // ask for: the first event after the acknowledgement is the list change.
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    // S-046, S-162: tagged with the id of the listen request.
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        77
    );
    // S-086, S-268: a request's progress and log messages never show up on the listen
    // stream (the next event there is the next list change).
    http.exchange(call(
        2,
        "crunch",
        json!({"steps": 2}),
        json!({"_meta": {"progressToken": 5}}),
    ))
    .await;
    let logged = http
        .exchange(call(
            3,
            "chatty",
            json!({}),
            json!({"_meta": {"io.modelcontextprotocol/logLevel": "debug"}}),
        ))
        .await;
    assert_eq!(logged.notifications.len(), 8, "on the request's own stream");
    app.handle().remove_tool("toggle");
    let changed = next_event(&mut body).await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    // Shutdown (what SIGTERM starts) ends the stream with the closing result (S-163), which
    // carries the listen request's id as its subscription id (S-164).
    app.shutdown().await;
    let last = next_event(&mut body).await;
    assert_eq!(last["id"], 77);
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        77
    );
    let end = tokio::time::timeout(Duration::from_secs(10), body.next())
        .await
        .unwrap();
    assert!(end.is_none(), "the stream ends after the closing result");
}

#[tokio::test]
async fn listen_requests_are_checked_like_any_other() {
    let app = app();
    let mut http = Wire::http(&app);
    let bad = http
        .exchange(listen(json!(1), json!({"toolsListChanged": "yes"})))
        .await;
    assert_eq!(bad.response["error"]["code"], -32602);
    let missing = http
        .exchange(json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {"_meta": meta(json!({}), json!({}))}}))
        .await;
    assert_eq!(missing.response["error"]["code"], -32602);
    let too_many: Vec<String> = (0..2000).map(|i| format!("vault://{i}")).collect();
    let huge = http
        .exchange(listen(json!(3), json!({"resourceSubscriptions": too_many})))
        .await;
    assert_eq!(huge.response["error"]["code"], -32602);
    let mut no_caps = listen(json!(4), json!({}));
    no_caps["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let refused = http.exchange(no_caps).await;
    assert_eq!(refused.response["error"]["code"], -32602);
}

#[tokio::test]
async fn catalog_changes_are_checked_and_visible_to_every_later_request() {
    let app = app();
    let server = app.handle();
    let client = mcp_runtime::testing::TestClient::new(app.clone());
    let mut sub = client
        .listen(json!({"notifications": {"toolsListChanged": true}}))
        .unwrap();
    assert!(server.serves_tool("whoami"));
    assert!(server.remove_tool("whoami"));
    assert!(
        !server.remove_tool("whoami"),
        "already gone: no change, no notification"
    );
    let gone = client.call_tool("whoami", json!({})).await;
    assert_eq!(gone["error"]["code"], -32602);
    server
        .add_tools(mcp_runtime::tools![
            mcp_workspace_tests::interactive::whoami
        ])
        .unwrap();
    let back = client.call_tool("whoami", json!({})).await;
    assert_eq!(back["content"][0]["text"], "anonymous");
    // Two changes, two notifications.
    for _ in 0..2 {
        let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(n["method"], "notifications/tools/list_changed");
    }
    // A change that breaks the catalog is refused and changes nothing.
    use mcp_workspace_tests::overlapping;
    server
        .add_resources(mcp_runtime::resources![overlapping::item])
        .unwrap();
    let clash = server.add_resources(mcp_runtime::resources![overlapping::newest]);
    let message = clash
        .expect_err("overlapping templates are refused")
        .to_string();
    assert!(message.contains("shop://items/<id>"), "{message}");
    let read = client
        .request("resources/read", json!({"uri": "shop://items/new"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "new",
        "the catalog is unchanged: {read}"
    );
    assert!(
        server.remove_resource("shop://items/{id}"),
        "removed by its published template"
    );
}

#[tokio::test]
async fn the_principal_from_an_http_layer_reaches_handlers() {
    let app = app();
    let mut wire = Wire::Http {
        app: Box::new(app.clone()),
        principal: Some(Principal::new("carol")),
    };
    let who = wire.exchange(call(1, "whoami", json!({}), json!({}))).await;
    assert_eq!(text(&who), "carol");
}
