//! `#[tool(concurrency = n, queue = m)]`: at most `n` calls of a tool run at once, whoever
//! makes them, `m` more wait for a turn, and a call past both is refused at once with
//! -31429 (HTTP 429), in both eras and over HTTP; other tools are not held up.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{HttpTestClient, TestClient};
use mcp_runtime::App;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

/// The backend the tools stand for: it counts who is inside and holds them until the
/// test lets them out.
struct Backend {
    inside: AtomicUsize,
    most_inside: AtomicUsize,
    entered: AtomicUsize,
    exits: Semaphore,
}

impl Default for Backend {
    fn default() -> Self {
        Backend {
            inside: AtomicUsize::new(0),
            most_inside: AtomicUsize::new(0),
            entered: AtomicUsize::new(0),
            exits: Semaphore::new(0),
        }
    }
}

impl Backend {
    async fn visit(&self) {
        let now = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_inside.fetch_max(now, Ordering::SeqCst);
        self.entered.fetch_add(1, Ordering::SeqCst);
        if let Ok(exit) = self.exits.acquire().await {
            exit.forget();
        }
        self.inside.fetch_sub(1, Ordering::SeqCst);
    }

    /// Let `n` visitors out.
    fn release(&self, n: usize) {
        self.exits.add_permits(n);
    }
}

/// Two calls at once, none waiting.
#[tool(concurrency = 2, queue = 0)]
async fn pair(backend: State<Arc<Backend>>) -> &'static str {
    backend.visit().await;
    "done"
}

/// One call at once, one waiting.
#[tool(concurrency = 1, queue = 1)]
async fn single(backend: State<Arc<Backend>>) -> &'static str {
    backend.visit().await;
    "done"
}

/// One call at once, and the default queue.
#[tool(concurrency = 1)]
async fn defaulted(backend: State<Arc<Backend>>) -> &'static str {
    backend.visit().await;
    "done"
}

/// No limit of its own.
#[tool]
async fn free() -> &'static str {
    "free"
}

/// One call at once, none waiting, and it may run as a task.
#[tool(task, concurrency = 1, queue = 0)]
async fn exporting(ctx: RequestContext, backend: State<Arc<Backend>>) -> &'static str {
    ctx.start_task();
    backend.visit().await;
    "exported"
}

fn app(backend: Arc<Backend>) -> App {
    Server::new("concurrency", "1.0.0")
        .only(tools![pair, single, defaulted, free, exporting])
        .state(backend)
        .build()
        .expect("the server builds")
}

