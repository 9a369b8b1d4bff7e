//! Request logs for collectors: with `MCP_LOG_FORMAT=json` and `MCP_LOG_REQUESTS=1`, each
//! request ends with one JSON line on stderr carrying its span's fields, so a completed
//! call and a protocol failure are told apart (stdout keeps carrying only the protocol).

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// Run `server --stdio` with request logging on and `format` (`json`, or text when
/// `None`), send it `calls` as stdio lines, close stdin and return what it wrote.
fn run_logged(server: &str, format: Option<&str>, calls: &[Value]) -> std::process::Output {
    let mut command = Command::new(server);
    command
        .arg("--stdio")
        .env_remove("NO_COLOR")
        .env("MCP_LOG_REQUESTS", "1")
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match format {
        Some(format) => command.env("MCP_LOG_FORMAT", format),
        None => command.env_remove("MCP_LOG_FORMAT"),
    };
    let mut child = command.spawn().expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    for call in calls {
        writeln!(stdin, "{call}").unwrap();
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn each_request_ends_with_one_json_line_naming_its_fate() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let calls: Vec<Value> = [(1, "export_report"), (2, "no_such_tool")]
        .into_iter()
        .map(|(id, name)| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": {"rows": 1}, "_meta": meta}})
        })
        .collect();
    let output = run_logged(env!("CARGO_BIN_EXE_exports"), Some("json"), &calls);
    assert!(output.status.success());
    // S-065: stdout: the two answers and nothing else.
    let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("only JSON-RPC on stdout"))
        .collect();
    assert_eq!(answers.len(), 2);
    let closes: Vec<Value> = String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON log lines"))
        .filter(|l| l["fields"]["message"] == "close")
        .collect();
    let by_id = |id: &str| {
        closes
            .iter()
            .find(|l| l["span"]["jsonrpc.request.id"] == id)
            .unwrap_or_else(|| panic!("a line for request {id} in {closes:#?}"))
    };
    let done = &by_id("1")["span"];
    assert_eq!(
        (
            done["mcp.method.name"].as_str(),
            done["phase"].as_str(),
            done["network.transport"].as_str()
        ),
        (Some("tools/call"), Some("completed"), Some("pipe"))
    );
    assert_eq!(done["mcp.protocol.version"], "2026-07-28");
    let failed = &by_id("2")["span"];
    assert_eq!(
        (failed["phase"].as_str(), failed["error_layer"].as_str()),
        (Some("failed"), Some("mcp"))
    );
    assert!(by_id("1")["fields"]["time.busy"].is_string());
}

/// Text logs written to a pipe or a file carry no terminal color codes: a collector
/// reads them as plain text (colors are for a person at a terminal).
#[test]
fn text_logs_to_a_pipe_are_plain() {
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}});
    let output = run_logged(env!("CARGO_BIN_EXE_bench-server"), None, &[call]);
    assert!(output.status.success());
    let logs = String::from_utf8_lossy(&output.stderr);
    // The request's line is there, with its fields in plain `key=value` form.
    assert!(
        logs.lines()
            .any(|l| l.contains("mcp.request") && l.contains("mcp.method.name=\"tools/call\"")),
        "{logs}"
    );
    assert!(!logs.contains('\u{1b}'), "no escape codes in {logs:?}");
}
