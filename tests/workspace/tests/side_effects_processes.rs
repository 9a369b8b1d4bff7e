//! Side effects across processes: two server processes sharing one store (a SQLite file)
//! and one seal key behave as one server, and a process killed mid-call never gets its
//! call run twice.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const SEAL_KEY: &str = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

/// A scratch folder with the store and the payment journal, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn store(&self) -> PathBuf {
        self.0.join("store.db")
    }

    fn journal(&self) -> PathBuf {
        self.0.join("payments.txt")
    }

    /// The payments written so far.
    fn payments(&self) -> Vec<String> {
        std::fs::read_to_string(self.journal())
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One server process over stdio.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Process {
    fn start(scratch: &Scratch, lease_ms: u64) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_side-effects"))
            .env("MCP_STORE", scratch.store())
            .env("MCP_SEAL_KEY", SEAL_KEY)
            .env("PAYMENTS_JOURNAL", scratch.journal())
            .env("SIDE_EFFECTS_LEASE_MS", lease_ms.to_string())
            .env_remove("MCP_PRINCIPAL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the side-effects fixture starts");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Process {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// Send `tools/call`; do not wait for the answer.
    async fn send(&mut self, name: &str, arguments: Value, extra: Value) -> u64 {
        self.next_id += 1;
        let mut params = json!({
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            },
        });
        if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
            p.extend(extra);
        }
        let message =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params});
        self.stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        self.next_id
    }

    /// Send `tools/call` and return its response.
    async fn call(&mut self, name: &str, arguments: Value, extra: Value) -> Value {
        let id = self.send(name, arguments, extra).await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .expect("an answer within 30 s")
                .unwrap()
                .expect("the server keeps its output open");
            let frame: Value = serde_json::from_str(&line).unwrap();
            if frame["id"] == json!(id) {
                return frame;
            }
        }
    }

    /// SIGKILL: no chance to record anything.
    async fn kill(mut self) {
        self.child.kill().await.unwrap();
    }
}

/// Wait until `path` holds `n` payments.
async fn payments_reach(scratch: &Scratch, n: usize) {
    for _ in 0..300 {
        if scratch.payments().len() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "{} payments never appeared in {}",
        n,
        path_text(&scratch.journal())
    );
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

#[tokio::test]
async fn a_confirmation_used_on_one_process_is_refused_on_another() {
    let scratch = Scratch::new("replay");
    let (mut a, mut b) = (
        Process::start(&scratch, 15_000),
        Process::start(&scratch, 15_000),
    );
    let args = json!({"payee": "two-processes", "amount_cents": 10});
    let asked = a.call("pay", args.clone(), json!({})).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let confirm = json!({
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
        "requestState": asked["result"]["requestState"],
    });
    // The seal key is shared: B continues the call A began.
    let paid = b.call("pay", args.clone(), confirm.clone()).await;
    assert_eq!(paid["result"]["structuredContent"]["number"], 1, "{paid}");
    // S-130: the store is shared too, so A refuses the replay.
    let replayed = a.call("pay", args.clone(), confirm.clone()).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert_eq!(replayed["error"]["data"]["reason"], "it was already used");
    let replayed = b.call("pay", args, confirm).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert_eq!(scratch.payments(), ["two-processes 10"]);
}

#[tokio::test]
async fn a_retry_on_another_process_gets_the_outcome_recorded_by_the_first() {
    let scratch = Scratch::new("retry");
    let (mut a, mut b) = (
        Process::start(&scratch, 15_000),
        Process::start(&scratch, 15_000),
    );
    let args = json!({"payee": "retried", "amount_cents": 20, "idempotencyKey": "k-1"});
    let first = a.call("pay_now", args.clone(), json!({})).await;
    let retried = b.call("pay_now", args, json!({})).await;
    assert_eq!(retried["result"], first["result"]);
    assert_eq!(scratch.payments(), ["retried 20"]);
}

#[tokio::test]
async fn a_process_killed_mid_call_leaves_the_outcome_unknown_and_never_pays_twice() {
    let scratch = Scratch::new("killed");
    let mut a = Process::start(&scratch, 300);
    let args = json!({"payee": "killed", "amount_cents": 30, "linger_ms": 60_000, "idempotencyKey": "k-9"});
    // The payment is made, then the process dies before it records the outcome.
    a.send("pay_now", args.clone(), json!({})).await;
    payments_reach(&scratch, 1).await;
    a.kill().await;

    let mut b = Process::start(&scratch, 300);
    // Once the dead process's lease runs out, its call's outcome is unknown: the retry is
    // told so and not run again.
    let retried = b.call("pay_now", args.clone(), json!({})).await;
    assert_eq!(retried["result"]["isError"], true, "{retried}");
    assert_eq!(
        retried["result"]["structuredContent"]["error"]["code"],
        "outcome_unknown"
    );
    let again = b.call("pay_now", args, json!({})).await;
    assert_eq!(
        again["result"]["structuredContent"]["error"]["code"], "outcome_unknown",
        "it stays unknown"
    );
    assert_eq!(scratch.payments(), ["killed 30"], "paid once");
    // As the answer says: a new key is a new operation.
    let fresh = b
        .call(
            "pay_now",
            json!({"payee": "killed", "amount_cents": 30, "idempotencyKey": "k-10"}),
            json!({}),
        )
        .await;
    assert_eq!(fresh["result"]["structuredContent"]["number"], 1, "{fresh}");
    assert_eq!(scratch.payments().len(), 2);
}
