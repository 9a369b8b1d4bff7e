//! A call started on one server process is finished by another that shares the seal key
//! (S-137: all MRTR context travels in the request and its sealed `requestState`), and
//! refused by a process with another key (S-125).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Process {
    fn start(seal_key: &str) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_orders"))
            .arg("--stdio")
            .env("MCP_SEAL_KEY", seal_key)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the orders example starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Process {
            child,
            stdin,
            stdout,
        }
    }

    fn request(&mut self, message: Value) -> Value {
        writeln!(self.stdin, "{message}").expect("write");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str(&line).expect("a JSON line")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn delete_order(id: u64, extra: Value) -> Value {
    let mut params = json!({
        "name": "delete_order",
        "arguments": {"id": 2},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        }
    });
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        p.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[test]
fn a_call_started_on_one_process_finishes_on_another_with_the_same_key() {
    let key = "11".repeat(32);
    let mut first = Process::start(&key);
    let asked = first.request(delete_order(1, json!({})));
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"].clone();
    drop(first);

    let answer = json!({
        "inputResponses": {"confirm_delete": {"action": "accept", "content": {"confirm": true}}},
        "requestState": state,
    });
    let mut second = Process::start(&key);
    // S-021: the call's state travels in the requestState the client sends, so another
    // process with the key finishes it.
    let done = second.request(delete_order(2, answer.clone()));
    assert_eq!(
        done["result"]["content"][0]["text"], "Order 2 deleted.",
        "{done}"
    );

    let mut stranger = Process::start(&"22".repeat(32));
    let refused = stranger.request(delete_order(3, answer));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("requestState"));
}
