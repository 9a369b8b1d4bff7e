//! One client model: the same `Answers` value, and the same handlers given one at a time
//! under the same names, answer the server's questions on every client of the crate (the
//! in-process `TestClient` in both eras, `HttpTestClient`, and the network `Client` over
//! HTTP in both eras); and `call_tool_as` reads a tool's structured content as a type of
//! the caller's on the network client as on the test client, or says why it cannot.
//!
//! Timeouts here only keep a broken build from hanging the run; nothing asserts on time.

// ANCHOR: uses
use std::future::IntoFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Era, Layer};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::Root;
use mcp_runtime::testing::{Answers, HttpTestClient, TestClient};
use mcp_runtime::App;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
// ANCHOR_END: uses

/// A yes/no form.
#[derive(Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks all three kinds of question in one round, then confirms in a second.
#[tool]
async fn survey(ctx: RequestContext) -> Result<String, ToolError> {
    let confirm = ctx.elicit::<Confirm>("confirm", "Proceed?");
    let summary = ctx.sample("summary", SamplingRequest::new(20).user("Summarize"));
    let roots = ctx.roots("roots");
    let (confirm, summary, roots) = (confirm?, summary?, roots?);
    let again = ctx.elicit::<Confirm>("again", "Really?")?;
    let uris: Vec<String> = roots.into_iter().map(|r: Root| r.uri).collect();
    Ok(format!(
        "{} / {} / {} / {}",
        confirm.accepted().is_some_and(|c| c.confirm),
        summary.text(),
        uris.join(","),
        again.accepted().is_some_and(|c| c.confirm),
    ))
}

/// A rectangle's size.
#[derive(Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
struct Size {
    /// Width.
    width: u32,
    /// Height.
    height: u32,
}

/// The size of a square.
#[tool(read_only)]
async fn square(
    /// The side.
    side: u32,
) -> Size {
    Size {
        width: side,
        height: side,
    }
}

/// A greeting, as text only.
#[tool(read_only)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Always fails.
#[tool]
async fn refuse() -> Result<Size, ToolError> {
    Err(ToolError::new("nothing to measure"))
}

fn app() -> App {
    Server::new("model", "1.0.0")
        .only_module(module_path!())
        .build()
        .expect("builds")
}

const HANG: Duration = Duration::from_secs(60);

async fn bounded<T>(future: impl IntoFuture<Output = T>) -> T {
    tokio::time::timeout(HANG, future.into_future())
        .await
        .expect("must not hang")
}

/// `app` served over HTTP on a loopback port: its MCP endpoint's URL.
async fn serve(app: &App) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = app.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/mcp")
}

/// What `survey` says when every question is answered as the handlers below answer.
const SURVEYED: &str = "true / short / file:///work / true";

/// The eras the network client speaks with the server.
fn eras() -> Vec<Era> {
    if cfg!(feature = "legacy") {
        vec![Era::Modern, Era::Legacy]
    } else {
        vec![Era::Modern]
    }
}

/// Every in-process test client of `app`: 2026-07-28 and (with `legacy`) the handshake
/// era, each given `answers` by `give`.
fn test_clients(app: &App, give: impl Fn(TestClient) -> TestClient) -> Vec<TestClient> {
    let clients = vec![TestClient::new(app.clone())];
    #[cfg(feature = "legacy")]
    let clients = {
        let mut clients = clients;
        clients.push(TestClient::legacy(app.clone(), "2025-11-25"));
        clients
    };
    clients.into_iter().map(give).collect()
}