/// Waits (at most ten seconds) until `count` reaches `at_least`.
async fn reaches(count: &AtomicUsize, at_least: usize) {
    for _ in 0..1000 {
        if count.load(Ordering::SeqCst) >= at_least {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never reached {at_least}");
}

/// The refusal of a call past the limit and the queue.
fn assert_busy(response: &Value, tool: &str) {
    let error = &response["error"];
    assert_eq!(error["code"], -31429, "{response}");
    assert_eq!(error["data"]["reason"], "tool_concurrency", "{response}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!("tool {tool} is busy")),
        "{message}"
    );
}

fn call(tool: &str) -> Value {
    json!({"name": tool, "arguments": {}})
}

/// Makes a client of an app.
type MakeClient = fn(&App) -> TestClient;

/// The eras, each with a maker of clients. A handshake-era test client answers one
/// request of its session at a time, so calls made at once come from clients of their own.
fn eras() -> Vec<(&'static str, MakeClient)> {
    vec![
        ("2026-07-28", |app| TestClient::new(app.clone())),
        #[cfg(feature = "legacy")]
        ("2025-11-25", |app| {
            TestClient::legacy(app.clone(), "2025-11-25")
        }),
    ]
}

#[tokio::test]
async fn past_the_limit_a_call_is_refused_and_other_tools_go_on() {
    let backend = Arc::new(Backend::default());
    let app = app(backend.clone());
    for (round, (era, client)) in eras().into_iter().enumerate() {
        let (a, b, c) = (client(&app), client(&app), client(&app));
        let (first, second, third) = tokio::join!(
            a.request("tools/call", call("pair")),
            b.request("tools/call", call("pair")),
            async {
                reaches(&backend.entered, 2 * (round + 1)).await;
                let refused = c.request("tools/call", call("pair")).await;
                // Another tool is not held up by this one's limit.
                let free = c.call_tool("free", json!({})).await;
                assert_eq!(free["content"][0]["text"], "free", "{era}");
                backend.release(2);
                refused
            }
        );
        assert_busy(&third, "pair");
        for done in [first, second] {
            assert_eq!(
                done["result"]["content"][0]["text"], "done",
                "{era}: {done}"
            );
        }
    }
    assert_eq!(backend.most_inside.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_call_waits_its_turn_while_the_queue_has_room() {
    let backend = Arc::new(Backend::default());
    let app = app(backend.clone());
    for (round, (era, client)) in eras().into_iter().enumerate() {
        let (a, b, c) = (client(&app), client(&app), client(&app));
        let answered = AtomicUsize::new(0);
        let answer = |reply: Value| {
            answered.fetch_add(1, Ordering::SeqCst);
            reply
        };
        let (first, later) = tokio::join!(a.request("tools/call", call("single")), async {
            // With the first call inside, of two more one waits and one is refused.
            reaches(&backend.entered, 2 * round + 1).await;
            let (second, third, ()) = tokio::join!(
                async { answer(b.request("tools/call", call("single")).await) },
                async { answer(c.request("tools/call", call("single")).await) },
                async {
                    reaches(&answered, 1).await;
                    // The waiting one goes in when the first comes out.
                    backend.release(2);
                }
            );
            (second, third)
        });
        assert_eq!(first["result"]["content"][0]["text"], "done", "{era}");
        let (second, third) = later;
        let (refused, waited) = if second.get("error").is_some() {
            (second, third)
        } else {
            (third, second)
        };
        assert_busy(&refused, "single");
        assert_eq!(
            waited["result"]["content"][0]["text"], "done",
            "{era}: {waited}"
        );
    }
    assert_eq!(backend.most_inside.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn over_http_a_refusal_is_429() {
    let backend = Arc::new(Backend::default());
    let client = HttpTestClient::new(&app(backend.clone()));
    let (first, second, third) = tokio::join!(
        client.call_tool("pair", json!({})),
        client.call_tool("pair", json!({})),
        async {
            reaches(&backend.entered, 2).await;
            let refused = client.call_tool("pair", json!({})).await;
            backend.release(2);
            refused
        }
    );
    assert_eq!(third.status, 429);
    assert_busy(&third.response(), "pair");
    assert_eq!(first.status, 200);
    assert_eq!(second.status, 200);
}

/// Without `queue`, sixteen calls wait: of eighteen at once, one runs, sixteen wait and
/// one is refused.
#[tokio::test]
async fn the_default_queue_holds_sixteen() {
    let backend = Arc::new(Backend::default());
    let client = TestClient::new(app(backend.clone()));
    let answered = AtomicUsize::new(0);
    let calls = (0..18).map(|_| async {
        let reply = client.request("tools/call", call("defaulted")).await;
        answered.fetch_add(1, Ordering::SeqCst);
        reply
    });
    let (replies, ()) = tokio::join!(futures_util::future::join_all(calls), async {
        reaches(&answered, 1).await;
        backend.release(17);
    });
    let refused: Vec<&Value> = replies
        .iter()
        .filter(|r| r.get("error").is_some())
        .collect();
    assert_eq!(refused.len(), 1, "{replies:?}");
    assert_busy(refused[0], "defaulted");
    assert_eq!(refused[0]["error"]["data"]["maxWaiting"], 16);
    assert_eq!(backend.most_inside.load(Ordering::SeqCst), 1);
}

/// A call of a task tool past its limit is refused as it arrives, with the same -31429,
/// rather than started as a task that then fails: the refusal comes on the handler's
/// first step, before the call could become a task, while the running call holds its turn
/// as a task.
#[tokio::test]
async fn a_task_tool_past_its_limit_is_refused_before_it_becomes_a_task() {
    let backend = Arc::new(Backend::default());
    let app = app(backend.clone());
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let client = TestClient::new(app).with_capabilities(tasks);
    let first = client.request("tools/call", call("exporting")).await;
    assert_eq!(first["result"]["resultType"], "task", "{first}");
    reaches(&backend.entered, 1).await;
    let second = client.request("tools/call", call("exporting")).await;
    assert_busy(&second, "exporting");
    backend.release(1);
}
