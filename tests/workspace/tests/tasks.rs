//! The Tasks extension (`io.modelcontextprotocol/tasks`) through the in-process client:
//! when a call becomes a task, the shape of every task state, answers through
//! `tasks/update`, cooperative cancellation, principal isolation, expiry, status
//! notifications on `subscriptions/listen`, and the handshake era left out. Requirement ids
//! (S-nnn) refer to the server checklist.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::testing::TestClient;
use mcp_runtime::{App, Principal, Server};
use mcp_workspace_tests::long::{self, TaskProbe};
use serde_json::{json, Value};

// The client of these tests, as the book shows it.
#[path = "tasks/tasking.rs"]
mod tasking;
use tasking::{tasking, TASKS};

fn app_with(configure: impl FnOnce(Server) -> Server) -> (App, Arc<TaskProbe>) {
    let probe = Arc::new(TaskProbe::default());
    (
        configure(long::server(probe.clone())).build().unwrap(),
        probe,
    )
}

fn app() -> (App, Arc<TaskProbe>) {
    app_with(|s| s)
}

/// `tools/call` returning a task: its id.
async fn start(client: &TestClient, tool: &str, arguments: Value) -> String {
    let result = client.call_tool(tool, arguments).await;
    assert_eq!(result["resultType"], "task", "{result}");
    result["taskId"].as_str().unwrap().to_owned()
}

async fn get(client: &TestClient, id: &str) -> Value {
    client.request("tasks/get", json!({"taskId": id})).await
}

