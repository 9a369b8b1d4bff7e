//! The stdio transport serves whatever the host hands it as stdin and stdout: two pipes
//! (the usual host), or a pipe in and a file out (output redirected to a log), or a file
//! in and a pipe out (a recorded script replayed). Each mix answers every request (S-063:
//! messages are newline-delimited on stdin and stdout).

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

fn request(id: u64) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "add", "arguments": {"a": id, "b": 1},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string()
}

fn script(count: u64) -> String {
    (1..=count).map(|id| request(id) + "\n").collect()
}

/// A file of this test process's own, removed first in case a killed run left it.
fn scratch(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("stdio-streams-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// Every line is the answer to one of the requests, and each request got one.
fn check_answers(output: &str, count: u64) {
    let mut sums: Vec<(u64, u64)> = output
        .lines()
        .map(|line| {
            let answer: Value = serde_json::from_str(line).expect("a JSON line");
            let id = answer["id"].as_u64().expect("an id");
            let sum = answer["result"]["structuredContent"]["sum"]
                .as_u64()
                .unwrap_or_else(|| panic!("a sum in {answer}"));
            (id, sum)
        })
        .collect();
    sums.sort_unstable();
    let expected: Vec<(u64, u64)> = (1..=count).map(|id| (id, id + 1)).collect();
    assert_eq!(sums, expected, "{output}");
}

#[test]
fn a_pipe_in_and_a_file_out() {
    let out_path = scratch("out.jsonl");
    let out = std::fs::File::create(&out_path).expect("the output file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench-server"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(out)
        .stderr(Stdio::piped())
        .spawn()
        .expect("bench-server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    // The server waits on an empty pipe first, as it does for a quiet host.
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin.write_all(script(20).as_bytes()).expect("write");
    drop(stdin);
    let status = child.wait().expect("the server ends at EOF");
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    assert!(status.success(), "{status}: {stderr}");
    let output = std::fs::read_to_string(&out_path).expect("the output");
    let _ = std::fs::remove_file(&out_path);
    check_answers(&output, 20);
}

#[test]
fn a_file_in_and_a_pipe_out() {
    let in_path = scratch("in.jsonl");
    std::fs::write(&in_path, script(20)).expect("the script");
    let input = std::fs::File::open(&in_path).expect("the script");
    let output = Command::new(env!("CARGO_BIN_EXE_bench-server"))
        .arg("--stdio")
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("bench-server runs");
    assert!(
        output.status.success(),
        "{}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_file(&in_path);
    check_answers(&String::from_utf8_lossy(&output.stdout), 20);
}

#[test]
fn two_pipes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench-server"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("bench-server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(script(200).as_bytes()).expect("write");
    drop(stdin);
    let mut output = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut output)
        .expect("read");
    assert!(child.wait().expect("exit").success());
    // S-063: 200 requests in on stdin, one per line; one answer per line out on stdout
    // (`check_answers` reads each line as one message).
    check_answers(&output, 200);
}
