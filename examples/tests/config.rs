//! Settings read from the environment: a bad value stops the server at start with a
//! message naming the variable and what it takes, before anything is served.

use std::process::{Command, Stdio};

fn start_with(name: &str, value: &str) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_bench-server"))
        .arg("--stdio")
        .env(name, value)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("bench-server runs");
    assert!(output.stdout.is_empty(), "nothing served");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_environment_values_stop_the_server_with_a_clear_message() {
    for (name, value, says) in [
        (
            "MCP_SHUTDOWN_GRACE_MS",
            "soon",
            "whole number of milliseconds",
        ),
        (
            "MCP_SHUTDOWN_GRACE_MS",
            "-5",
            "whole number of milliseconds",
        ),
        (
            "MCP_METRICS_ADDR",
            "metrics.local",
            "an address such as 127.0.0.1:9464",
        ),
        ("MCP_PAGE_SIZE", "0", "positive whole number"),
        ("MCP_PAGE_SIZE", "ten", "positive whole number"),
    ] {
        let (ok, stderr) = start_with(name, value);
        assert!(!ok, "{name}={value} was accepted");
        assert!(
            stderr.contains(name) && stderr.contains(says),
            "{name}={value}: {stderr}"
        );
    }
}

#[test]
fn good_values_are_taken() {
    // EOF at once: the server starts, serves nothing and exits cleanly.
    for (name, value) in [("MCP_SHUTDOWN_GRACE_MS", "1500"), ("MCP_PAGE_SIZE", "3")] {
        let (ok, stderr) = start_with(name, value);
        assert!(ok, "{name}={value}: {stderr}");
    }
}

#[test]
fn a_metrics_port_in_use_stops_the_server() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (ok, stderr) = start_with("MCP_METRICS_ADDR", &addr);
    assert!(!ok, "started with its metrics port taken");
    assert!(
        stderr.contains("the metrics endpoint cannot listen") && stderr.contains(&addr),
        "{stderr}"
    );
}