/// Poll until `status` (within 10 s); the task.
async fn wait_for(client: &TestClient, id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let reply = get(client, id).await;
        if reply["result"]["status"] == status {
            return reply["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "task {id} never reached {status}: {}",
        get(client, id).await
    );
}

// S-349 (advertised), S-377, S-379: the extension is announced in server/discover, and
// never to a handshake-era session.
#[tokio::test]
async fn the_extension_is_announced_to_modern_clients_only() {
    let (app, _) = app();
    let discovered = TestClient::new(app.clone())
        .request("server/discover", json!({}))
        .await;
    // S-006, S-051, S-349: the extension is advertised by its prefixed identifier, which
    // is what lets the server answer "task".
    assert_eq!(
        discovered["result"]["capabilities"]["extensions"],
        json!({TASKS: {}})
    );
    // S-379: and none of the handshake era's task capabilities.
    assert!(
        discovered["result"]["capabilities"].get("tasks").is_none(),
        "{discovered}"
    );
    #[cfg(feature = "legacy")]
    {
        let legacy = mcp_runtime::testing::TestClient::legacy(app.clone(), "2025-11-25")
            .with_capabilities(json!({"extensions": {TASKS: {}}}));
        let initialized = legacy.discover().await;
        let caps = &initialized["capabilities"];
        assert!(caps.get("extensions").is_none(), "{caps}");
        assert!(caps.get("tasks").is_none(), "{caps}");
        // S-377: a task tool answers synchronously in the handshake era,
        let result = legacy.call_tool("takes", json!({"ms": 300})).await;
        assert_eq!(result["content"][0]["text"], "took 300 ms");
        // one that needs a task is refused, and tasks/* do not exist there.
        let refused = legacy
            .request(
                "tools/call",
                json!({"name": "ask_then_task", "arguments": {}}),
            )
            .await;
        assert_eq!(refused["error"]["code"], -32021, "{refused}");
        let unknown = legacy.request("tasks/get", json!({"taskId": "x"})).await;
        assert_eq!(unknown["error"]["code"], -32601);
    }
}

// S-350, S-351, S-352: fast calls answer directly, slow ones become tasks, only for
// clients declaring the extension on that request; a tool that needs a task refuses the
// others with -32021 naming the extension.
#[tokio::test]
async fn when_a_call_becomes_a_task() {
    let (app, _) = app();
    let tasks = tasking(&app);
    let plain = TestClient::new(app.clone());
    assert_eq!(
        tasks.call_tool("plain", json!({})).await["resultType"],
        "complete"
    );
    let fast = tasks.call_tool("takes", json!({"ms": 5})).await;
    assert_eq!(fast["resultType"], "complete");
    assert_eq!(fast["content"][0]["text"], "took 5 ms");
    let slow = tasks.call_tool("takes", json!({"ms": 400})).await;
    // S-354: the call that becomes a task answers "task"; the answers above are "complete".
    assert_eq!(slow["resultType"], "task");
    // S-357: the task's members (their timestamps' ISO 8601 form: clock.rs).
    for key in [
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
    ] {
        assert!(slow.get(key).is_some(), "{key} in {slow}");
    }
    assert!(slow.get("requestState").is_none() && slow.get("task").is_none());
    let without = plain.call_tool("takes", json!({"ms": 400})).await;
    // S-006, S-052, S-351: a client without the extension never gets a task, though the
    // server made one for another client's call: the core answer.
    assert_eq!(without["resultType"], "complete");
    assert_eq!(without["content"][0]["text"], "took 400 ms");
    let refused = plain
        .request(
            "tools/call",
            json!({"name": "ask_then_task", "arguments": {}}),
        )
        .await;
    // S-052, S-352: a call that cannot be served without a task is -32021 naming the
    // extension.
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
    // S-369: tasks/* need the extension too.
    let id = slow["taskId"].as_str().unwrap();
    for (method, params) in [
        ("tasks/get", json!({"taskId": id})),
        ("tasks/update", json!({"taskId": id, "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": id})),
    ] {
        let hidden = plain.request(method, params).await;
        assert_eq!(hidden["error"]["code"], -32021, "{method}: {hidden}");
    }
}

// S-358, S-359, S-360, S-361: what tasks/get says in each state; a tool's own error
// completes the task (`isError`), a JSON-RPC error or a panic fails it.
#[tokio::test]
async fn task_states_have_their_payloads() {
    let (app, _) = app();
    let client = tasking(&app);
    let id = start(&client, "takes", json!({"ms": 400})).await;
    let working = get(&client, &id).await;
    // S-354, S-358: tasks/get answers "complete": working, then completed with the result,
    // failed with the error.
    assert_eq!(working["result"]["status"], "working");
    assert_eq!(working["result"]["resultType"], "complete");
    assert!(working["result"].get("result").is_none());
    let done = wait_for(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "took 400 ms");
    assert!(
        done["result"].get("_meta").is_none(),
        "no related-task _meta: {done}"
    );

    let id = start(&client, "task_tool_error", json!({})).await;
    let done = wait_for(&client, &id, "completed").await;
    // S-359, S-360: a tool result with isError is the task's result, not a failure.
    assert_eq!(done["result"]["isError"], true);
    assert!(done.get("error").is_none());

    let id = start(&client, "task_rpc_error", json!({})).await;
    let failed = wait_for(&client, &id, "failed").await;
    // S-359: failed carries the JSON-RPC error the call would have had.
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(failed["error"]["message"], "the backend is down");
    assert!(failed["statusMessage"]
        .as_str()
        .unwrap()
        .contains("the backend is down"));
    assert!(failed.get("result").is_none());
}

// S-362, S-363, S-364, S-365: a task waiting for two answers shows both; a partial
// answer leaves the other outstanding, unknown keys are ignored, and the task runs again
// with every answer once all are in.
#[tokio::test]
async fn answers_arrive_through_tasks_update() {
    let (app, probe) = app();
    let client = tasking(&app);
    let id = start(&client, "task_asks", json!({})).await;
    let asked = wait_for(&client, &id, "input_required").await;
    // S-358: input_required carries every outstanding input request.
    let keys: Vec<&String> = asked["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first", "second"]);
    assert_eq!(
        asked["inputRequests"]["first"]["method"],
        "elicitation/create"
    );
    let accept = json!({"action": "accept", "content": {"ok": true}});
    let ack = client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"first": accept, "nonsense": accept}}),
        )
        .await;
    // S-363: tasks/update is acknowledged with an empty "complete" result.
    assert_eq!(
        ack["result"],
        json!({"resultType": "complete", "_meta": ack["result"]["_meta"]})
    );
    let partial = get(&client, &id).await;
    assert_eq!(partial["result"]["status"], "input_required");
    let keys: Vec<&String> = partial["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    // S-362: an answered key is not asked again.
    assert_eq!(keys, ["second"]);
    let decline = json!({"action": "decline"});
    client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"second": decline, "first": {"action": "decline"}}}),
        )
        .await;
    let done = wait_for(&client, &id, "completed").await;
    // The first answer stayed as first given: answered keys are not asked or taken again.
    assert_eq!(
        done["result"]["content"][0]["text"],
        "first true, second false"
    );
    assert_eq!(
        probe.runs.load(Ordering::SeqCst),
        2,
        "one run per round of answers"
    );
    // A completed task takes no more answers, but acknowledges them.
    let late = client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"second": accept}}),
        )
        .await;
    assert_eq!(late["result"]["resultType"], "complete");
    let bad = client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"second": 3}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602);
}

