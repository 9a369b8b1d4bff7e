//! `mcp_runtime::client::Client` against servers that misbehave on purpose (the `hostile`
//! fixture), over stdio and Streamable HTTP, in both eras: every case ends within its
//! deadline with an error that names its layer and, where one was passed, the limit; what
//! the server sends past a limit is not read; nothing crosses to another origin; questions
//! are put to the handlers only as often as the limits allow.
//!
//! The memory each case costs is measured on the `mcp` program (tests/mcp.rs), a process
//! of its own; here the client runs inside the test.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use futures_util::StreamExt;
use mcp_runtime::client::{Client, ClientBuilder, ClientError, Era, Layer, Limits};
use serde_json::{json, Value};

/// The deadline of the operations here.
const DEADLINE: Duration = Duration::from_secs(3);

/// `work`, which must end within the deadline (and the slack, on a busy machine).
async fn ended<T>(work: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(DEADLINE + SLACK, work.into_future())
        .await
        .expect("the operation ends within its deadline")
}

/// How the client reaches the server.
#[derive(Clone, Copy, Debug)]
enum Over {
    Stdio,
    Http,
    /// HTTP, the server answering with SSE streams.
    Sse,
}

const ALL_WAYS: [Over; 3] = [Over::Stdio, Over::Http, Over::Sse];

/// A client of `hostile CASE` in `era`, over `over`; the HTTP server lives as long as the
/// second value.
fn client_of(
    case: &str,
    era: &str,
    over: Over,
    env: &[(&str, &str)],
) -> (ClientBuilder, Option<Served>) {
    let era_args = ["--era", era];
    let builder = match over {
        Over::Stdio => (Client::stdio(hostile(case, &era_args, env)), None),
        Over::Http => {
            let served = serve(case, &era_args, env);
            (Client::http(&served.url), Some(served))
        }
        Over::Sse => {
            let served = serve(case, &["--era", era, "--sse"], env);
            (Client::http(&served.url), Some(served))
        }
    };
    (builder.0.timeout(DEADLINE), builder.1)
}

/// The limit a `LimitExceeded` names, and that it is a transport-layer error.
fn limit_of(error: &ClientError) -> &'static str {
    assert_eq!(error.layer(), Layer::Transport, "{error}");
    match error {
        ClientError::LimitExceeded { limit, .. } => limit,
        other => panic!("not a limit: {other:?}"),
    }
}

/// A handler of elicitations that counts them and accepts with nothing.
fn counting(asked: &Arc<AtomicUsize>) -> impl Fn(Value) -> std::future::Ready<Value> + Send + Sync {
    let asked = asked.clone();
    move |_question| {
        asked.fetch_add(1, Ordering::SeqCst);
        std::future::ready(json!({"action": "accept", "content": {}}))
    }
}

#[tokio::test]
async fn an_answer_past_the_message_limit_is_refused_having_read_no_more() {
    for era in ["modern", "legacy"] {
        for over in ALL_WAYS {
            let (builder, _served) = client_of(
                "huge-result",
                era,
                over,
                &[("HOSTILE_METHOD", "tools/call")],
            );
            let client = builder
                .limits(Limits::new().max_message_bytes(1 << 20))
                .connect()
                .await
                .unwrap();
            let error = ended(client.call_tool("echo", json!({})))
                .await
                .unwrap_err();
            assert_eq!(limit_of(&error), "max_message_bytes", "{era} {over:?}");
            assert!(error.to_string().contains("than 1048576 bytes"), "{error}");
            let next = ended(client.list_tools()).await;
            match over {
                // The rest of the pipe cannot be read in step: the connection is closed.
                Over::Stdio => {
                    assert_eq!(limit_of(&next.unwrap_err()), "max_message_bytes", "{era}")
                }
                // Only that response was dropped.
                Over::Http | Over::Sse => assert_eq!(next.unwrap().len(), 1, "{era} {over:?}"),
            }
        }
    }
}

