//! The `exports` example as separate processes: tasks outlive the process that made them
//! (SQLite file), a task whose process died is failed once its lease runs out, a task
//! waiting for input is finished by the next process, and two processes sharing one
//! PostgreSQL answer for each other's tasks (S-355, S-358, S-363, S-366, S-367).

mod common;

use std::time::Duration;

use common::{start_http, Client};
use serde_json::{json, Value};

const EXPORTS: &str = env!("CARGO_BIN_EXE_exports");

/// Start an export or publication; the task id.
async fn start(client: &Client, tool: &str, arguments: Value) -> String {
    let reply = client.call(tool, arguments).await;
    let result = reply.result();
    assert_eq!(result["resultType"], "task", "{result}");
    result["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn tasks_survive_a_restart_and_a_dead_process_fails_its_task() {
    let dir = std::env::temp_dir().join(format!("mcp-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("tasks.db");
    let _ = std::fs::remove_file(&db);
    let db = db.to_str().unwrap().to_owned();
    let env = [("MCP_STORE", db.as_str()), ("EXPORTS_LEASE_MS", "600")];

    let (mut first, url) = start_http(EXPORTS, &env).await;
    let client = Client::new(&url).taking_tasks();
    let finished = start(&client, "export_report", json!({"rows": 20})).await;
    let done = client.wait_for(&finished, "completed").await;
    assert_eq!(done["result"]["structuredContent"]["rows"], 20);
    let waiting = start(&client, "publish_report", json!({"name": "q3"})).await;
    let asked = client.wait_for(&waiting, "input_required").await;
    assert!(
        asked["inputRequests"]["approve"]["method"] == "elicitation/create",
        "{asked}"
    );
    let running = start(&client, "export_report", json!({"rows": 100000})).await;
    let working = client.task(&running).await;
    assert_eq!(working.result()["status"], "working");
    // The process dies without a chance to finish anything.
    first.kill();

    let (_second, url) = start_http(EXPORTS, &env).await;
    let client = Client::new(&url).taking_tasks();
    // Finished work is still there,
    let again = client.wait_for(&finished, "completed").await;
    assert_eq!(again["result"], done["result"]);
    // the running task is failed once its lease has run out (S-355: created just before
    // the process died, it was already durable),
    let failed = client.wait_for(&running, "failed").await;
    assert!(failed["statusMessage"]
        .as_str()
        .unwrap()
        .contains("stopped before it finished"));
    assert_eq!(failed["error"]["code"], -32603);
    // and the one waiting for input goes on here.
    let ack = client
        .send(
            "tasks/update",
            Some(&waiting),
            json!({"taskId": waiting, "inputResponses": {"approve": {"action": "accept", "content": {"publish": true}}}}),
        )
        .await;
    assert_eq!(ack.result()["resultType"], "complete");
    let published = client.wait_for(&waiting, "completed").await;
    assert_eq!(published["result"]["content"][0]["text"], "q3 published.");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn clients_without_the_extension_wait_for_the_answer() {
    let (_server, url) = start_http(EXPORTS, &[]).await;
    let plain = Client::new(&url);
    let reply = plain.call("export_report", json!({"rows": 60})).await;
    assert_eq!(reply.result()["resultType"], "complete");
    assert_eq!(reply.result()["structuredContent"]["rows"], 60);
    let refused = plain.call("publish_report", json!({"name": "q3"})).await;
    assert_eq!(refused.body["error"]["code"], -32021);
    assert_eq!(
        refused.body["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
}

/// The PostgreSQL the test command starts (`MCP_TEST_POSTGRES_URL`).
fn postgres() -> String {
    std::env::var("MCP_TEST_POSTGRES_URL").expect(
        "MCP_TEST_POSTGRES_URL names the PostgreSQL to use (scripts/test-all.sh starts one)",
    )
}

#[tokio::test]
#[ignore = "needs PostgreSQL: scripts/test-all.sh starts one and runs the ignored tests"]
async fn two_processes_share_tasks_through_postgres() {
    let url = postgres();
    let env = [("MCP_STORE", url.as_str()), ("EXPORTS_LEASE_MS", "900")];
    let (mut a, url_a) = start_http(EXPORTS, &env).await;
    let (_b, url_b) = start_http(EXPORTS, &env).await;
    let a_client = Client::new(&url_a).taking_tasks();
    let b_client = Client::new(&url_b).taking_tasks();

    // Created on A, polled on B until done.
    let export = start(&a_client, "export_report", json!({"rows": 80})).await;
    // S-355: the task was durable when A answered: B, another process, gets it at once.
    let seen = b_client.task(&export).await;
    assert!(
        matches!(
            seen.result()["status"].as_str(),
            Some("working" | "completed")
        ),
        "B finds the task at once: {}",
        seen.body
    );
    let done = b_client.wait_for(&export, "completed").await;
    assert_eq!(done["result"]["structuredContent"]["rows"], 80);

    // Asked on A, answered on B, finished on B, seen on A.
    let publish = start(&a_client, "publish_report", json!({"name": "annual"})).await;
    b_client.wait_for(&publish, "input_required").await;
    b_client
        .send(
            "tasks/update",
            Some(&publish),
            json!({"taskId": publish, "inputResponses": {"approve": {"action": "accept", "content": {"publish": false}}}}),
        )
        .await;
    let finished = a_client.wait_for(&publish, "completed").await;
    assert_eq!(
        finished["result"]["content"][0]["text"],
        "annual was not published."
    );

    // Cancelled through B while running on A: A stops it at its next lease renewal.
    let long = start(&a_client, "export_report", json!({"rows": 100000})).await;
    let ack = b_client
        .send("tasks/cancel", Some(&long), json!({"taskId": long}))
        .await;
    assert_eq!(ack.result()["resultType"], "complete");
    a_client.wait_for(&long, "cancelled").await;

    // A dies mid-task: B fails the task when A's lease runs out.
    let orphan = start(&a_client, "export_report", json!({"rows": 100000})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    a.kill();
    let failed = b_client.wait_for(&orphan, "failed").await;
    assert!(failed["statusMessage"]
        .as_str()
        .unwrap()
        .contains("stopped before it finished"));
}
