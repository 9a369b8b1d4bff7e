//! A raw HTTP/1.1 client over TCP for tests that must send what no well-behaved client
//! would (duplicate headers, bare CR, stalled bodies), and a server on a loopback port.

#![allow(dead_code)] // each test file uses part of it

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Serve `app`'s router on a fresh loopback port.
pub async fn serve(app: mcp_runtime::App) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve_on(listener, app).await
}

/// Serve `app`'s router on `listener`.
pub async fn serve_on(listener: tokio::net::TcpListener, app: mcp_runtime::App) -> SocketAddr {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app.router()).await });
    addr
}

/// The client side of an in-memory stdio connection.
pub type StdioLines =
    tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;

/// Serve `app` over an in-memory stdio connection: the client's lines and writer.
pub fn stdio(app: mcp_runtime::App) -> (StdioLines, tokio::io::WriteHalf<tokio::io::DuplexStream>) {
    use tokio::io::AsyncBufReadExt as _;
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    tokio::spawn(async move { app.serve_io(server_read, server_write).await });
    let (read, write) = tokio::io::split(client);
    (tokio::io::BufReader::new(read).lines(), write)
}

/// The next JSON line from the server (within 10 s).
pub async fn next_line(lines: &mut StdioLines) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("the server answers within 10 s")
        .unwrap()
        .expect("a line");
    serde_json::from_str(&line).unwrap()
}

/// One HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The text of a tool result's first content block, or "" when there is none.
    pub fn tool_text(&self) -> String {
        self.json()
            .pointer("/result/content/0/text")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }

    /// The first header of this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON-RPC error code of the body, if it is an error response.
    pub fn code(&self) -> Option<i64> {
        self.json().pointer("/error/code").and_then(Value::as_i64)
    }
}

/// Send raw bytes as one request (they should say `Connection: close`) and read the
/// response to its end.
pub async fn send(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    read_reply(&mut stream).await
}

/// Read one response from `stream` until the server closes it.
pub async fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("the server answers within 20 s")
        .ok();
    parse(&raw)
}

fn parse(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&data[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            return out;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..(start + size).min(data.len())]);
        data = &data[(start + size + 2).min(data.len())..];
    }
}

/// The bytes of a POST to `/mcp` with these headers (Host, Content-Length and
/// `Connection: close` are added).
pub fn post(headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    post_to("/mcp", headers, body)
}

/// The bytes of a POST to `path`.
pub fn post_to(path: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut text = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// The bytes of a GET of `path`.
pub fn get(path: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut text = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.into_bytes()
}

/// A 2026-07-28 request body with the default `_meta` merged into `params`.
pub fn body(id: u64, method: &str, params: Value) -> String {
    let mut params = match params {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    params
        .entry("_meta")
        .or_insert_with(mcp_runtime::testing::default_meta);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The headers a 2026-07-28 client sends for `method` (and `name`, the tool, prompt or
/// URI), plus `extra`.
pub fn headers<'a>(
    method: &'a str,
    name: Option<&'a str>,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut out = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        out.push(("Mcp-Name", name));
    }
    out.extend_from_slice(extra);
    out
}

/// A well-formed request of `method` (targeting `name`) as raw bytes, with `extra`
/// headers.
pub fn request(
    id: u64,
    method: &str,
    name: Option<&str>,
    params: Value,
    extra: &[(&str, &str)],
) -> Vec<u8> {
    post(&headers(method, name, extra), &body(id, method, params))
}

/// `tools/call` of `tool` with `arguments`, as raw bytes, with `extra` headers.
pub fn call(tool: &str, arguments: Value, extra: &[(&str, &str)]) -> Vec<u8> {
    request(
        7,
        "tools/call",
        Some(tool),
        json!({"name": tool, "arguments": arguments}),
        extra,
    )
}

/// The URL a server process started with `--http` announces on its (piped) stderr; the
/// rest of its stderr is drained afterwards, so a full pipe never stalls the server.
pub async fn announced_url(process: &mut tokio::process::Child) -> String {
    use tokio::io::AsyncBufReadExt;
    const MARKER: &str = "serving MCP over Streamable HTTP at ";
    let stderr = process.stderr.take().expect("stderr is piped");
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let url = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let line = lines
                .next_line()
                .await
                .expect("stderr reads")
                .expect("the server announces its URL before it exits");
            if let Some(at) = line.find(MARKER) {
                let rest = &line[at + MARKER.len()..];
                let end = rest.find([' ', '"', '\\']).unwrap_or(rest.len());
                break rest[..end].to_owned();
            }
        }
    })
    .await
    .expect("the server announces its URL within a minute");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    url
}