#[tokio::test]
async fn a_message_that_would_take_far_more_once_read_is_refused_unparsed() {
    // About 4 MB of `{"a":0}`: within the size limit as text, some 300 MB as values.
    for era in ["modern", "legacy"] {
        for over in ALL_WAYS {
            let (builder, _served) = client_of(
                "dense-result",
                era,
                over,
                &[("HOSTILE_METHOD", "tools/call")],
            );
            let client = builder.connect().await.unwrap();
            let error = ended(client.call_tool("echo", json!({})))
                .await
                .unwrap_err();
            assert_eq!(limit_of(&error), "max_message_bytes", "{era} {over:?}");
            assert!(
                error
                    .to_string()
                    .contains("would take more than 16777216 bytes once read"),
                "{error}"
            );
        }
    }
}

#[tokio::test]
async fn an_answer_that_never_ends_is_refused_at_the_limit() {
    for era in ["modern", "legacy"] {
        for over in ALL_WAYS {
            let (builder, _served) = client_of("endless", era, over, &[]);
            let client = builder
                .limits(Limits::new().max_message_bytes(1 << 20))
                .connect()
                .await
                .unwrap();
            let error = ended(client.list_tools()).await.unwrap_err();
            assert_eq!(limit_of(&error), "max_message_bytes", "{era} {over:?}");
        }
    }
}

#[tokio::test]
async fn a_body_declared_past_the_limit_is_refused_unread() {
    for era in ["modern", "legacy"] {
        // The body would come one byte a second: a client that read it would run into its
        // deadline; refused on its Content-Length, it fails at once on the limit.
        let (builder, _served) = client_of(
            "huge-declared",
            era,
            Over::Http,
            &[("HOSTILE_BYTES", "20000000")],
        );
        let client = builder.connect().await.unwrap();
        let error = ended(client.list_tools()).await.unwrap_err();
        assert_eq!(limit_of(&error), "max_message_bytes", "{era}: {error}");
    }
}

/// The request `work` fails on its deadline: a `Timeout` naming `method` and the whole
/// deadline, within it and the slack.
async fn assert_deadline<T>(
    method: &str,
    work: impl std::future::IntoFuture<Output = Result<T, ClientError>>,
) {
    let started = Instant::now();
    let Err(error) = ended(work).await else {
        panic!("{method} did not fail");
    };
    match &error {
        ClientError::Timeout {
            method: named,
            after,
        } => {
            assert_eq!(named, method, "{error}");
            assert_eq!(*after, DEADLINE, "{error}");
        }
        other => panic!("not a timeout: {other:?}"),
    }
    assert_eq!(error.layer(), Layer::Transport);
    assert!(started.elapsed() >= DEADLINE, "{:?}", started.elapsed());
}

#[tokio::test]
async fn an_answer_that_trickles_in_ends_at_the_deadline() {
    // One byte a second: a timeout per chunk would never fire.
    for era in ["modern", "legacy"] {
        for over in [Over::Stdio, Over::Http] {
            let (builder, _served) = client_of("trickle", era, over, &[]);
            let client = builder.connect().await.unwrap();
            assert_deadline("tools/call", client.call_tool("echo", json!({}))).await;
        }
    }
}

#[tokio::test]
async fn a_stream_of_keepalives_ends_at_the_deadline() {
    for era in ["modern", "legacy"] {
        let (builder, _served) = client_of("keepalive", era, Over::Http, &[]);
        let client = builder.connect().await.unwrap();
        assert_deadline("tools/call", client.call_tool("echo", json!({}))).await;
    }
}

#[tokio::test]
async fn a_listing_never_answered_ends_at_the_deadline() {
    for era in ["modern", "legacy"] {
        for over in [Over::Stdio, Over::Http] {
            let (builder, _served) = client_of("hang", era, over, &[]);
            let client = builder.connect().await.unwrap();
            assert_deadline("tools/list", client.list_tools()).await;
        }
    }
}

