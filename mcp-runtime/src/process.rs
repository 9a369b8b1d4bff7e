//! Running a server as a process: the command line every server built with this crate
//! understands ([`parse_args`], [`Mode`]), logs on stderr ([`init_logging`]) and the
//! signal that starts a graceful shutdown ([`shutdown_signal`]).

use std::net::SocketAddr;

use crate::core::Error;

/// Usage text.
pub const USAGE: &str = "usage: <server> [--stdio | --http ADDR]\n\n  --stdio        serve MCP over stdin/stdout (default)\n  --http ADDR    serve Streamable HTTP at http://ADDR/mcp, e.g. --http 127.0.0.1:8080\n  -h, --help     show this help\n\nLogs go to stderr; RUST_LOG filters them (e.g. RUST_LOG=debug), MCP_LOG_FORMAT=json\nwrites JSON lines and MCP_LOG_REQUESTS=1 adds a line per request.\n\nEnvironment: MCP_SEAL_KEY (shared by instances behind one balancer), MCP_STORE,\nMCP_SHUTDOWN_GRACE_MS (default 20000), MCP_METRICS_ADDR (Prometheus at http://ADDR/metrics),\nMCP_PAGE_SIZE (default 100).";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// Serve stdio.
    Stdio,
    /// Serve HTTP on this address.
    Http(SocketAddr),
    /// Print this text and exit.
    Help(&'static str),
}

/// Parse the arguments after the program name.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Mode, Error> {
    let mut mode = Mode::Stdio;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => mode = Mode::Stdio,
            "--http" => {
                let addr = args.next().ok_or_else(|| {
                    Error::Args(format!(
                        "--http needs an address, e.g. --http 127.0.0.1:8080\n\n{USAGE}"
                    ))
                })?;
                mode = Mode::Http(parse_addr(&addr)?);
            }
            "-h" | "--help" => return Ok(Mode::Help(USAGE)),
            other => {
                if let Some(addr) = other.strip_prefix("--http=") {
                    mode = Mode::Http(parse_addr(addr)?);
                } else {
                    return Err(Error::Args(format!(
                        "unknown argument {other:?}\n\n{USAGE}"
                    )));
                }
            }
        }
    }
    Ok(mode)
}

fn parse_addr(text: &str) -> Result<SocketAddr, Error> {
    text.parse().map_err(|_| {
        Error::Args(format!(
            "--http {text:?} is not an address such as 127.0.0.1:8080"
        ))
    })
}

/// The environment variable that asks for one log line per request (`1`, `true`, `yes`
/// or `on`); it also raises the request spans to `INFO` (see
/// [`Server::request_span_level`](crate::Server::request_span_level)).
pub const LOG_REQUESTS_ENV: &str = "MCP_LOG_REQUESTS";

/// Log to stderr (never stdout, which carries the protocol on stdio). `RUST_LOG` filters;
/// the default shows info and above. `MCP_LOG_FORMAT=json` writes one JSON object per
/// line, for log collectors. `MCP_LOG_REQUESTS=1` adds one line per request as it ends,
/// with its span's fields (`mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`,
/// `mcp.protocol.version`, `network.transport`, `phase`, `error_layer`, `error.type`) and
/// its time. Text logs are colored only when stderr is a terminal and `NO_COLOR` is unset.
///
/// With the `otel` feature, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, spans are also
/// exported there over OTLP (HTTP, protobuf; the exporter's other standard variables
/// apply too): every request's span, whatever `RUST_LOG` says. `OTEL_SERVICE_NAME` names
/// the process in them. Call [`flush_telemetry`] before the process exits;
/// [`Server::serve_from_args`](crate::Server::serve_from_args) and
/// [`App::serve`](crate::App::serve) do.
pub fn init_logging() {
    use tracing_subscriber::fmt::format::FmtSpan;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::Layer as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let spans = if flag(LOG_REQUESTS_ENV) {
        FmtSpan::CLOSE
    } else {
        FmtSpan::NONE
    };
    // Colors only for a person at a terminal: escape codes in a file or a collector's pipe
    // are noise.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_span_events(spans);
    let fmt = match std::env::var("MCP_LOG_FORMAT").as_deref() {
        Ok("json") => fmt
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .with_filter(filter)
            .boxed(),
        _ => fmt.with_filter(filter).boxed(),
    };
    let registry = tracing_subscriber::registry().with(fmt);
    #[cfg(feature = "otel")]
    let registry = registry.with(crate::otel::exporting());
    let _ = registry.try_init();
}

/// Export the spans still waiting to be sent (with the `otel` feature and an OTLP
/// endpoint set, see [`init_logging`]); nothing otherwise. Call it before the process
/// exits, or the last few seconds of spans are lost.
pub fn flush_telemetry() {
    #[cfg(feature = "otel")]
    crate::otel::flush();
}

/// Whether an environment variable says yes (`1`, `true`, `yes`, `on`).
pub(crate) fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_choose_the_transport() {
        assert_eq!(parse_args(args(&[])).unwrap(), Mode::Stdio);
        assert_eq!(parse_args(args(&["--stdio"])).unwrap(), Mode::Stdio);
        assert_eq!(
            parse_args(args(&["--http", "127.0.0.1:8080"])).unwrap(),
            Mode::Http("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse_args(args(&["--http=127.0.0.1:9"])).unwrap(),
            Mode::Http("127.0.0.1:9".parse().unwrap())
        );
        assert!(matches!(
            parse_args(args(&["--help"])).unwrap(),
            Mode::Help(_)
        ));
    }

    #[test]
    fn bad_flags_explain_themselves() {
        let e = parse_args(args(&["--http"])).unwrap_err().to_string();
        assert!(e.contains("needs an address"), "{e}");
        let e = parse_args(args(&["--http", "localhost"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not an address"), "{e}");
        let e = parse_args(args(&["--verbose"])).unwrap_err().to_string();
        assert!(e.contains("unknown argument"), "{e}");
    }
}
