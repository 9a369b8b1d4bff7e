//! The wire examples the book shows (`tests/wire/`), sent to the example servers as they
//! are written and answered as they are written: a confirmation round trip of `orders`
//! ("Asking the user").
//!
//! In an expected answer, a string ending in `…` stands for any longer string that starts
//! the same way: the sealed `requestState` differs on every run.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

fn wire(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/wire")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn wire_json(name: &str) -> Value {
    serde_json::from_str(&wire(name)).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}

/// Whether `actual` is what `expected` shows, `…` standing for the rest of a string.
fn shows(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::String(e), Value::String(a)) => match e.strip_suffix('…') {
            Some(prefix) => a.starts_with(prefix) && a.len() > prefix.len(),
            None => e == a,
        },
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len() && e.iter().all(|(k, v)| a.get(k).is_some_and(|a| shows(v, a)))
        }
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| shows(e, a))
        }
        _ => expected == actual,
    }
}

fn assert_shows(file: &str, expected: &Value, actual: &Value) {
    assert!(
        shows(expected, actual),
        "{file} is not what the server answered:\n  file:   {expected}\n  answer: {actual}"
    );
}

/// An example server on stdio, killed when dropped.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl StdioServer {
    fn start(binary: &str) -> StdioServer {
        let mut child = Command::new(binary)
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the example starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        StdioServer {
            child,
            stdin,
            stdout,
        }
    }

    fn request(&mut self, message: &Value) -> Value {
        writeln!(self.stdin, "{message}").expect("write");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// S-117, S-121, S-122, S-137: `delete_order` answers `input_required` with its question
/// under the handler's key and a sealed `requestState`; the same call again, with the
/// answer under the same key and the state echoed, deletes the order.
#[test]
fn the_confirmation_round_trip_in_asking_the_user_is_what_orders_sends() {
    let mut orders = StdioServer::start(env!("CARGO_BIN_EXE_orders"));

    let call = wire_json("confirm-call.json");
    let asked = orders.request(&call);
    let input_required = wire_json("confirm-input-required.json");
    assert_shows("confirm-input-required.json", &input_required, &asked);

    let mut retry = wire_json("confirm-retry.json");
    // The retry is the same call: a new id, with the answers and the state added.
    let mut same = retry.clone();
    same["id"] = call["id"].clone();
    if let Some(params) = same["params"].as_object_mut() {
        params.remove("inputResponses");
        params.remove("requestState");
    }
    assert_eq!(
        same, call,
        "confirm-retry.json is not confirm-call.json again"
    );
    assert_ne!(retry["id"], call["id"], "a retry is a new request");
    assert_eq!(
        retry["params"]["requestState"], input_required["result"]["requestState"],
        "the retry echoes the state it was given"
    );
    assert_eq!(
        retry["params"]["inputResponses"]
            .as_object()
            .map(|answers| answers.keys().collect::<Vec<_>>()),
        input_required["result"]["inputRequests"]
            .as_object()
            .map(|questions| questions.keys().collect::<Vec<_>>()),
        "the answers are under the keys of the questions"
    );
    retry["params"]["requestState"] = asked["result"]["requestState"].clone();

    let done = orders.request(&retry);
    assert_shows("confirm-done.json", &wire_json("confirm-done.json"), &done);
}