#[tokio::test]
async fn a_listing_that_gives_a_cursor_twice_is_refused() {
    for era in ["modern", "legacy"] {
        for over in [Over::Stdio, Over::Http] {
            let (builder, _served) = client_of("cursor-cycle", era, over, &[]);
            let client = builder.connect().await.unwrap();
            let error = ended(client.list_prompts()).await.unwrap_err();
            assert!(matches!(error, ClientError::Malformed { .. }), "{error:?}");
            assert!(
                error
                    .to_string()
                    .contains("page 3 gives a cursor an earlier page gave"),
                "{era} {over:?}: {error}"
            );
        }
    }
}

#[tokio::test]
async fn a_listing_that_never_ends_stops_at_the_limits() {
    for era in ["modern", "legacy"] {
        for over in [Over::Stdio, Over::Http] {
            // The default: 1,000 pages.
            let (builder, _served) = client_of("cursor-endless", era, over, &[]);
            let client = builder
                .timeout(Duration::from_secs(60))
                .connect()
                .await
                .unwrap();
            let error = ended(client.list_tools()).await.unwrap_err();
            assert_eq!(limit_of(&error), "max_pages", "{era} {over:?}");
            assert!(
                error.to_string().contains("more than 1000 pages"),
                "{error}"
            );
            // Fewer pages, or fewer bytes, when the client says so.
            let (builder, _served) = client_of("cursor-endless", era, over, &[]);
            let client = builder
                .limits(Limits::new().max_pages(5))
                .connect()
                .await
                .unwrap();
            let error = ended(client.list_resources()).await.unwrap_err();
            assert_eq!(limit_of(&error), "max_pages", "{era} {over:?}");
            let (builder, _served) = client_of("cursor-endless", era, over, &[]);
            let client = builder
                .limits(Limits::new().max_list_bytes(500))
                .connect()
                .await
                .unwrap();
            let error = ended(client.list_tools()).await.unwrap_err();
            assert_eq!(limit_of(&error), "max_list_bytes", "{era} {over:?}");
        }
    }
}

#[tokio::test]
async fn the_pages_of_a_listing_share_one_deadline() {
    // Each page comes at once, and there is no end to them: with a deadline per page the
    // listing would go on until the bytes ran out; it ends on its one deadline.
    for over in [Over::Stdio, Over::Http] {
        let (builder, _served) = client_of("cursor-endless", "modern", over, &[]);
        let client = builder
            .limits(
                Limits::new()
                    .max_pages(usize::MAX)
                    .max_list_bytes(usize::MAX),
            )
            .connect()
            .await
            .unwrap();
        assert_deadline("tools/list", client.list_tools()).await;
    }
}

