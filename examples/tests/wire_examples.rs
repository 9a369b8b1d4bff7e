//! The wire examples the book shows (`tests/wire/`), sent to the example servers as they
//! are written and answered as they are written: a confirmation round trip of `orders`
//! ("Asking the user") and a 2026-07-28 request over HTTP to `quickstart`, with and
//! without its `Mcp-Name` header ("Protocol eras").
//!
//! In an expected answer, a string ending in `…` stands for any longer string that starts
//! the same way: the sealed `requestState` differs on every run.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

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

/// A raw HTTP message of `tests/wire`: its head's lines and its body (the file's last
/// newline is not part of it).
fn http_message(name: &str) -> (Vec<String>, String) {
    let text = wire(name);
    let (head, body) = text
        .split_once("\n\n")
        .unwrap_or_else(|| panic!("{name}: no blank line after the head"));
    let body = body.strip_suffix('\n').unwrap_or(body);
    (head.lines().map(str::to_owned).collect(), body.to_owned())
}

/// One response: its status line, its headers and its body.
struct Response {
    status: String,
    headers: Vec<(String, String)>,
    body: String,
}

/// Send `head` and `body` to `addr` as they are (lines ended with CRLF), and read the
/// response to the length it declares.
async fn exchange(addr: &str, head: &[String], body: &str) -> Response {
    let mut request = head.join("\r\n");
    request.push_str("\r\n\r\n");
    request.push_str(body);
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("the server listens");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the request is sent");
    let mut reader = tokio::io::BufReader::new(stream);
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).await.expect("a response head");
        let line = line.trim_end_matches(['\r', '\n']).to_owned();
        if line.is_empty() {
            break;
        }
        lines.push(line);
    }
    let status = lines.remove(0);
    let headers: Vec<(String, String)> = lines
        .iter()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .expect("a content-length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.expect("the body");
    Response {
        status,
        headers,
        body: String::from_utf8(body).expect("a UTF-8 body"),
    }
}

/// The response `actual` is what the file `name` shows: the same status line, each header
/// the file lists (the file leaves out date and length), and the same JSON body.
fn assert_response(name: &str, actual: &Response) {
    let (head, body) = http_message(name);
    assert_eq!(actual.status, head[0], "{name}: the status line");
    for line in &head[1..] {
        let (header, value) = line.split_once(':').expect("a header line");
        let header = header.trim().to_ascii_lowercase();
        assert!(
            actual
                .headers
                .iter()
                .any(|(n, v)| *n == header && v == value.trim()),
            "{name}: no `{line}` among {:?}",
            actual.headers
        );
    }
    let expected: Value = serde_json::from_str(&body).expect("the file's body is JSON");
    let answered: Value = serde_json::from_str(&actual.body).expect("the body is JSON");
    assert_eq!(answered, expected, "{name}: the body");
}

/// S-098, S-106: over HTTP a 2026-07-28 request repeats its version, method and target in
/// headers; the request "Protocol eras" shows is answered, and the same request without
/// `Mcp-Name` is refused with 400 and -32020 before the tool runs.
#[tokio::test]
async fn the_http_request_in_protocol_eras_is_answered_and_refused_without_mcp_name() {
    let (_quickstart, url) = common::start_http(env!("CARGO_BIN_EXE_quickstart"), &[]).await;
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .expect("an http://ADDR/mcp URL");

    let (head, body) = http_message("http-call.http");
    let declared = head
        .iter()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|n| n.parse::<usize>().ok());
    assert_eq!(
        declared,
        Some(body.len()),
        "http-call.http: its Content-Length is not its body's length"
    );
    for header in ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"] {
        assert!(
            head.iter().any(|l| l.starts_with(&format!("{header}: "))),
            "http-call.http sends {header}"
        );
    }
    let answered = exchange(addr, &head, &body).await;
    assert_response("http-answer.http", &answered);

    let without_name: Vec<String> = head
        .iter()
        .filter(|l| !l.starts_with("Mcp-Name:"))
        .cloned()
        .collect();
    assert_eq!(without_name.len() + 1, head.len());
    let refused = exchange(addr, &without_name, &body).await;
    assert_response("http-missing-name.http", &refused);
}
