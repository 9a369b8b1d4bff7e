//! The `mcp` binary against a server of this framework served over HTTP in the test
//! process: listings, calls, a question answered on standard input, the JSON output, the
//! exit status of each kind of failure, server text that tries to take over the terminal,
//! and a question left unanswered when a call gives up. (Over stdio, and against servers
//! of other SDKs, the test command runs it against the example servers.)

#[path = "support/terminal.rs"]
mod terminal;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use mcp_runtime::prelude::*;
use serde_json::{json, Value};
use terminal::{assert_terminal_safe, HOSTILE, HOSTILE_SHOWN};

/// Adds two integers.
#[tool(read_only)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Always fails, the way a tool reports a business error.
#[tool]
async fn fail() -> Result<String, ToolError> {
    Err(ToolError::new("The ledger is closed for the night."))
}

/// The form `transfer` asks the user to fill in.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Approval {
    /// Send the money?
    confirm: bool,
    /// How many times.
    times: i64,
}

/// Transfers money after the user approves it.
#[tool]
async fn transfer(
    /// The amount.
    amount: i64,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    match ctx.elicit::<Approval>("approve", &format!("Transfer {amount}?"))? {
        Elicitation::Accepted(Approval {
            confirm: true,
            times,
        }) => Ok(format!("Sent {amount} x{times}.")),
        Elicitation::Accepted(_) | Elicitation::Declined => Ok("Not sent.".into()),
        Elicitation::Cancelled => Ok("Cancelled.".into()),
    }
}

/// One account by its number.
#[resource("accounts://<number>", name = "account", mime = "text/plain")]
async fn account(number: u32) -> String {
    format!("Account {number}: balance 100")
}

/// Greets someone.
#[prompt]
async fn greet(
    /// Whom to greet.
    who: String,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("Say hello to {who}."))]
}

/// Repeats a word.
#[prompt]
async fn repeat(
    /// The word.
    word: String,
    /// How many times.
    times: u32,
    /// Whether to shout it.
    loud: Option<bool>,
) -> Vec<PromptMessage> {
    let word = if loud == Some(true) {
        word.to_uppercase()
    } else {
        word
    };
    vec![PromptMessage::user(vec![word; times as usize].join(" "))]
}

/// Reports, with every trick on a terminal in its title, description and result. (The
/// attributes spell out `HOSTILE`, which they cannot name.)
#[tool(
    title = "a\x1b[2Jb\x1b]0;t\x07c\x1b]8;;https://evil.example/\x1b\\d\x1b]8;;\x1b\\e\rf\x08g\th\x7fi\u{9b}j\u{202e}k\u{2066}l\u{feff}m",
    description = "a\x1b[2Jb\x1b]0;t\x07c\x1b]8;;https://evil.example/\x1b\\d\x1b]8;;\x1b\\e\rf\x08g\th\x7fi\u{9b}j\u{202e}k\u{2066}l\u{feff}m\nA second line."
)]
async fn report() -> String {
    format!("{HOSTILE}\nSecond line.")
}

/// Refuses, with the tricks in its error.
#[tool]
async fn refuse() -> Result<String, ToolError> {
    Err(ToolError::new(HOSTILE))
}

/// Asks a question made of the tricks.
#[tool]
async fn ask_tricks(ctx: RequestContext) -> Result<String, ToolError> {
    match ctx.elicit::<Approval>("tricks", HOSTILE)? {
        Elicitation::Accepted(_) => Ok("Accepted.".into()),
        Elicitation::Declined | Elicitation::Cancelled => Ok("Refused.".into()),
    }
}

/// Text with the tricks in it, by number.
#[resource(
    "tricks://<number>",
    name = "tricks",
    mime = "text/plain",
    description = "a\x1b[2Jb\x1b]0;t\x07c\x1b]8;;https://evil.example/\x1b\\d\x1b]8;;\x1b\\e\rf\x08g\th\x7fi\u{9b}j\u{202e}k\u{2066}l\u{feff}m"
)]
async fn tricks(number: u32) -> String {
    format!("{HOSTILE}\n{number}")
}

/// A prompt with the tricks in its title and its message.
#[prompt(
    title = "a\x1b[2Jb\x1b]0;t\x07c\x1b]8;;https://evil.example/\x1b\\d\x1b]8;;\x1b\\e\rf\x08g\th\x7fi\u{9b}j\u{202e}k\u{2066}l\u{feff}m"
)]
async fn trick(
    /// Whom to trick.
    who: String,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("{HOSTILE}\n{who}"))]
}