// S-356: input needed before the work starts is gathered synchronously; only then is a
// task made, and its result uses that input.
#[tokio::test]
async fn input_before_the_task_is_a_round_trip_on_the_call() {
    let (app, _) = app();
    let client = tasking(&app);
    let first = client.call_tool("ask_then_task", json!({})).await;
    assert_eq!(first["resultType"], "input_required");
    assert!(first.get("taskId").is_none());
    let second = client.call_tool("ask_then_task", json!({})).await;
    assert_eq!(
        second["resultType"], "input_required",
        "no answer, no task: {second}"
    );
    let second = client
        .request(
            "tools/call",
            json!({
                "name": "ask_then_task",
                "arguments": {},
                "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": first["requestState"],
            }),
        )
        .await["result"]
        .clone();
    assert_eq!(second["resultType"], "task", "{second}");
    assert!(second.get("requestState").is_none());
    let id = second["taskId"].as_str().unwrap();
    let done = wait_for(&client, id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Ada");
}

// S-366: tasks/cancel acknowledges, the handler's cancellation fires and the task ends
// cancelled; cancelling again, or a finished task, is acknowledged too.
#[tokio::test]
async fn cancellation_is_cooperative_and_acknowledged() {
    let (app, probe) = app();
    let client = tasking(&app);
    let id = start(&client, "until_cancelled", json!({})).await;
    let ack = client.request("tasks/cancel", json!({"taskId": id})).await;
    // S-366: tasks/cancel is acknowledged with an empty "complete" result.
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(
        ack["result"].get("status").is_none(),
        "no task envelope on the ack"
    );
    // S-358: then tasks/get says cancelled, with no result.
    let cancelled = wait_for(&client, &id, "cancelled").await;
    assert!(cancelled.get("result").is_none());
    for _ in 0..100 {
        if probe.cancelled.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        probe.cancelled.load(Ordering::SeqCst),
        1,
        "the handler's token fired"
    );
    let again = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["result"]["resultType"], "complete");
    // A task waiting for input is cancelled at once.
    let waiting = start(&client, "task_asks", json!({})).await;
    wait_for(&client, &waiting, "input_required").await;
    client
        .request("tasks/cancel", json!({"taskId": waiting}))
        .await;
    assert_eq!(
        get(&client, &waiting).await["result"]["status"],
        "cancelled"
    );
}

// S-367, S-368, S-375, S-376: unknown ids, and another principal's tasks, are -32602 on
// every method; ids are long and random; tasks/result and tasks/list do not exist.
#[tokio::test]
async fn tasks_belong_to_their_principal() {
    let (app, _) = app();
    let caps = json!({"elicitation": {"form": {}}, "extensions": {TASKS: {}}});
    let alice = TestClient::new(app.clone())
        .with_capabilities(caps.clone())
        .as_principal(Principal::new("alice"));
    let bob = TestClient::new(app.clone())
        .with_capabilities(caps.clone())
        .as_principal(Principal::new("bob"));
    let anonymous = tasking(&app);
    let id = start(&alice, "task_asks", json!({})).await;
    // S-375: 32 characters: 24 bytes of the operating system's randomness.
    assert!(id.len() >= 32, "{id}");
    wait_for(&alice, &id, "input_required").await;
    for client in [&bob, &anonymous] {
        for (method, params) in [
            ("tasks/get", json!({"taskId": id})),
            ("tasks/update", json!({"taskId": id, "inputResponses": {}})),
            ("tasks/cancel", json!({"taskId": id})),
        ] {
            let refused = client.request(method, params).await;
            // S-376: every task request is checked against the task's principal.
            assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        }
    }
    assert_eq!(get(&alice, &id).await["result"]["status"], "input_required");
    let unknown = alice
        .request("tasks/get", json!({"taskId": "no-such-task"}))
        .await;
    // S-367: an unknown task id is -32602.
    assert_eq!(unknown["error"]["code"], -32602);
    let missing = alice.request("tasks/get", json!({})).await;
    assert_eq!(missing["error"]["code"], -32602);
    // S-378: tasks/result (and tasks/list) do not exist under this extension: -32601.
    for removed in ["tasks/result", "tasks/list"] {
        let gone = alice.request(removed, json!({"taskId": id})).await;
        assert_eq!(gone["error"]["code"], -32601, "{removed}");
    }
}