#[tokio::test]
async fn the_handshake_and_the_closing_delete_wait_no_longer_than_the_deadline() {
    // `notifications/initialized` is never answered: connecting fails on its deadline.
    let (builder, _served) = client_of("hang-initialized", "legacy", Over::Http, &[]);
    assert_deadline("notifications/initialized", builder.connect()).await;
    // The DELETE that ends the session is never answered: closing still returns.
    let (builder, _served) = client_of("hang-delete", "legacy", Over::Http, &[]);
    let client = builder.connect().await.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.list_tools().await.unwrap().len(), 1);
    let started = Instant::now();
    ended(client.close()).await;
    assert!(started.elapsed() < DEADLINE + SLACK);
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_and_nothing_reaches_it() {
    for pin in [None, Some(Era::Legacy)] {
        let other = OtherOrigin::start();
        let served = serve("redirect", &["--redirect-to", &other.url], &[]);
        let mut builder = Client::http(&served.url)
            .timeout(DEADLINE)
            .bearer("secret-token-of-the-caller")
            .header("x-api-key", "secret-key-of-the-caller");
        if let Some(era) = pin {
            builder = builder.pin(era);
        }
        let error = ended(builder.connect()).await.err().expect("refused");
        match &error {
            ClientError::Transport {
                status: Some(307),
                message,
            } => {
                assert!(
                    message.contains("a redirect to another origin"),
                    "{message}"
                );
                assert!(message.contains(&other.url), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // Neither the credentials nor the body, nor even a connection.
        assert_eq!(other.seen(), Vec::<String>::new(), "{pin:?}");
    }
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed() {
    for era in ["modern", "legacy"] {
        let served = serve("redirect-same", &["--era", era], &[]);
        let client = Client::http(&served.url)
            .timeout(DEADLINE)
            .connect()
            .await
            .unwrap();
        let result = ended(client.call_tool("echo", json!({"text": "moved"})))
            .await
            .unwrap();
        assert_eq!(result["content"][0]["text"], "moved", "{era}");
    }
}

#[tokio::test]
async fn redirects_within_the_origin_are_followed_three_times_at_most() {
    let served = serve("redirect-loop", &[], &[]);
    let error = ended(Client::http(&served.url).timeout(DEADLINE).connect())
        .await
        .err()
        .expect("refused");
    match &error {
        ClientError::Transport {
            status: Some(307),
            message,
        } => assert!(message.contains("more than 3 redirects"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn answers_to_discover_and_initialize_must_have_their_shape() {
    for over in [Over::Stdio, Over::Http] {
        for (case, era, wrong) in [
            (
                "discover-string",
                "modern",
                "server/discover is not a DiscoverResult: it is not an object",
            ),
            (
                "discover-bad-shape",
                "modern",
                "supportedVersions is not a list of versions",
            ),
            (
                "initialize-string",
                "legacy",
                "initialize is not an InitializeResult: it is not an object",
            ),
            (
                "initialize-bad-shape",
                "legacy",
                "capabilities is not an object",
            ),
        ] {
            let (builder, _served) = client_of(case, era, over, &[]);
            let error = ended(builder.connect()).await.err().expect("refused");
            assert!(
                matches!(error, ClientError::Malformed { .. }),
                "{case} {over:?}: {error:?}"
            );
            assert_eq!(error.layer(), Layer::JsonRpc);
            assert!(
                error.to_string().contains(wrong),
                "{case} {over:?}: {error}"
            );
        }
    }
}

#[tokio::test]
async fn no_version_in_common_is_an_error_naming_both_lists() {
    for over in [Over::Stdio, Over::Http] {
        for case in ["unknown-versions", "unknown-versions-error"] {
            let (builder, _served) = client_of(case, "modern", over, &[]);
            let error = ended(builder.connect()).await.err().expect("refused");
            assert_eq!(error.code(), Some(-32022), "{case} {over:?}: {error:?}");
            let said = error.to_string();
            assert!(
                said.contains("no protocol version in common: the server supports 1999-01-01, this client speaks 2026-07-28, 2025-11-25"),
                "{case} {over:?}: {said}"
            );
        }
    }
}

#[tokio::test]
async fn an_http_answer_naming_another_request_is_refused() {
    for era in ["modern", "legacy"] {
        let (builder, _served) = client_of("wrong-id", era, Over::Http, &[]);
        let client = builder.connect().await.unwrap();
        let error = ended(client.call_tool("echo", json!({})))
            .await
            .unwrap_err();
        assert!(
            matches!(error, ClientError::Malformed { .. }),
            "{era}: {error:?}"
        );
        assert!(error.to_string().contains("names request"), "{error}");
    }
}

#[tokio::test]
async fn a_round_of_too_many_questions_puts_none_to_the_handler() {
    for over in [Over::Stdio, Over::Http] {
        let asked = Arc::new(AtomicUsize::new(0));
        let hundred = [("HOSTILE_COUNT", "100")];
        let (builder, _served) = client_of("many-questions", "modern", over, &hundred);
        let client = builder.on_elicit(counting(&asked)).connect().await.unwrap();
        let error = ended(client.call_tool("echo", json!({})))
            .await
            .unwrap_err();
        assert_eq!(limit_of(&error), "max_questions", "{over:?}");
        assert!(
            error
                .to_string()
                .contains("asked 100 questions in one round"),
            "{error}"
        );
        // Ten thousand weigh more than a message may: refused before they are read.
        let (builder, _served) = client_of("many-questions", "modern", over, &[]);
        let client = builder.on_elicit(counting(&asked)).connect().await.unwrap();
        let error = ended(client.call_tool("echo", json!({})))
            .await
            .unwrap_err();
        assert_eq!(limit_of(&error), "max_message_bytes", "{over:?}");
        assert_eq!(asked.load(Ordering::SeqCst), 0, "{over:?}");
    }
}

#[tokio::test]
async fn handshake_era_questions_during_one_call_are_bounded() {
    // Over HTTP the questions come on the call's stream: past `max_rounds`, the call ends.
    let asked = Arc::new(AtomicUsize::new(0));
    let (builder, _served) = client_of("many-questions", "legacy", Over::Http, &[]);
    let client = builder.on_elicit(counting(&asked)).connect().await.unwrap();
    let error = ended(client.call_tool("echo", json!({})))
        .await
        .unwrap_err();
    assert_eq!(limit_of(&error), "max_rounds");
    assert_eq!(asked.load(Ordering::SeqCst), 16);
    // Over stdio a question names no call: the handler answers `max_rounds` for the call
    // waiting, the rest are refused, and the server, answered, finishes the call.
    let asked = Arc::new(AtomicUsize::new(0));
    let (builder, _served) = client_of(
        "many-questions",
        "legacy",
        Over::Stdio,
        &[("HOSTILE_COUNT", "1000")],
    );
    let client = builder.on_elicit(counting(&asked)).connect().await.unwrap();
    let result = ended(client.call_tool("echo", json!({}))).await.unwrap();
    assert!(result["content"][0]["text"].is_string(), "{result}");
    assert_eq!(asked.load(Ordering::SeqCst), 16);
}

#[tokio::test]
async fn a_call_that_never_stops_asking_ends_at_the_round_limit() {
    for over in [Over::Stdio, Over::Http] {
        let asked = Arc::new(AtomicUsize::new(0));
        let (builder, _served) = client_of("endless-rounds", "modern", over, &[]);
        let client = builder
            .on_elicit(counting(&asked))
            .limits(Limits::new().max_rounds(4))
            .connect()
            .await
            .unwrap();
        let error = ended(client.call_tool("echo", json!({})))
            .await
            .unwrap_err();
        assert_eq!(limit_of(&error), "max_rounds", "{over:?}");
        assert!(
            error
                .to_string()
                .contains("still asked for input after 4 rounds of tools/call"),
            "{error}"
        );
        assert_eq!(asked.load(Ordering::SeqCst), 4, "{over:?}");
    }
}

/// `hostile request-flood`, its stderr in a file (it counts the client's replies there).
fn flood(era: &str, count: &str) -> (tokio::process::Command, std::path::PathBuf) {
    let log = std::env::temp_dir().join(format!(
        "hostile-flood-{era}-{}-{:?}.log",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut command = hostile(
        "request-flood",
        &["--era", era],
        &[("HOSTILE_COUNT", count)],
    );
    command.stderr(std::fs::File::create(&log).unwrap());
    (command, log)
}

/// What the server wrote to its log once it has exited (after its stdin closed).
async fn log_after_exit(log: &std::path::Path, marker: &str) -> String {
    for _ in 0..600 {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains(marker) {
            let _ = std::fs::remove_file(log);
            return text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} never said {marker:?}", log.display());
}

#[tokio::test]
async fn the_servers_requests_are_answered_a_few_at_a_time_and_each_gets_a_reply() {
    let busy = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (command, log) = flood("legacy", "20000");
    let handler = {
        let (busy, most) = (busy.clone(), most.clone());
        move |_question: Value| {
            let (busy, most) = (busy.clone(), most.clone());
            async move {
                let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                busy.fetch_sub(1, Ordering::SeqCst);
                json!({"action": "decline"})
            }
        }
    };
    // Two at a time, so the bound shows below the questions' own (`max_rounds`).
    let client = Client::stdio(command)
        .timeout(Duration::from_secs(60))
        .limits(Limits::new().max_server_requests(2))
        .on_elicit(handler)
        .connect()
        .await
        .unwrap();
    let tools = ended(client.list_tools()).await.unwrap();
    assert_eq!(tools.len(), 1);
    // The server answers once it has sent its flood, not once it has every reply: the
    // last questions may still be with the handler.
    ended(async {
        while busy.load(Ordering::SeqCst) > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    client.close().await;
    let said = log_after_exit(&log, "replies to the flood").await;
    // Every one of the 20,000 requests got a reply (an answer, or a refusal), and never
    // were more than `max_server_requests` with the handler at once.
    assert!(said.contains("request-flood: 20000 replies"), "{said}");
    // The questions the handler could not take at once were refused (-31429), not queued.
    let busy: u64 = said
        .split(", ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(busy > 0, "{said}");
    let most = most.load(Ordering::SeqCst);
    assert!((1..=2).contains(&most), "{most} at once");
}

#[tokio::test]
async fn a_2026_07_28_servers_own_requests_never_reach_the_handlers() {
    let asked = Arc::new(AtomicUsize::new(0));
    let (command, log) = flood("modern", "2000");
    let client = Client::stdio(command)
        .on_elicit(counting(&asked))
        .timeout(Duration::from_secs(60))
        .connect()
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Modern);
    ended(client.list_tools()).await.unwrap();
    client.close().await;
    let said = log_after_exit(&log, "replies to the flood").await;
    assert!(said.contains("request-flood: 2000 replies"), "{said}");
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_server_that_stops_reading_is_met_with_the_deadline() {
    for era in ["modern", "legacy"] {
        let (builder, _served) = client_of("flood-unread", era, Over::Stdio, &[]);
        let client = builder.connect().await.unwrap();
        assert_deadline("tools/call", client.call_tool("echo", json!({}))).await;
    }
}

#[tokio::test]
async fn a_question_no_request_waits_for_is_refused() {
    let asked = Arc::new(AtomicUsize::new(0));
    let (builder, _served) = client_of("unprompted-question", "legacy", Over::Stdio, &[]);
    let client = builder.on_elicit(counting(&asked)).connect().await.unwrap();
    ended(client.list_tools()).await.unwrap();
    // The server reports how its question, sent after its answer, was answered.
    let result = ended(client.call_tool("echo", json!({}))).await.unwrap();
    let reply: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_subscription_left_unread_is_ended_over_stdio_and_waits_over_http() {
    // Over stdio: the notifications past the backlog end the subscription, which is
    // cancelled on the server; the pipe every other request shares is not held up.
    let log = std::env::temp_dir().join(format!("hostile-subscription-{}.log", std::process::id()));
    let mut command = hostile("subscription-flood", &[], &[]);
    command.stderr(std::fs::File::create(&log).unwrap());
    let client = Client::stdio(command)
        .timeout(DEADLINE)
        .connect()
        .await
        .unwrap();
    let subscription = ended(client.listen(json!({"toolsListChanged": true})))
        .await
        .unwrap();
    let result = ended(client.call_tool("echo", json!({"text": "still served"})))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "still served");
    let kept = ended(subscription.count()).await;
    assert!((1..=1024).contains(&kept), "{kept} of the 5,000 kept");
    let said = log_after_exit(&log, "subscription-flood: cancelled").await;
    assert!(said.contains("cancelled"), "{said}");
    client.close().await;

    // Over HTTP the subscription has its own stream: it is read as the program takes the
    // notifications, and none is lost.
    let served = serve("subscription-flood", &[], &[]);
    let client = Client::http(&served.url)
        .timeout(DEADLINE)
        .connect()
        .await
        .unwrap();
    let subscription = ended(client.listen(json!({"toolsListChanged": true})))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let taken = ended(subscription.take(5000).count()).await;
    assert_eq!(taken, 5000);
}
