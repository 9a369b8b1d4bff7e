//! Running a server as a process: the command line every server built with this crate
//! understands ([`parse_args`], [`Mode`]), logs on stderr ([`init_logging`]) and the
//! signal that starts a graceful shutdown ([`shutdown_signal`]).

use std::net::SocketAddr;

use crate::core::Error;

/// Usage text.
pub const USAGE: &str = "usage: <server> [--stdio | --http ADDR | --health ADDR]\n\n  --stdio        serve MCP over stdin/stdout (default)\n  --http ADDR    serve Streamable HTTP at http://ADDR/mcp, e.g. --http 127.0.0.1:8080\n  --health ADDR  exit 0 when the server serving HTTP at ADDR answers /healthz, else 1\n                 (a container's health check, in an image without a shell)\n  -h, --help     show this help\n\nLogs go to stderr; RUST_LOG filters them (e.g. RUST_LOG=debug), MCP_LOG_FORMAT=json\nwrites JSON lines and MCP_LOG_REQUESTS=1 adds a line per request.\n\nEnvironment: MCP_SEAL_KEY (shared by instances behind one balancer), MCP_STORE,\nMCP_SHUTDOWN_GRACE_MS (default 20000), MCP_METRICS_ADDR (Prometheus at http://ADDR/metrics),\nMCP_PAGE_SIZE (default 100).";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// Serve stdio.
    Stdio,
    /// Serve HTTP on this address.
    Http(SocketAddr),
    /// Print this text and exit.
    Help(&'static str),
    /// Ask the server serving HTTP at this address whether it is alive ([`check_health`]),
    /// and exit.
    Health(SocketAddr),
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
            "--health" => {
                let addr = args.next().ok_or_else(|| {
                    Error::Args(format!(
                        "--health needs the address the server serves, e.g. --health 127.0.0.1:8080\n\n{USAGE}"
                    ))
                })?;
                mode = Mode::Health(parse_addr(&addr)?);
            }
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

/// How long [`check_health`] waits for the whole answer's first line.
const HEALTH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(3);

/// Whether the server serving HTTP at `addr` is alive: `GET /healthz` answered with 200
/// within three seconds. An address on all interfaces (`0.0.0.0`, `::`) is asked on the
/// loopback. For a container's health check (`SERVER --health 127.0.0.1:8080`), so an
/// image needs no shell or `curl` to have one.
pub async fn check_health(addr: SocketAddr) -> Result<(), Error> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut addr = addr;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    let probe = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        let request = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        // The status line's start: `HTTP/1.1 200`, twelve bytes.
        let mut status = [0u8; 12];
        stream.read_exact(&mut status).await?;
        Ok::<_, std::io::Error>(status)
    };
    match tokio::time::timeout(HEALTH_DEADLINE, probe).await {
        Ok(Ok(status)) if status.ends_with(b" 200") && status.starts_with(b"HTTP/1.") => Ok(()),
        Ok(Ok(status)) => Err(Error::Io(std::io::Error::other(format!(
            "http://{addr}/healthz answered {}",
            String::from_utf8_lossy(&status).trim()
        )))),
        Ok(Err(e)) => Err(Error::Io(std::io::Error::other(format!(
            "http://{addr}/healthz: {e}"
        )))),
        Err(_) => Err(Error::Io(std::io::Error::other(format!(
            "http://{addr}/healthz did not answer within {} s",
            HEALTH_DEADLINE.as_secs()
        )))),
    }
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
    fn health_asks_an_address() {
        assert_eq!(
            parse_args(args(&["--health", "0.0.0.0:8080"])).unwrap(),
            Mode::Health("0.0.0.0:8080".parse().unwrap())
        );
        let e = parse_args(args(&["--health"])).unwrap_err().to_string();
        assert!(e.contains("--health needs the address"), "{e}");
    }

    /// A one-answer HTTP server on a free port: the status line it answers with.
    async fn answering(status: &'static str) -> SocketAddr {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 256];
            let n = stream.read(&mut request).await.unwrap();
            assert!(request[..n].starts_with(b"GET /healthz HTTP/1.1\r\n"));
            let _ = stream
                .write_all(format!("{status}\r\ncontent-length: 0\r\n\r\n").as_bytes())
                .await;
        });
        addr
    }

    #[tokio::test]
    async fn health_is_a_200_from_healthz_and_anything_else_says_what_came() {
        assert!(check_health(answering("HTTP/1.1 200 OK").await)
            .await
            .is_ok());
        // Asked on all interfaces: the loopback answers.
        let mut anywhere = answering("HTTP/1.1 200 OK").await;
        anywhere.set_ip(std::net::Ipv4Addr::UNSPECIFIED.into());
        assert!(check_health(anywhere).await.is_ok());
        let e = check_health(answering("HTTP/1.1 503 Service Unavailable").await)
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("answered HTTP/1.1 503"), "{e}");
        // Nobody there.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = closed.local_addr().unwrap();
        drop(closed);
        let e = check_health(addr).await.unwrap_err().to_string();
        assert!(e.contains("/healthz"), "{e}");
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