// S-374: a task expires with its TTL: afterwards it is unknown.
#[tokio::test]
async fn tasks_expire_with_their_ttl() {
    let (app, _) = app_with(|s| s.task_ttl(Some(Duration::from_millis(600))));
    let client = tasking(&app);
    let id = start(&client, "takes", json!({"ms": 200})).await;
    let task = wait_for(&client, &id, "completed").await;
    assert_eq!(task["ttlMs"], 600);
    tokio::time::sleep(Duration::from_millis(700)).await;
    let expired = get(&client, &id).await;
    // S-367: an expired task is -32602.
    assert_eq!(expired["error"]["code"], -32602, "{expired}");
}

// Progress of a task becomes its status message (no notifications: S-372).
#[tokio::test]
async fn progress_of_a_task_is_its_status_message() {
    let (app, _) = app();
    let client = tasking(&app);
    let id = start(&client, "reports", json!({})).await;
    for _ in 0..100 {
        let task = get(&client, &id).await;
        if task["result"]["statusMessage"] == "Copying files (3/10)" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no status message: {}", get(&client, &id).await);
}

// S-370, S-371: listening for task ids needs the extension; with it, every change of the
// task arrives as notifications/tasks with the full task, up to its end.
#[tokio::test]
async fn task_status_notifications_on_listen() {
    let (app, _) = app();
    let plain = TestClient::new(app.clone());
    let refused = plain
        .listen(json!({"notifications": {"taskIds": ["x"]}}))
        .err()
        .unwrap();
    // S-370: listening for tasks without the extension is -32021.
    assert_eq!(refused["error"]["code"], -32021);
    let client = tasking(&app);
    let id = start(&client, "task_asks", json!({})).await;
    let mut subscription = client
        .listen(json!({"notifications": {"taskIds": [id]}}))
        .unwrap();
    assert_eq!(
        subscription.acknowledgement()["params"]["notifications"]["taskIds"],
        json!([id])
    );
    let mut statuses = Vec::new();
    let answers = json!({"first": {"action": "decline"}, "second": {"action": "decline"}});
    while statuses.last().map(String::as_str) != Some("completed") {
        let note = tokio::time::timeout(Duration::from_secs(10), subscription.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(note["method"], "notifications/tasks");
        assert_eq!(note["params"]["taskId"], id);
        let status = note["params"]["status"].as_str().unwrap().to_owned();
        if status == "input_required" {
            client
                .request(
                    "tasks/update",
                    json!({"taskId": id, "inputResponses": answers}),
                )
                .await;
        }
        if status == "completed" {
            assert_eq!(
                note["params"]["result"]["content"][0]["text"],
                "first false, second false"
            );
        }
        statuses.push(status);
    }
    assert!(
        statuses.contains(&"input_required".to_owned()),
        "{statuses:?}"
    );
}

/// One stdio connection to an app, written and read line by line.
struct Stdio {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl Stdio {
    fn open(app: &App) -> Stdio {
        use tokio::io::AsyncBufReadExt as _;
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let app = app.clone();
        tokio::spawn(async move { app.serve_io(server_read, server_write).await });
        let (read, write) = tokio::io::split(client);
        Stdio {
            lines: tokio::io::BufReader::new(read).lines(),
            write,
        }
    }

    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt as _;
        self.write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("an answer within 10 s")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }
}

// S-372: a task whose handler reports progress and logs (the call asked for both) sends
// neither as a notification: the stream of a client listening to it carries the task's
// handle, the listen acknowledgement and notifications/tasks, nothing else.
#[tokio::test]
async fn a_tasks_progress_and_logs_never_reach_its_listen_stream() {
    let (app, _) = app();
    let mut stdio = Stdio::open(&app);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
        "io.modelcontextprotocol/logLevel": "debug",
    });
    let mut call_meta = meta.clone();
    call_meta["progressToken"] = json!("p-1");
    stdio
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "busy_task", "arguments": {}, "_meta": call_meta}}))
        .await;
    let mut seen = Vec::new();
    let made = loop {
        let frame = stdio.next().await;
        if frame["id"] == 1 {
            break frame;
        }
        seen.push(frame);
    };
    assert_eq!(made["result"]["resultType"], "task", "{made}");
    let id = made["result"]["taskId"].as_str().unwrap().to_owned();
    stdio
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen",
            "params": {"notifications": {"taskIds": [id]}, "_meta": meta}}),
        )
        .await;
    loop {
        let frame = stdio.next().await;
        let ended =
            frame["method"] == "notifications/tasks" && frame["params"]["status"] != "working";
        seen.push(frame.clone());
        if ended {
            assert_eq!(frame["params"]["status"], "completed", "{frame}");
            assert_eq!(frame["params"]["result"]["content"][0]["text"], "done");
            break;
        }
    }
    for frame in &seen {
        let method = frame["method"].as_str().unwrap_or_default();
        // S-372: no progress and no log message, before the handle or after it.
        assert!(
            !matches!(method, "notifications/progress" | "notifications/message"),
            "a task sent {frame}"
        );
        assert!(
            matches!(
                method,
                "notifications/subscriptions/acknowledged" | "notifications/tasks"
            ),
            "only the listen's own notifications: {frame}"
        );
        assert_eq!(
            frame["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2,
            "{frame}"
        );
    }
}