/// Serves the tools above over HTTP on a free port of this process; returns the URL.
async fn serve() -> String {
    serve_server(Server::new("cli-test", "1.2.3")).await
}

/// Serves `server` (with the tools above) over HTTP on a free port of this process;
/// returns the URL.
async fn serve_server(server: Server) -> String {
    let app = server.build().expect("the server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let router = app.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// Runs `mcp ARGS` with `input` on its standard input.
async fn mcp(args: &[&str], input: &str) -> Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let input = input.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp starts");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        child.wait_with_output().expect("mcp ends")
    })
    .await
    .expect("the run finishes")
}

/// Runs `mcp ARGS` with a standard input that stays open and silent, like a terminal
/// nobody types at, for at most `limit`; `None` if it was still running then (it is
/// killed).
#[cfg(feature = "legacy")]
fn mcp_unanswered(args: &[&str], limit: std::time::Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp starts");
    let silent = child.stdin.take();
    let deadline = std::time::Instant::now() + limit;
    let finished = loop {
        if child.try_wait().expect("mcp can be waited for").is_some() {
            break true;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let output = child.wait_with_output().expect("mcp ends");
    drop(silent);
    finished.then_some(output)
}

/// What `mcp ARGS --json --url URL` prints, decoded.
async fn json(url: &str, args: &[&str]) -> Value {
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--json", "--url", url])
        .collect();
    let run = mcp(&args, "").await;
    serde_json::from_slice(&run.stdout).expect("JSON output")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_show_names_arguments_and_descriptions() {
    let url = serve().await;
    let tools = mcp(&["tools", "--url", &url], "").await;
    assert!(tools.status.success(), "{}", stderr(&tools));
    let listing = stdout(&tools);
    assert!(
        listing.contains(
            "add  Adds two integers.\n    server claims: read-only\n    *a: integer  The first addend.\n"
        ),
        "{listing}"
    );
    assert!(
        listing.contains("transfer  Transfers money after the user approves it."),
        "{listing}"
    );

    let resources = mcp(&["resources", "--url", &url], "").await;
    assert!(
        stdout(&resources).contains(
            "accounts://{number}  account  One account by its number.  [text/plain]  (template)"
        ),
        "{}",
        stdout(&resources)
    );
    let prompts = mcp(&["prompts", "--url", &url], "").await;
    assert!(
        stdout(&prompts).contains("greet  Greets someone.\n    *who  Whom to greet."),
        "{}",
        stdout(&prompts)
    );

    let info = mcp(&["info", "--url", &url], "").await;
    let info = stdout(&info);
    assert!(
        info.starts_with("cli-test 1.2.3\nprotocol: 2026-07-28 (stateless)\n"),
        "{info}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_prints_its_result_and_json_prints_it_whole() {
    let url = serve().await;
    let call = mcp(&["call", "--url", &url, "add", r#"{"a": 2, "b": 3}"#], "").await;
    assert!(call.status.success(), "{}", stderr(&call));
    assert_eq!(stdout(&call), "5\n");

    let call = mcp(
        &[
            "call",
            "--json",
            "--url",
            &url,
            "add",
            r#"{"a": 2, "b": 3}"#,
        ],
        "",
    )
    .await;
    let result: Value = serde_json::from_str(&stdout(&call)).expect("JSON output");
    assert_eq!(result["structuredContent"], json!(5));
    assert_eq!(result["content"][0]["text"], "5");

    let read = mcp(&["read", "--url", &url, "accounts://7"], "").await;
    assert_eq!(stdout(&read), "Account 7: balance 100\n");
    let get = mcp(&["get", "--url", &url, "greet", r#"{"who": "Ada"}"#], "").await;
    assert_eq!(stdout(&get), "user: Say hello to Ada.\n");
    // Prompt arguments are strings on the wire: a number or a boolean on the command line
    // is sent as its text, which the prompt's typed parameters read.
    let get = mcp(
        &[
            "get",
            "--url",
            &url,
            "repeat",
            r#"{"word": "hi", "times": 3, "loud": true}"#,
        ],
        "",
    )
    .await;
    assert_eq!(stdout(&get), "user: HI HI HI\n", "{}", stderr(&get));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_servers_question_is_asked_on_the_terminal() {
    let url = serve().await;
    let call = mcp(
        &["call", "--url", &url, "transfer", r#"{"amount": 40}"#],
        "y\n3\n",
    )
    .await;
    assert!(call.status.success(), "{}", stderr(&call));
    assert_eq!(stdout(&call), "Sent 40 x3.\n");
    let asked = stderr(&call);
    assert!(asked.contains("Transfer 40?"), "{asked}");
    assert!(asked.contains("confirm (y/n): "), "{asked}");

    let call = mcp(
        &["call", "--url", &url, "transfer", r#"{"amount": 40}"#],
        ":decline\n",
    )
    .await;
    assert_eq!(stdout(&call), "Not sent.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_kind_of_failure_has_its_exit_status() {
    let url = serve().await;
    // The tool's own error: status 1, its text on stderr.
    let fail = mcp(&["call", "--url", &url, "fail"], "").await;
    assert_eq!(fail.status.code(), Some(1));
    assert!(
        stderr(&fail).contains("The ledger is closed for the night."),
        "{}",
        stderr(&fail)
    );
    // Arguments the tool's schema refuses are the tool's error too (the model can fix them).
    let invalid = mcp(&["call", "--url", &url, "add", r#"{"a": "two"}"#], "").await;
    assert_eq!(invalid.status.code(), Some(1), "{}", stderr(&invalid));
    assert!(
        stderr(&invalid).contains(r#""two" is not of type "integer""#),
        "{}",
        stderr(&invalid)
    );

    // Wrong usage: status 2, and nothing sent.
    let usage = mcp(&["call", "--url", &url, "add", "[1, 2]"], "").await;
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        stderr(&usage).contains("arguments must be a JSON object"),
        "{}",
        stderr(&usage)
    );
    let nowhere = mcp(&["tools"], "").await;
    assert_eq!(nowhere.status.code(), Some(2));
    assert!(
        stderr(&nowhere).contains("which server?"),
        "{}",
        stderr(&nowhere)
    );

    // The server refuses: status 3, with its message.
    let unknown = mcp(&["call", "--url", &url, "nope"], "").await;
    assert_eq!(unknown.status.code(), Some(3), "{}", stderr(&unknown));
    assert!(stderr(&unknown).contains("nope"), "{}", stderr(&unknown));

    // Nobody there: status 3.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let closed = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    drop(listener);
    let gone = mcp(&["tools", "--url", &closed], "").await;
    assert_eq!(gone.status.code(), Some(3), "{}", stderr(&gone));

    // More than a limit allows: status 3, naming the flag that raises it.
    let small = mcp(&["tools", "--url", &url, "--max-message-bytes", "200"], "").await;
    assert_eq!(small.status.code(), Some(3), "{}", stderr(&small));
    assert!(
        stderr(&small).contains("max_message_bytes = 200")
            && stderr(&small).contains("to allow more, pass --max-message-bytes"),
        "{}",
        stderr(&small)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn human_output_shows_server_text_escaped_and_json_keeps_it_exact() {
    let url = serve_server(
        Server::new("cli-test", "1.2.3")
            .instructions(format!("Mind the ledger.{HOSTILE}\nThen sleep.")),
    )
    .await;
    let unknown = "nope\x1b[2J\u{9b}\nmcp: forged";
    // Each run, its exit status, its input, and what must show (escaped) on stdout or stderr.
    let runs: &[(&[&str], i32, &str, &str)] = &[
        (
            &["tools"],
            0,
            "",
            &format!("report  {HOSTILE_SHOWN}: {HOSTILE_SHOWN} A second line.\n"),
        ),
        (
            &["call", "report"],
            0,
            "",
            &format!("{HOSTILE_SHOWN}\nSecond line.\n"),
        ),
        (&["call", "refuse"], 1, "", &format!("{HOSTILE_SHOWN}\n")),
        (
            &["call", "ask_tricks"],
            0,
            "y\n1\n",
            &format!("\n{HOSTILE_SHOWN}\n"),
        ),
        (&["call", unknown], 3, "", r"nope\x1b[2J\u{9b}\nmcp: forged"),
        (
            &["info"],
            0,
            "",
            &format!("instructions: Mind the ledger.{HOSTILE_SHOWN}\nThen sleep.\n"),
        ),
        (
            &["resources"],
            0,
            "",
            &format!("tricks://{{number}}  tricks  {HOSTILE_SHOWN}  [text/plain]"),
        ),
        (
            &["read", "tricks://7"],
            0,
            "",
            &format!("{HOSTILE_SHOWN}\n7\n"),
        ),
        (
            &["prompts"],
            0,
            "",
            &format!("trick  {HOSTILE_SHOWN}: A prompt with"),
        ),
        (
            &["get", "trick", r#"{"who": "Ada"}"#],
            0,
            "",
            &format!("user: {HOSTILE_SHOWN}\nAda\n"),
        ),
    ];
    for (args, status, input, shown) in runs {
        let args: Vec<&str> = args.iter().copied().chain(["--url", &url]).collect();
        let run = mcp(&args, input).await;
        let both = format!("{}{}", stdout(&run), stderr(&run));
        assert_eq!(run.status.code(), Some(*status), "mcp {args:?}: {both}");
        assert_terminal_safe(&run.stdout);
        assert_terminal_safe(&run.stderr);
        assert!(both.contains(shown), "mcp {args:?} shows {shown:?}: {both}");
    }

    // With --json the same strings come back exact.
    let tools = json(&url, &["tools"]).await;
    let report = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "report"))
        .expect("report is listed");
    assert_eq!(report["title"], HOSTILE);
    assert_eq!(report["description"], format!("{HOSTILE}\nA second line."));
    let called = json(&url, &["call", "report"]).await;
    assert_eq!(
        called["content"][0]["text"],
        format!("{HOSTILE}\nSecond line.")
    );
    let refused = json(&url, &["call", "refuse"]).await;
    assert_eq!(refused["content"][0]["text"], HOSTILE);
    let info = json(&url, &["info"]).await;
    assert_eq!(
        info["instructions"],
        format!("Mind the ledger.{HOSTILE}\nThen sleep.")
    );
    let resources = json(&url, &["resources"]).await;
    let template = resources["resourceTemplates"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "tricks"))
        .expect("tricks is listed");
    assert_eq!(template["description"], HOSTILE);
    let read = json(&url, &["read", "tricks://7"]).await;
    assert_eq!(read["contents"][0]["text"], format!("{HOSTILE}\n7"));
    let prompts = json(&url, &["prompts"]).await;
    let trick = prompts
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "trick"))
        .expect("trick is listed");
    assert_eq!(trick["title"], HOSTILE);
    let got = json(&url, &["get", "trick", r#"{"who": "Ada"}"#]).await;
    assert_eq!(
        got["messages"][0]["content"]["text"],
        format!("{HOSTILE}\nAda")
    );
}

// Only the handshake era asks while the call waits (the other asks between rounds of it).
#[cfg(feature = "legacy")]
#[tokio::test(flavor = "multi_thread")]
async fn mcp_exits_when_a_call_gives_up_while_a_question_waits_for_an_answer() {
    let url = serve().await;
    // In the handshake era the question arrives while the call waits, so the call's
    // timeout runs out with the question still open on the terminal.
    let args = [
        "call",
        "--url",
        &url,
        "--era",
        "legacy",
        "--timeout",
        "2",
        "transfer",
        r#"{"amount": 40}"#,
    ]
    .map(str::to_owned);
    let run = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // A guard against hanging forever, not a measure of promptness.
        mcp_unanswered(&args, std::time::Duration::from_secs(30))
    })
    .await
    .expect("the run finishes");
    let run = run.expect("mcp exits once the call has timed out");
    let said = stderr(&run);
    assert!(
        said.contains("Transfer 40?"),
        "the question was asked: {said}"
    );
    assert_eq!(run.status.code(), Some(3), "{said}");
    // On a line of its own, not after the prompt left open.
    assert!(
        said.contains("): \nmcp: tools/call: not done within its deadline of 2s\n"),
        "{said}"
    );
}

/// `mcp catalog` over HTTP writes the same snapshot as the test kit makes in process
/// (`TestClient::catalog`, which `assert_catalog` pins): one format, whichever side writes
/// it. Its text is stable: the same server, the same bytes.
#[tokio::test]
async fn the_catalog_over_the_wire_is_the_one_the_test_kit_pins() {
    let url = serve().await;
    let file = std::env::temp_dir().join(format!("mcp-catalog-{}.json", std::process::id()));
    let written = mcp(
        &["catalog", "--url", &url, "--out", file.to_str().unwrap()],
        "",
    )
    .await;
    assert!(written.status.success(), "{}", stderr(&written));
    let text = std::fs::read_to_string(&file).unwrap();
    let printed = mcp(&["catalog", "--url", &url], "").await;
    assert_eq!(stdout(&printed), text, "printed and written alike");
    let app = Server::new("cli-test", "1.2.3").build().unwrap();
    let in_process = mcp_runtime::testing::TestClient::new(app).catalog().await;
    let mut expected = serde_json::to_string_pretty(&in_process).unwrap();
    expected.push('\n');
    assert_eq!(text, expected);
    let snapshot: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(snapshot["catalog"], 1);
    assert!(snapshot["tools"]["add"]["inputSchema"]["required"].is_array());
    assert!(snapshot["tools"]["add"].get("name").is_none());
    assert!(
        snapshot["resourceTemplates"]["tricks://{number}"].is_object(),
        "{text}"
    );
    std::fs::remove_file(&file).unwrap();
}

/// `mcp catalog diff`: no change exits 0; a new required argument and a tool removed exit
/// 1, each named with its JSON pointer and class, with the bump they need; `--json` says
/// the same for scripts; a file that is not a snapshot is wrong usage (exit 2).
#[tokio::test]
async fn the_catalog_diff_names_what_breaks_callers() {
    let url = serve().await;
    let dir = std::env::temp_dir().join(format!("mcp-catalog-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.json");
    let written = mcp(
        &["catalog", "--url", &url, "--out", old.to_str().unwrap()],
        "",
    )
    .await;
    assert!(written.status.success(), "{}", stderr(&written));
    let diff_of = |a: &std::path::Path, b: &std::path::Path, json: bool| {
        let mut args = vec!["catalog".to_owned(), "diff".to_owned()];
        if json {
            args.push("--json".into());
        }
        args.extend([a.display().to_string(), b.display().to_string()]);
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            mcp(&args, "").await
        }
    };
    let same = diff_of(&old, &old, false).await;
    assert!(same.status.success(), "{}", stdout(&same));
    let mut snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    let add = &mut snapshot["tools"]["add"]["inputSchema"];
    add["properties"]["c"] = json!({"type": "integer"});
    add["required"].as_array_mut().unwrap().push(json!("c"));
    snapshot["tools"].as_object_mut().unwrap().remove("fail");
    let new = dir.join("new.json");
    std::fs::write(&new, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
    let diff = diff_of(&old, &new, false).await;
    assert_eq!(diff.status.code(), Some(1), "{}", stdout(&diff));
    let printed = stdout(&diff);
    assert!(printed.contains("/tools/add/inputSchema"), "{printed}");
    assert!(printed.contains("/tools/fail"), "{printed}");
    assert!(
        printed
            .lines()
            .filter(|l| l.starts_with("breaking"))
            .count()
            >= 2,
        "{printed}"
    );
    assert!(printed.contains("major"), "{printed}");
    let json_diff = diff_of(&old, &new, true).await;
    assert_eq!(json_diff.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&json_diff)).unwrap();
    assert_eq!(report["breaking"], true);
    assert_eq!(report["bump"], "major");
    assert!(report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["class"] == "breaking"
            && c["pointer"].as_str().unwrap().starts_with("/tools/fail")));
    std::fs::write(dir.join("junk.json"), "not json").unwrap();
    let junk = diff_of(&old, &dir.join("junk.json"), false).await;
    assert_eq!(junk.status.code(), Some(2), "{}", stderr(&junk));
    assert!(stderr(&junk).contains("not a catalog snapshot"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mcp_new_refuses_what_it_cannot_make_and_says_why() {
    let dir = std::env::temp_dir().join(format!("mcp-new-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("taken")).expect("a folder");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("mcp runs")
    };
    for (args, says) in [
        (&["new", "Support_Desk"][..], "not a crate name"),
        (&["new", "taken"][..], "exists already"),
        (
            &["new", "desk", "--template", "openapi"][..],
            "needs the document",
        ),
        (
            &["new", "desk", "spec.json"][..],
            "for the openapi template only",
        ),
    ] {
        let output = run(args);
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(says), "{args:?}: {said}");
    }
    // Nothing was made by the refusals.
    assert!(!dir.join("desk").exists());
    let made = run(&["new", "desk", "--runtime-version", "0.1"]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("desk/Cargo.toml")).expect("a manifest");
    assert!(
        manifest.contains(r#"mcp-runtime = { version = "0.1" }"#),
        "{manifest}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