// ANCHOR: answers
/// How this host answers a server's questions: it agrees, summarizes in one word and
/// offers one root.
fn host_answers() -> Answers {
    Answers::new()
        .on_elicit(|question: Value| async move {
            // A host shows `question["message"]` and the form in `question["requestedSchema"]`
            // (or, in URL mode, `question["url"]`) to its user; this one always agrees.
            println!("the server asks: {}", question["message"]);
            json!({"action": "accept", "content": {"confirm": true}})
        })
        .on_sample(|_request: Value| async {
            json!({"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "test"})
        })
        .on_roots(|_: Value| async { json!({"roots": [{"uri": "file:///work"}]}) })
}

/// The same call in process and over the network, answered by the same answers.
async fn survey_twice(app: &App, url: &str) -> Result<(Value, Value), ClientError> {
    let answers = host_answers();
    let tested = TestClient::new(app.clone()).answers(answers.clone());
    let in_process = tested.call_tool("survey", json!({})).await;
    let client = Client::http(url).answers(answers).connect().await?;
    let over_http = client.call_tool("survey", json!({})).await?;
    Ok((in_process, over_http))
}
// ANCHOR_END: answers

#[tokio::test]
async fn the_books_answers_serve_both_clients() {
    let app = app();
    let url = serve(&app).await;
    let (in_process, over_http) = bounded(survey_twice(&app, &url)).await.expect("answered");
    assert_eq!(in_process["content"][0]["text"], SURVEYED, "{in_process}");
    assert_eq!(in_process["content"], over_http["content"]);
}

#[tokio::test]
async fn one_answers_value_answers_every_client() {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = |answer: Value| {
        let asked = asked.clone();
        move |_question: Value| {
            asked.fetch_add(1, Ordering::SeqCst);
            std::future::ready(answer.clone())
        }
    };
    let host = Answers::new()
        .on_elicit(counted(
            json!({"action": "accept", "content": {"confirm": true}}),
        ))
        .on_sample(counted(
            json!({"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "test"}),
        ))
        .on_roots(counted(json!({"roots": [{"uri": "file:///work"}]})));
    let app = app();
    let mut clients = 0;

    for client in test_clients(&app, |client| client.answers(host.clone())) {
        let result = bounded(client.call_tool("survey", json!({}))).await;
        assert_eq!(result["content"][0]["text"], SURVEYED, "{result}");
        clients += 1;
    }
    let over_http = HttpTestClient::new(&app).answers(host.clone());
    let response = bounded(over_http.call_tool("survey", json!({}))).await;
    assert_eq!(
        response.result()["content"][0]["text"],
        SURVEYED,
        "{}",
        response.text
    );
    clients += 1;

    let url = serve(&app).await;
    for era in eras() {
        // The type the test kit exports is the client's: one value for both.
        let answers: mcp_runtime::client::Answers = host.clone();
        let client = bounded(Client::http(&url).pin(era).answers(answers).connect())
            .await
            .expect("connects");
        let result = bounded(client.call_tool("survey", json!({})))
            .await
            .expect("answered");
        assert_eq!(result["content"][0]["text"], SURVEYED, "{era:?}: {result}");
        clients += 1;
    }
    // Four questions a client, every one put to the same handlers.
    assert_eq!(asked.load(Ordering::SeqCst), 4 * clients);
}

async fn confirm(_question: Value) -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

async fn summarize(question: Value) -> Value {
    assert_eq!(question["messages"][0]["content"]["text"], "Summarize");
    json!({"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "test"})
}

async fn work_root(_question: Value) -> Value {
    json!({"roots": [{"uri": "file:///work"}]})
}

#[tokio::test]
async fn every_client_takes_its_handlers_under_the_same_names() {
    let app = app();
    for client in test_clients(&app, |client| {
        client
            .on_elicit(confirm)
            .on_sample(summarize)
            .on_roots(work_root)
    }) {
        let result = bounded(client.call_tool("survey", json!({}))).await;
        assert_eq!(result["content"][0]["text"], SURVEYED, "{result}");
    }
    // Answers given whole are replaced by `answers`, added to by `on_*`.
    let over_http = HttpTestClient::new(&app)
        .on_elicit(|_| async { json!({"action": "decline"}) })
        .answers(Answers::new().on_elicit(confirm).on_sample(summarize))
        .on_roots(work_root);
    let response = bounded(over_http.call_tool("survey", json!({}))).await;
    assert_eq!(response.result()["content"][0]["text"], SURVEYED);

    let url = serve(&app).await;
    for era in eras() {
        let client = Client::http(&url)
            .pin(era)
            .on_elicit(confirm)
            .on_sample(summarize)
            .on_roots(work_root);
        let client = bounded(client.connect()).await.expect("connects");
        let result = bounded(client.call_tool("survey", json!({})))
            .await
            .expect("answered");
        assert_eq!(result["content"][0]["text"], SURVEYED, "{era:?}: {result}");
    }
}

#[tokio::test]
async fn a_question_without_a_handler_is_handed_back_or_named_alike() {
    let app = app();
    let elicit_only = Answers::new().on_elicit(confirm);
    // The test clients hand back the round they cannot answer (2026-07-28)...
    let result = bounded(
        TestClient::new(app.clone())
            .answers(elicit_only.clone())
            .with_capabilities(json!({"sampling": {}, "roots": {}}))
            .call_tool("survey", json!({})),
    )
    .await;
    assert_eq!(result["resultType"], "input_required", "{result}");
    // ...the network client names the question nobody answers.
    let url = serve(&app).await;
    let client = Client::http(&url)
        .pin(Era::Modern)
        .capabilities(json!({"sampling": {}, "roots": {}}))
        .answers(elicit_only)
        .connect();
    let client = bounded(client).await.expect("connects");
    let error = bounded(client.call_tool("survey", json!({})))
        .await
        .expect_err("unanswered");
    assert!(
        matches!(&error, ClientError::InputUnanswered { method, .. }
            if ["sampling/createMessage", "roots/list"].contains(&method.as_str())),
        "{error:?}"
    );
}

// ANCHOR: typed
/// The tool's structured content, read as a type of the caller's.
#[derive(Debug, PartialEq, Deserialize)]
struct Area {
    width: u32,
    height: u32,
}

/// How large a square of `side` is, as the server computes it.
async fn area(client: &Client, side: u32) -> Result<u32, ClientError> {
    let size: Area = client.call_tool_as("square", json!({"side": side})).await?;
    Ok(size.width * size.height)
}
// ANCHOR_END: typed

#[tokio::test]
async fn call_tool_as_on_the_client_reads_structured_content_or_says_why_not() {
    let app = app();
    let url = serve(&app).await;
    let client = bounded(Client::http(&url).connect())
        .await
        .expect("connects");
    assert_eq!(bounded(area(&client, 4)).await.expect("an area"), 16);

    let size: Size = bounded(client.call_tool_as("square", json!({"side": 3})))
        .await
        .expect("a size");
    assert_eq!(
        size,
        Size {
            width: 3,
            height: 3
        }
    );
    // The same value as the test client reads.
    let in_process: Size = TestClient::new(app.clone())
        .call_tool_as("square", json!({"side": 3}))
        .await
        .expect("a size");
    assert_eq!(size, in_process);

    // Structured content of another shape: the error names the type and the
    // deserializer's complaint, and keeps the result.
    let error = bounded(client.call_tool_as::<Vec<u32>>("square", json!({"side": 3})))
        .await
        .expect_err("not a list");
    assert_eq!(error.layer(), Layer::Mcp);
    let said = error.to_string();
    assert!(
        said.contains("square") && said.contains("Vec<u32>"),
        "{said}"
    );
    assert!(
        said.contains("invalid type: map, expected a sequence"),
        "{said}"
    );
    match &error {
        ClientError::UnexpectedResult { result, .. } => {
            assert_eq!(result["structuredContent"]["width"], 3)
        }
        other => panic!("expected UnexpectedResult, got {other:?}"),
    }

    // No structured content at all.
    let error = bounded(client.call_tool_as::<String>("greet", json!({"name": "Ann"})))
        .await
        .expect_err("text only");
    assert!(
        matches!(&error, ClientError::UnexpectedResult { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("greet returned no structured content"),
        "{error}"
    );

    // The tool reported failure: a business error with the whole result, as `call_tool`.
    let error = bounded(client.call_tool_as::<Size>("refuse", json!({})))
        .await
        .expect_err("refused");
    match &error {
        ClientError::Business(result) => {
            assert_eq!(result["isError"], true);
            assert_eq!(result["content"][0]["text"], "nothing to measure");
        }
        other => panic!("expected Business, got {other:?}"),
    }
    assert_eq!(error.layer(), Layer::Business);
}