// S-148: notifications/cancelled names requests, never tasks: neither the id of the call
// that made the task nor the task's id stops it; tasks/cancel does.
#[tokio::test]
async fn notifications_cancelled_does_not_cancel_a_task() {
    let (app, probe) = app();
    let mut stdio = Stdio::open(&app);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}
    });
    stdio
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "until_cancelled", "arguments": {}, "_meta": meta}}))
        .await;
    let made = stdio.next().await;
    assert_eq!(made["result"]["resultType"], "task", "{made}");
    let id = made["result"]["taskId"].as_str().unwrap().to_owned();
    for request_id in [json!(1), json!(id)] {
        stdio
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": request_id}}),
            )
            .await;
    }
    stdio
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
            "params": {"taskId": id, "_meta": meta}}))
        .await;
    let task = stdio.next().await;
    assert_eq!(task["id"], 2);
    // S-148: notifications/cancelled, by the request's id or the task's, leaves the task
    // working.
    assert_eq!(task["result"]["status"], "working", "{task}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(probe.cancelled.load(Ordering::SeqCst), 0);
    stdio
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel",
            "params": {"taskId": id, "_meta": meta}}))
        .await;
    assert_eq!(stdio.next().await["result"]["resultType"], "complete");
    for _ in 0..500 {
        if probe.cancelled.load(Ordering::SeqCst) == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("tasks/cancel did not reach the task");
}

// S-378: the handshake era's `task` parameter on tools/call means nothing under the
// extension: it neither makes a call a task nor changes one that becomes a task.
#[tokio::test]
async fn a_task_parameter_on_tools_call_is_ignored() {
    let (app, _) = app();
    let plain = TestClient::new(app.clone());
    let answered = plain
        .request(
            "tools/call",
            json!({"name": "takes", "arguments": {"ms": 300}, "task": {"ttl": 60000}}),
        )
        .await;
    // S-378: the `task` parameter is ignored: the call is answered as if it were not there.
    assert_eq!(answered["result"]["resultType"], "complete", "{answered}");
    assert_eq!(answered["result"]["content"][0]["text"], "took 300 ms");
    let tasks = tasking(&app);
    let fast = tasks
        .request(
            "tools/call",
            json!({"name": "takes", "arguments": {"ms": 5}, "task": {"ttl": 60000}}),
        )
        .await;
    assert_eq!(fast["result"]["resultType"], "complete", "{fast}");
}
