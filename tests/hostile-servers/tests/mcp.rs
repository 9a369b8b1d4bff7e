//! The `mcp` command against servers that misbehave on purpose, as its own process: each
//! run ends by itself within its deadline, exits with status 3 and says on stderr which
//! layer and limit stopped it, and its peak resident memory stays under
//! [`PEAK_MIB`](common::PEAK_MIB) with its default limits; nothing reaches another origin;
//! and whatever the server puts in its strings, the human output carries no raw control
//! byte.

mod common;

use std::process::Command;
use std::time::Duration;

use common::*;
use mcp_hostile_servers::HOSTILE;
use serde_json::Value;

/// The deadline `mcp` is given (`--timeout`).
const TIMEOUT: Duration = Duration::from_secs(3);

/// Where the server is.
#[derive(Clone, Copy, Debug)]
enum Over {
    Stdio,
    Http,
    Sse,
}

/// `mcp ARGS --timeout 3` against `hostile CASE --era ERA` (with `env`), fed `input` on
/// its stdin (closed after it).
fn mcp_against(
    case: &str,
    era: &str,
    over: Over,
    env: &[(&str, &str)],
    args: &[&str],
    input: &[u8],
) -> Run {
    mcp_within(TIMEOUT, case, era, over, env, args, input)
}

/// [`mcp_against`] with another deadline.
fn mcp_within(
    timeout: Duration,
    case: &str,
    era: &str,
    over: Over,
    env: &[(&str, &str)],
    args: &[&str],
    input: &[u8],
) -> Run {
    let mut mcp = Command::new(workspace_program("mcp"));
    mcp.args(args)
        .args(["--timeout", &timeout.as_secs().to_string()]);
    let _served = match over {
        Over::Stdio => {
            // The server is mcp's child and inherits its environment.
            mcp.envs(env.iter().copied())
                .args(["--", HOSTILE_BIN, case, "--era", era]);
            None
        }
        Over::Http | Over::Sse => {
            let mut server_args = vec!["--era", era];
            if matches!(over, Over::Sse) {
                server_args.push("--sse");
            }
            let served = serve(case, &server_args, env);
            mcp.args(["--url", &served.url]);
            Some(served)
        }
    };
    run_watched(mcp, Some(input), timeout)
}

/// The run ended by itself, bounded, with status 3 and `says` on stderr.
fn assert_refused(run: &Run, says: &str, what: &str) {
    run.assert_bounded(TIMEOUT);
    assert_eq!(run.code, Some(3), "{what}: {run}");
    assert!(
        run.stderr().contains(says),
        "{what}: {says:?} not said: {run}"
    );
}

#[test]
fn mcp_reads_no_more_than_its_limit_of_a_huge_or_endless_answer() {
    for (case, era, over) in [
        ("huge-result", "legacy", Over::Stdio),
        ("huge-result", "modern", Over::Http),
        ("huge-result", "legacy", Over::Sse),
        ("endless", "modern", Over::Stdio),
        ("endless", "legacy", Over::Http),
        ("endless", "modern", Over::Sse),
        ("huge-declared", "modern", Over::Http),
        ("dense-result", "legacy", Over::Stdio),
        ("dense-result", "modern", Over::Sse),
    ] {
        let run = mcp_against(
            case,
            era,
            over,
            &[("HOSTILE_METHOD", "tools/call")],
            &["call", "echo"],
            b"",
        );
        let what = format!("{case} {era} {over:?}");
        assert_refused(&run, "transport error", &what);
        assert!(
            run.stderr()
                .contains("(limit max_message_bytes = 16777216)"),
            "{what}: {run}"
        );
    }
}

#[test]
fn mcp_lists_no_further_than_its_limits() {
    let run = mcp_against(
        "cursor-endless",
        "legacy",
        Over::Stdio,
        &[],
        &["tools"],
        b"",
    );
    assert_refused(&run, "(limit max_pages = 1000)", "cursor-endless");
    let run = mcp_against("cursor-cycle", "modern", Over::Http, &[], &["prompts"], b"");
    assert_refused(&run, "gives a cursor an earlier page gave", "cursor-cycle");
}

