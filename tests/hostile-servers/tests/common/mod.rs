//! What the suites against the `hostile` server share: starting it over stdio or HTTP,
//! finding the workspace's other programs (`mcp`, the `gateway` example), running a
//! program while watching its peak resident memory, and reading output for raw control
//! bytes.

#![allow(dead_code)] // each suite uses its own part of this module

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_hostile_servers::ANNOUNCEMENT;

/// The fixture server.
pub const HOSTILE_BIN: &str = env!("CARGO_BIN_EXE_hostile");

/// The most resident memory (peak, in MiB) a program of the client side may use against
/// any hostile server here, with its default limits. The largest message it accepts is
/// 16 MiB (the gateway's, 4 MiB); a program that reads without a bound went past 600 MiB
/// in every case below before they were bounded.
pub const PEAK_MIB: u64 = 96;

/// How long past its own deadline a run may take before it counts as hung: the deadlines
/// here are seconds, the hang guard a generous multiple (the machine may be busy).
pub const SLACK: Duration = Duration::from_secs(30);

/// A program of the workspace, built beside this test (`cargo test --workspace` builds
/// them all before it runs a test).
pub fn workspace_program(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let dir = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the target directory");
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{}: not built. Run the suite with the whole workspace built, e.g. `cargo test --workspace`, which builds it first",
        path.display()
    );
    path
}

/// `hostile CASE ARGS...` with `env`, its stderr kept in a file of the test's.
pub fn hostile(case: &str, args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(HOSTILE_BIN);
    command
        .arg(case)
        .args(args)
        .envs(env.iter().copied())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    command
}

/// The hostile server over HTTP, killed when dropped.
pub struct Served {
    child: Child,
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `hostile CASE --http 127.0.0.1:0 ARGS...` and read the URL it announces.
pub fn serve(case: &str, args: &[&str], env: &[(&str, &str)]) -> Served {
    let mut child = Command::new(HOSTILE_BIN)
        .arg(case)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hostile server starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("the hostile server announces its URL before it exits")
            .expect("its stderr reads");
        if let Some(url) = line.split(ANNOUNCEMENT).nth(1) {
            break url.trim().to_owned();
        }
    };
    // The rest of its stderr is drained, so a full pipe never stalls it.
    std::thread::spawn(move || for _ in lines {});
    Served { child, url }
}

/// A listener standing for another origin (another port of this machine, as a metadata
/// address or an internal service would be): it counts the connections it accepts, and
/// keeps what they sent.
pub struct OtherOrigin {
    pub url: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
}

impl OtherOrigin {
    pub fn start() -> OtherOrigin {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}/internal", listener.local_addr().expect("bound"));
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
                let mut received = vec![0; 64 * 1024];
                let read = stream.read(&mut received).unwrap_or(0);
                received.truncate(read);
                kept.lock().unwrap().push(received);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
                );
            }
        });
        OtherOrigin { url, seen }
    }

    /// What reached this origin, one entry per connection.
    pub fn seen(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .collect()
    }
}

/// What a program did: its exit status, output and peak resident memory.
#[derive(Debug)]
pub struct Run {
    /// Its exit code (`None` when it had to be killed).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The peak resident memory seen, in KiB (`VmHWM`).
    pub peak_kib: u64,
    pub took: Duration,
}

impl Run {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    pub fn peak_mib(&self) -> u64 {
        self.peak_kib / 1024
    }

    /// It ended by itself within `deadline` and the slack, with peak memory under the
    /// bound.
    pub fn assert_bounded(&self, deadline: Duration) {
        assert!(
            self.code.is_some(),
            "it did not end by itself within {:?}: {self}",
            deadline + SLACK
        );
        assert!(
            self.peak_mib() < PEAK_MIB,
            "peak resident memory {} MiB, above {PEAK_MIB} MiB: {self}",
            self.peak_mib()
        );
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?} after {:?}, peak {} KiB\nstdout: {}\nstderr: {}",
            self.code,
            self.took,
            self.peak_kib,
            tail(&self.stdout()),
            tail(&self.stderr())
        )
    }
}

/// The end of a long text, for failure messages.
fn tail(text: &str) -> &str {
    let start = text.len().saturating_sub(2000);
    let start = (start..text.len())
        .find(|at| text.is_char_boundary(*at))
        .unwrap_or(text.len());
    &text[start..]
}

/// Run `command` with `input` on its stdin (then closed, or held open when `None`),
/// watching its peak resident memory, for at most `deadline` plus the slack (then it is
/// killed). The peak is the kernel's own high-water mark (`VmHWM`), read every few
/// milliseconds while the program runs.
pub fn run_watched(mut command: Command, input: Option<&[u8]>, deadline: Duration) -> Run {
    let started = Instant::now();
    let shown = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    let stdin = child.stdin.take().expect("stdin is piped");
    // Held open until the run ends when there is no input: a prompt then waits.
    let _held = match input {
        Some(input) => {
            let mut stdin = stdin;
            let _ = stdin.write_all(input);
            None
        }
        None => Some(stdin),
    };
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let code = loop {
        if let Some(kib) = high_water_kib(&status) {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("the program can be waited for") {
            break status.code();
        }
        if started.elapsed() > deadline + SLACK {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let run = Run {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        peak_kib,
        took: started.elapsed(),
    };
    // For the record (`--nocapture` shows it): what each run cost.
    eprintln!(
        "peak {} KiB, {:?}, exit {:?}: {shown}",
        run.peak_kib, run.took, run.code
    );
    run
}

/// `VmHWM` of a `/proc/PID/status` file, in KiB.
fn high_water_kib(status: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status).ok()?;
    let line = text.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Every raw control byte of `output` a terminal would act on, described with its place:
/// bytes below 0x20 other than the newline (TAB included), DEL, the C1 controls as UTF-8
/// (0xC2 0x80..0x9F), and the bidirectional and invisible format characters.
pub fn raw_controls(output: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for (at, byte) in output.iter().enumerate() {
        let raw = match *byte {
            b'\n' => false,
            0x00..=0x1f | 0x7f => true,
            0xc2 => output
                .get(at + 1)
                .is_some_and(|next| (0x80..=0x9f).contains(next)),
            _ => false,
        };
        if raw {
            found.push(format!("byte {at}: {byte:#04x}"));
        }
    }
    let text = String::from_utf8_lossy(output);
    for (at, c) in text.char_indices() {
        if matches!(c, '\u{061c}' | '\u{200b}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
        {
            found.push(format!("char {at}: U+{:04X}", c as u32));
        }
    }
    found
}
