//! The `gateway` example in front of servers that misbehave on purpose, as its own process
//! speaking 2026-07-28 on stdio: it does not republish an upstream's tool hints unless told
//! to trust them; a huge answer, a listing without end, a redirect or a flood from the
//! upstream costs it little (peak resident memory under [`PEAK_MIB`](common::PEAK_MIB)),
//! ends in a clear error, and reaches no other origin.

mod common;

use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// How long a run may take: the gateway's own deadlines are a minute; here everything
/// ends well before.
const DEADLINE: Duration = Duration::from_secs(60);

/// A 2026-07-28 request line.
fn request(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    )
}

/// The gateway in front of `upstream` (`NAME=TARGET`), with `args` and `env` (which its
/// stdio upstreams inherit), sent `requests` on stdin, then its end.
fn gateway(upstream: &str, args: &[&str], env: &[(&str, &str)], requests: &[String]) -> Run {
    let mut gateway = Command::new(workspace_program("gateway"));
    gateway
        .args(["--upstream", upstream])
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "warn");
    run_watched(gateway, Some(requests.concat().as_bytes()), DEADLINE)
}

/// The responses the gateway wrote, by id.
fn responses(run: &Run) -> HashMap<u64, Value> {
    run.stdout()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|message| Some((message["id"].as_u64()?, message)))
        .collect()
}

fn stdio_upstream(case: &str, era: &str) -> String {
    format!("up={HOSTILE_BIN} {case} --era {era}")
}

#[test]
fn the_gateway_publishes_an_upstreams_hints_only_when_trusted() {
    let list = [request(1, "tools/list", json!({}))];
    let upstream = stdio_upstream("annotations", "modern");
    let run = gateway(&upstream, &[], &[], &list);
    let tool = responses(&run)[&1]["result"]["tools"][0].clone();
    assert_eq!(tool["name"], "up.drop_database", "{run}");
    // The upstream calls it a harmless read-only lookup; the gateway does not vouch for
    // that: the hints are gone, and callers assume the cautious defaults.
    assert_eq!(
        tool.get("annotations"),
        Some(&json!({"title": "Harmless lookup"})),
        "{tool}"
    );
    let run = gateway(&upstream, &["--trust-annotations", "up"], &[], &list);
    let tool = &responses(&run)[&1]["result"]["tools"][0];
    assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    assert_eq!(tool["annotations"]["destructiveHint"], false, "{tool}");
}

#[test]
fn a_huge_upstream_answer_is_a_tool_error_that_costs_the_gateway_little() {
    let calls: Vec<String> = (1..=2)
        .map(|id| {
            request(
                id,
                "tools/call",
                json!({"name": "up.echo", "arguments": {}}),
            )
        })
        .collect();
    for era in ["modern", "legacy"] {
        let run = gateway(
            &stdio_upstream("huge-result", era),
            &[],
            &[("HOSTILE_METHOD", "tools/call")],
            &calls,
        );
        run.assert_bounded(DEADLINE);
        assert_eq!(run.code, Some(0), "{era}: {run}");
        let responses = responses(&run);
        for id in [1, 2] {
            let result = &responses[&id]["result"];
            assert_eq!(result["isError"], true, "{era}: {result}");
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            // The gateway's own bound on what it relays: 4 MiB.
            assert!(
                text.contains("(limit max_message_bytes = 4194304)"),
                "{era}: {text}"
            );
        }
    }
}

#[test]
fn an_upstream_listing_without_end_stops_the_gateways_start() {
    let run = gateway(&stdio_upstream("cursor-endless", "modern"), &[], &[], &[]);
    run.assert_bounded(DEADLINE);
    assert_ne!(run.code, Some(0), "{run}");
    assert!(run.stderr().contains("(limit max_pages = 1000)"), "{run}");
}

#[test]
fn an_upstream_redirect_to_another_origin_reaches_nothing() {
    let other = OtherOrigin::start();
    let served = serve("redirect", &["--redirect-to", &other.url], &[]);
    let run = gateway(
        &format!("up={}", served.url),
        &[],
        &[("GATEWAY_DISCOVERY_TOKEN", "secret-token-of-the-gateway")],
        &[],
    );
    run.assert_bounded(DEADLINE);
    assert_ne!(run.code, Some(0), "{run}");
    assert!(
        run.stderr().contains("a redirect to another origin"),
        "{run}"
    );
    assert_eq!(other.seen(), Vec::<String>::new());
}

#[test]
fn a_flood_from_the_upstream_costs_the_gateway_little() {
    let call = [request(
        1,
        "tools/call",
        json!({"name": "up.echo", "arguments": {"text": "after the flood"}}),
    )];
    for era in ["legacy", "modern"] {
        let run = gateway(&stdio_upstream("request-flood", era), &[], &[], &call);
        run.assert_bounded(DEADLINE);
        let result = &responses(&run)[&1]["result"];
        assert_eq!(
            result["content"][0]["text"], "after the flood",
            "{era}: {run}"
        );
    }
}