#[test]
fn mcp_takes_its_limits_from_the_command_line() {
    let run = mcp_against(
        "cursor-endless",
        "modern",
        Over::Http,
        &[],
        &["tools", "--max-pages", "5"],
        b"",
    );
    assert_refused(&run, "(limit max_pages = 5)", "--max-pages");
    let run = mcp_against(
        "huge-result",
        "modern",
        Over::Stdio,
        &[("HOSTILE_BYTES", "5000")],
        &["call", "echo", "--max-message-bytes", "4096"],
        b"",
    );
    assert_refused(
        &run,
        "(limit max_message_bytes = 4096)",
        "--max-message-bytes",
    );
    let run = mcp_against(
        "endless-rounds",
        "modern",
        Over::Stdio,
        &[],
        &["call", "echo", "--max-rounds", "2"],
        b"yes\nyes\nyes\n",
    );
    assert_refused(&run, "(limit max_rounds = 2)", "--max-rounds");
}

#[test]
fn mcp_stops_at_its_deadline_however_the_server_stalls() {
    for (case, era, over, args) in [
        ("trickle", "modern", Over::Stdio, &["call", "echo"][..]),
        ("keepalive", "legacy", Over::Http, &["call", "echo"]),
        ("flood-unread", "legacy", Over::Stdio, &["call", "echo"]),
        ("hang-initialized", "legacy", Over::Http, &["tools"]),
    ] {
        let run = mcp_against(case, era, over, &[], args, b"");
        assert_refused(&run, "not done within its deadline of 3s", case);
    }
}

#[test]
fn mcp_prints_what_it_has_when_the_session_will_not_close() {
    // The DELETE that ends the session is never answered: the listing is printed, and
    // mcp ends anyway.
    let run = mcp_against("hang-delete", "legacy", Over::Http, &[], &["tools"], b"");
    run.assert_bounded(TIMEOUT);
    assert_eq!(run.code, Some(0), "{run}");
    assert!(run.stdout().starts_with("echo  Echoes."), "{run}");
}

