//! `mcp shell` keeps one connection: a cursor and an artifact link that a server over
//! stdio keeps in its own memory (its seal key made at start, no store named) work on
//! the next line, where `mcp call -- SERVER` run twice starts two servers and the second
//! says why the first one's cursor does not open. And a session ends as the input does,
//! with the status of the last command that failed.
//!
//! This program is both sides: run by cargo, it drives `mcp`; run with `SERVE_STDIO`
//! set (by the `mcp` it drives), it is the server over stdio.

use std::io::{BufReader, Write};
use std::process::{Command, Stdio};

use mcp_runtime::prelude::*;
use mcp_runtime::{Artifact, ArtifactLink, Cursor, Page};
use serde_json::{json, Value};

/// Numbers 1 to 25, ten at a time.
#[tool(read_only)]
async fn numbers(after: Cursor<u64>) -> Page<u64> {
    let start = after.position().copied().unwrap_or(0);
    let items: Vec<u64> = (start + 1..=(start + 10).min(25)).collect();
    let next = items.last().copied().filter(|last| *last < 25);
    after.page(items, next)
}

/// A small CSV, handed out by reference.
#[tool(read_only)]
async fn report(ctx: RequestContext) -> Result<ArtifactLink, ToolError> {
    let link = ctx
        .save_artifact(
            Artifact::bytes("id,n\n1,7\n")
                .mime("text/csv")
                .name("report.csv"),
        )
        .await?;
    Ok(link)
}

const SERVE: &str = "SERVE_STDIO";

fn main() {
    if std::env::var_os(SERVE).is_some() {
        serve();
        return;
    }
    one_connection_carries_cursors_and_artifacts_from_line_to_line();
    separate_calls_say_why_a_cursor_does_not_open();
    mistakes_are_said_and_the_session_goes_on();
    println!("shell: 3 scenarios passed");
}

fn serve() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        // Neither MCP_SEAL_KEY nor MCP_STORE: a key and a store of this process's own.
        Server::new("shell-test", "1.0.0")
            .serve_from_args()
            .await
            .expect("serves")
    });
}

/// `mcp ARGS -- THIS_PROGRAM` with the server's environment, the server's secrets unset.
fn mcp(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp"));
    command
        .args(args)
        .arg("--")
        .arg(std::env::current_exe().expect("this program"))
        .env(SERVE, "1")
        .env_remove("MCP_SEAL_KEY")
        .env_remove("MCP_STORE");
    command
}

/// A shell session driven line by line: a line is written when the answer to the one
/// before has been read (each answer is one JSON value, `--json`).
struct Session {
    child: std::process::Child,
    input: std::process::ChildStdin,
    answers: serde_json::StreamDeserializer<
        'static,
        serde_json::de::IoRead<BufReader<std::process::ChildStdout>>,
        Value,
    >,
}

impl Session {
    fn start() -> Session {
        let mut child = mcp(&["shell", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp starts");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Session {
            child,
            input,
            answers: serde_json::Deserializer::from_reader(output).into_iter(),
        }
    }

    fn ask(&mut self, line: &str) -> Value {
        writeln!(self.input, "{line}").expect("mcp reads");
        self.input.flush().expect("mcp reads");
        match self.answers.next() {
            Some(Ok(answer)) => answer,
            other => panic!("no answer to {line}: {other:?}"),
        }
    }

    /// Ends the input; the status and what `mcp` said on stderr.
    fn end(self) -> (Option<i32>, String) {
        drop(self.input);
        let output = self.child.wait_with_output().expect("mcp ends");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

fn one_connection_carries_cursors_and_artifacts_from_line_to_line() {
    let mut session = Session::start();
    let first = session.ask("call numbers");
    assert_eq!(
        first["structuredContent"]["items"],
        json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
        "{first}"
    );
    let cursor = first["structuredContent"]["nextCursor"]
        .as_str()
        .unwrap_or_else(|| panic!("a cursor: {first}"))
        .to_owned();
    let second = session.ask(&format!("call numbers {}", json!({"cursor": cursor})));
    assert_eq!(second["structuredContent"]["items"][0], 11, "{second}");

    let made = session.ask("call report");
    let uri = made["structuredContent"]["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("an artifact link: {made}"))
        .to_owned();
    let read = session.ask(&format!("read {uri}"));
    assert_eq!(read["contents"][0]["text"], "id,n\n1,7\n", "{read}");
    let (status, stderr) = session.end();
    assert_eq!(status, Some(0), "{stderr}");
}

fn separate_calls_say_why_a_cursor_does_not_open() {
    let first = mcp(&["call", "--json", "numbers"])
        .output()
        .expect("mcp runs");
    assert_eq!(first.status.code(), Some(0));
    let first: Value = serde_json::from_slice(&first.stdout).expect("JSON");
    let cursor = first["structuredContent"]["nextCursor"]
        .as_str()
        .expect("a cursor");
    let arguments = json!({"cursor": cursor}).to_string();
    let second = mcp(&["call", "numbers", &arguments])
        .output()
        .expect("mcp runs");
    let said = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{said}");
    assert!(
        said.contains("sealed with another key") && said.contains("MCP_SEAL_KEY"),
        "{said}"
    );
}

fn mistakes_are_said_and_the_session_goes_on() {
    let mut session = Session::start();
    writeln!(session.input, "frobnicate").expect("mcp reads");
    writeln!(session.input, "call numbers [1]").expect("mcp reads");
    // After both mistakes, a command still works on the same connection.
    let listed = session.ask("tools");
    let names: Vec<&str> = listed
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        names.contains(&"numbers") && names.contains(&"report"),
        "{listed}"
    );
    let (status, stderr) = session.end();
    assert_eq!(
        status,
        Some(2),
        "the last failure was a mistyped command: {stderr}"
    );
    assert!(stderr.contains("unknown command `frobnicate`"), "{stderr}");
    assert!(stderr.contains("must be a JSON object"), "{stderr}");
}