#[test]
fn mcp_outlasts_a_flood_of_requests_from_the_server() {
    // 300,000 requests, questions and pings, while a call waits; stdin is at its end,
    // so the questions put to the terminal are cancelled. A deadline long enough for an
    // unoptimized build to answer them all.
    let deadline = Duration::from_secs(120);
    for era in ["legacy", "modern"] {
        let run = mcp_within(
            deadline,
            "request-flood",
            era,
            Over::Stdio,
            &[],
            &["call", "echo", r#"{"text": "after the flood"}"#],
            b"",
        );
        run.assert_bounded(deadline);
        assert_eq!(run.code, Some(0), "{era}: {run}");
        assert_eq!(run.stdout(), "after the flood\n", "{era}: {run}");
    }
}

#[test]
fn mcp_puts_no_question_to_the_terminal_past_its_limits() {
    // 100 questions in one round, then 10,000 (more than a message may weigh): none is
    // asked.
    for (count, limit) in [
        ("100", "max_questions = 16"),
        ("10000", "max_message_bytes"),
    ] {
        let run = mcp_against(
            "many-questions",
            "modern",
            Over::Stdio,
            &[("HOSTILE_COUNT", count)],
            &["call", "echo"],
            b"",
        );
        assert_refused(&run, &format!("(limit {limit}"), "many-questions");
        assert!(
            !run.stderr().contains("go on?"),
            "a question was asked: {run}"
        );
    }
    // A new question every round: sixteen are asked, then the call ends.
    let answers = "yes\n".repeat(100);
    let run = mcp_against(
        "endless-rounds",
        "modern",
        Over::Stdio,
        &[],
        &["call", "echo"],
        answers.as_bytes(),
    );
    assert_refused(&run, "(limit max_rounds = 16)", "endless-rounds");
}

#[test]
fn mcp_follows_no_redirect_to_another_origin() {
    let other = OtherOrigin::start();
    let served = serve("redirect", &["--redirect-to", &other.url], &[]);
    let mut mcp = Command::new(workspace_program("mcp"));
    mcp.args(["tools", "--url", &served.url])
        .args(["-H", "Authorization: Bearer secret-token-of-the-user"])
        .args(["--timeout", "3"]);
    let run = run_watched(mcp, Some(b""), TIMEOUT);
    assert_refused(&run, "a redirect to another origin", "redirect");
    assert_eq!(other.seen(), Vec::<String>::new());
}

#[test]
fn mcp_refuses_answers_that_break_the_protocol() {
    let run = mcp_against(
        "discover-string",
        "modern",
        Over::Stdio,
        &[],
        &["info"],
        b"",
    );
    assert_refused(&run, "is not a DiscoverResult", "discover-string");
    let run = mcp_against(
        "unknown-versions-error",
        "modern",
        Over::Http,
        &[],
        &["info"],
        b"",
    );
    assert_refused(
        &run,
        "no protocol version in common",
        "unknown-versions-error",
    );
    let run = mcp_against("wrong-id", "legacy", Over::Http, &[], &["tools"], b"");
    assert_refused(&run, "names request", "wrong-id");
}

/// The human output of `mcp ARGS` against `control-chars`, checked byte by byte on stdout
/// and stderr; its exit code.
fn human_output_is_clean(
    era: &str,
    over: Over,
    env: &[(&str, &str)],
    args: &[&str],
    input: &[u8],
) -> Option<i32> {
    let run = mcp_against("control-chars", era, over, env, args, input);
    run.assert_bounded(TIMEOUT);
    let what = format!("mcp {args:?} {era} {over:?}");
    let raw = raw_controls(&run.stdout);
    assert!(raw.is_empty(), "{what}: stdout has {raw:?}: {run}");
    let raw = raw_controls(&run.stderr);
    assert!(raw.is_empty(), "{what}: stderr has {raw:?}: {run}");
    run.code
}

#[test]
fn mcp_writes_no_raw_control_byte_whatever_the_server_sends() {
    let evil = format!("evil{HOSTILE}");
    let resource = format!("hostile://{HOSTILE}");
    for era in ["modern", "legacy"] {
        for over in [Over::Stdio, Over::Http] {
            for (args, input, code) in [
                (vec!["info"], &b""[..], 0),
                (vec!["tools"], b"", 0),
                (vec!["resources"], b"", 0),
                (vec!["prompts"], b"", 0),
                (vec!["call", &evil], b"", 0),
                (vec!["call", "fail"], b"", 1),
                (vec!["call", "rpc_error"], b"", 3),
                (vec!["call", "ask"], b"1\nsome text\n", 0),
                (vec!["call", "ask_url"], b"\n", 0),
                (vec!["read", &resource], b"", 0),
                (vec!["get", HOSTILE], b"", 0),
            ] {
                let got = human_output_is_clean(era, over, &[], &args, input);
                assert_eq!(got, Some(code), "mcp {args:?} {era} {over:?}");
            }
        }
    }
    // A 401 with the text in its body and its challenge.
    let got = human_output_is_clean(
        "modern",
        Over::Http,
        &[("HOSTILE_401", "1")],
        &["tools"],
        b"",
    );
    assert_eq!(got, Some(3));
}

#[test]
fn mcp_json_output_keeps_the_servers_strings_exact() {
    let run = mcp_against(
        "control-chars",
        "modern",
        Over::Stdio,
        &[],
        &["tools", "--json"],
        b"",
    );
    assert_eq!(run.code, Some(0), "{run}");
    let tools: Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(
        names.contains(&format!("evil{HOSTILE}").as_str()),
        "{names:?}"
    );
}
