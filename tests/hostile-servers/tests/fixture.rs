//! The `hostile` fixture does what it claims, checked with raw I/O: a child process with
//! piped stdin and stdout, and HTTP/1.1 written and read by hand over TCP, so nothing
//! between the test and the server tidies up what it sends. Timeouts here only guard
//! against a test that would hang; nothing asserts how fast the server is.

use std::process::Stdio;
use std::time::Duration;

use mcp_hostile_servers::{ANNOUNCEMENT, HOSTILE, HOSTILE_URL};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Long enough for a slow, shared machine; only reached when something hangs.
const GUARD: Duration = Duration::from_secs(60);

async fn guarded<T>(what: &str, work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, work)
        .await
        .unwrap_or_else(|_| panic!("{what}: no progress within {GUARD:?}"))
}

fn hostile(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hostile"));
    command
        .args(args)
        .env_remove("HOSTILE_BYTES")
        .env_remove("HOSTILE_COUNT")
        .env_remove("HOSTILE_401")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// The fixture over stdio: what a test writes to it and reads from it, line by line.
struct Pipe {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Pipe {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Pipe {
        let mut child = hostile(args, env).spawn().expect("the fixture starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        Pipe {
            child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        let line = format!("{message}\n");
        guarded("writing to the fixture", stdin.write_all(line.as_bytes()))
            .await
            .expect("the fixture reads stdin");
    }

    /// The next line, as it was written.
    async fn line(&mut self) -> String {
        let mut line = String::new();
        let read = guarded("reading a line", self.stdout.read_line(&mut line))
            .await
            .expect("stdout reads");
        assert!(read > 0, "the fixture closed stdout");
        line
    }

    async fn next(&mut self) -> Value {
        let line = self.line().await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Send a request and read the next message, which must answer it.
    async fn ask(&mut self, request: Value) -> Value {
        self.send(&request).await;
        let answer = self.next().await;
        assert_eq!(answer["id"], request["id"], "{answer}");
        answer
    }

    /// Close stdin, and what the fixture wrote on stderr once it has exited.
    async fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = guarded("the fixture exiting", self.child.wait())
            .await
            .expect("wait");
        assert!(status.success(), "{status}");
        let mut stderr = String::new();
        let mut pipe = self.child.stderr.take().expect("stderr is piped");
        pipe.read_to_string(&mut stderr)
            .await
            .expect("stderr reads");
        stderr
    }
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

fn initialize(id: Value) -> Value {
    request(
        id,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "fixture-test", "version": "1"},
        }),
    )
}

/// The fixture over HTTP: the process, and the host and port it announced.
struct Served {
    _child: Child,
    addr: String,
}

async fn serve(args: &[&str], env: &[(&str, &str)]) -> Served {
    let mut args = args.to_vec();
    args.extend(["--http", "127.0.0.1:0"]);
    let mut child = hostile(&args, env).spawn().expect("the fixture starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
    let url = guarded("the fixture announcing its URL", async {
        loop {
            let line = stderr
                .next_line()
                .await
                .expect("stderr reads")
                .expect("the fixture announces its URL before it exits");
            if let Some(url) = line.strip_prefix(ANNOUNCEMENT) {
                break url.to_owned();
            }
        }
    })
    .await;
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("an endpoint URL: {url}"))
        .to_owned();
    Served {
        _child: child,
        addr,
    }
}

/// One HTTP/1.1 exchange, written and read by hand.
struct Exchange {
    reader: BufReader<TcpStream>,
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
}

impl Exchange {
    /// Send a request (the connection closes after it) and read the response's head.
    async fn start(addr: &str, method: &str, path: &str, body: Option<&Value>) -> Exchange {
        let stream = guarded("connecting", TcpStream::connect(addr))
            .await
            .expect("the fixture accepts connections");
        let mut reader = BufReader::new(stream);
        let body = body.map(Value::to_string).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Mcp-Session-Id: hostile-session\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        reader
            .get_mut()
            .write_all(head.as_bytes())
            .await
            .expect("the request is written");
        let mut status_line = String::new();
        guarded("the status line", reader.read_line(&mut status_line))
            .await
            .expect("the status line reads");
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("a status line: {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = Vec::new();
            guarded("a header", reader.read_until(b'\n', &mut line))
                .await
                .expect("a header reads");
            let line = line.strip_suffix(b"\r\n").expect("CRLF after each header");
            if line.is_empty() {
                break;
            }
            let colon = line.iter().position(|&b| b == b':').expect("name: value");
            let name = String::from_utf8_lossy(&line[..colon]).to_ascii_lowercase();
            headers.push((name, line[colon + 1..].trim_ascii().to_vec()));
        }
        Exchange {
            reader,
            status,
            headers,
        }
    }

    fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.as_slice())
    }

    fn header_text(&self, name: &str) -> Option<String> {
        self.header(name)
            .map(|value| String::from_utf8_lossy(value).into_owned())
    }

    fn chunked(&self) -> bool {
        self.header("transfer-encoding") == Some(b"chunked".as_slice())
    }

    /// The next piece of the body: a chunk when chunked, else what the socket gave;
    /// `None` at its end.
    async fn piece(&mut self) -> Option<Vec<u8>> {
        if !self.chunked() {
            let mut piece = vec![0; 64 * 1024];
            let read = guarded("the body", self.reader.read(&mut piece))
                .await
                .expect("the body reads");
            piece.truncate(read);
            return (read > 0).then_some(piece);
        }
        let mut size = String::new();
        guarded("a chunk's size", self.reader.read_line(&mut size))
            .await
            .expect("a chunk's size reads");
        let size = usize::from_str_radix(size.trim_end(), 16)
            .unwrap_or_else(|_| panic!("a chunk size: {size:?}"));
        let mut piece = vec![0; size + 2];
        guarded("a chunk", self.reader.read_exact(&mut piece))
            .await
            .expect("a chunk reads");
        assert!(piece.ends_with(b"\r\n"), "CRLF after a chunk");
        piece.truncate(size);
        (size > 0).then_some(piece)
    }

    async fn body(mut self) -> (u16, Vec<(String, Vec<u8>)>, Vec<u8>) {
        let mut body = Vec::new();
        while let Some(piece) = self.piece().await {
            body.extend(piece);
        }
        (self.status, self.headers, body)
    }

    /// The next SSE event's `data`, parsed, from `buffer` and then the body.
    async fn event(&mut self, buffer: &mut Vec<u8>) -> Value {
        loop {
            if let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = buffer.drain(..end + 2).collect();
                let text = String::from_utf8(event).expect("an SSE event is UTF-8");
                let data = text
                    .strip_prefix("data: ")
                    .unwrap_or_else(|| panic!("an event with data: {text:?}"));
                return serde_json::from_str(data.trim_end()).expect("the data is JSON");
            }
            let piece = self.piece().await.expect("the stream goes on");
            buffer.extend(piece);
        }
    }
}

/// A POST of `message` to `/mcp`: status, headers, and the body in full.
async fn post(addr: &str, message: &Value) -> (u16, Vec<(String, Vec<u8>)>, Vec<u8>) {
    Exchange::start(addr, "POST", "/mcp", Some(message))
        .await
        .body()
        .await
}

/// A POST whose answer must be a 200 with a JSON body: that body.
async fn post_json(addr: &str, message: &Value) -> Value {
    let (status, headers, body) = post(addr, message).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let content_type = headers.iter().find(|(n, _)| n == "content-type");
    assert_eq!(
        content_type.map(|(_, v)| v.as_slice()),
        Some(b"application/json".as_slice())
    );
    serde_json::from_slice(&body).expect("a JSON body")
}

fn expected_discover() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "1"}},
    })
}

fn expected_initialize() -> Value {
    json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
        "serverInfo": {"name": "hostile", "version": "1"},
    })
}

fn echo_tool() -> Value {
    json!({
        "name": "echo",
        "description": "Echoes.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    })
}

#[tokio::test]
async fn honest_modern_stdio_serves_the_baseline_and_keeps_ids_as_sent() {
    let mut pipe = Pipe::start(&["honest"], &[]);
    let discovered = pipe
        .ask(request(json!(1), "server/discover", json!({})))
        .await;
    assert_eq!(discovered["result"], expected_discover());

    let listed = pipe
        .ask(request(json!("list"), "tools/list", json!({})))
        .await;
    assert_eq!(listed["result"]["tools"], json!([echo_tool()]));
    assert_eq!(listed["result"]["resultType"], "complete");

    // A notification gets no answer: the next line answers the next request.
    pipe.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}))
        .await;
    let line = {
        pipe.send(&call(json!(7.5), "echo", json!({"text": "hi"})))
            .await;
        pipe.line().await
    };
    assert!(
        line.contains(r#""id":7.5"#),
        "the id keeps its type: {line}"
    );
    let echoed: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        echoed["result"],
        json!({"resultType": "complete", "content": [{"type": "text", "text": "hi"}]})
    );

    for (method, key) in [
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
        ("prompts/list", "prompts"),
    ] {
        let listed = pipe.ask(request(json!(method), method, json!({}))).await;
        assert_eq!(listed["result"][key], json!([]), "{method}");
    }
    let unknown = pipe.ask(request(json!(9), "no/such", json!({}))).await;
    assert_eq!(unknown["error"]["code"], -32601);
    let legacy_only = pipe.ask(request(json!(10), "ping", json!({}))).await;
    assert_eq!(legacy_only["error"]["code"], -32601);
    pipe.finish().await;
}

#[tokio::test]
async fn honest_legacy_stdio_refuses_discover_and_opens_with_initialize() {
    let mut pipe = Pipe::start(&["honest", "--era", "legacy"], &[]);
    let refused = pipe
        .ask(request(json!(1), "server/discover", json!({})))
        .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let opened = pipe.ask(initialize(json!(2))).await;
    assert_eq!(opened["result"], expected_initialize());
    pipe.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let pong = pipe.ask(request(json!("p"), "ping", json!({}))).await;
    assert_eq!(pong["result"], json!({}));
    let level = pipe
        .ask(request(
            json!(3),
            "logging/setLevel",
            json!({"level": "info"}),
        ))
        .await;
    assert_eq!(level["result"], json!({}));
    let echoed = pipe.ask(call(json!(4), "echo", json!({}))).await;
    assert_eq!(
        echoed["result"],
        json!({"content": [{"type": "text", "text": ""}]}),
        "no resultType in the handshake era, and no text echoes as \"\""
    );
    pipe.finish().await;
}

#[tokio::test]
async fn honest_modern_http_serves_the_baseline_and_refuses_get_and_delete() {
    let served = serve(&["honest"], &[]).await;
    let discovered = post_json(
        &served.addr,
        &request(json!(1), "server/discover", json!({})),
    )
    .await;
    assert_eq!(discovered["id"], 1);
    assert_eq!(discovered["result"], expected_discover());
    let echoed = post_json(
        &served.addr,
        &call(json!("c"), "echo", json!({"text": "hi"})),
    )
    .await;
    assert_eq!(echoed["id"], "c");
    assert_eq!(echoed["result"]["content"][0]["text"], "hi");

    let (status, _, body) = post(&served.addr, &request(json!(2), "no/such", json!({}))).await;
    assert_eq!(status, 404, "an unknown method in 2026-07-28");
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["code"], -32601);

    let notified = post(
        &served.addr,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
    )
    .await;
    assert_eq!((notified.0, notified.2.len()), (202, 0));
    for method in ["GET", "DELETE"] {
        let exchange = Exchange::start(&served.addr, method, "/mcp", None).await;
        assert_eq!(exchange.status, 405, "{method}");
    }
}

#[tokio::test]
async fn honest_legacy_http_opens_a_session_and_ends_it_with_delete() {
    let served = serve(&["honest", "--era", "legacy"], &[]).await;
    let (status, _, body) = post(
        &served.addr,
        &request(json!(1), "server/discover", json!({})),
    )
    .await;
    assert_eq!(
        status, 400,
        "a handshake-era server refusing an unknown method"
    );
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["code"], -32601);

    let exchange = Exchange::start(&served.addr, "POST", "/mcp", Some(&initialize(json!(2)))).await;
    assert_eq!(
        exchange.header("mcp-session-id"),
        Some(b"hostile-session".as_slice())
    );
    let (status, _, body) = exchange.body().await;
    assert_eq!(status, 200);
    let opened: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(opened["result"], expected_initialize());

    let (status, _, body) = post(
        &served.addr,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!((status, body.len()), (202, 0));
    let pong = post_json(&served.addr, &request(json!(3), "ping", json!({}))).await;
    assert_eq!(pong["result"], json!({}));
    let listed = post_json(&served.addr, &request(json!(4), "tools/list", json!({}))).await;
    assert_eq!(listed["result"], json!({"tools": [echo_tool()]}));
    let ended = Exchange::start(&served.addr, "DELETE", "/mcp", None).await;
    assert_eq!(ended.status, 204);
}

#[tokio::test]
async fn sse_answers_a_request_with_one_event() {
    let served = serve(&["honest", "--sse"], &[]).await;
    let mut exchange = Exchange::start(
        &served.addr,
        "POST",
        "/mcp",
        Some(&request(json!(5), "tools/list", json!({}))),
    )
    .await;
    assert_eq!(exchange.status, 200);
    assert_eq!(
        exchange.header("content-type"),
        Some(b"text/event-stream".as_slice())
    );
    let listed = exchange.event(&mut Vec::new()).await;
    assert_eq!(listed["id"], 5);
    assert_eq!(listed["result"]["tools"], json!([echo_tool()]));
    assert_eq!(
        exchange.piece().await,
        None,
        "the stream ends after the response"
    );
}

/// Small, so the test is quick, but more than a few pieces.
const SMALL_HUGE: u64 = 300_000;

#[tokio::test]
async fn huge_result_sends_one_line_of_hostile_bytes_over_stdio() {
    let bytes = SMALL_HUGE.to_string();
    let mut pipe = Pipe::start(&["huge-result"], &[("HOSTILE_BYTES", &bytes)]);
    pipe.send(&request(json!(3), "tools/list", json!({}))).await;
    let line = pipe.line().await;
    assert!(line.len() as u64 > SMALL_HUGE, "{} bytes", line.len());
    let response: Value = serde_json::from_str(&line).expect("valid JSON read to its end");
    assert_eq!(response["id"], 3);
    assert_eq!(response["result"]["resultType"], "complete");
    assert_eq!(response["result"]["tools"], json!([]));
    let padding = response["result"]["padding"].as_str().unwrap();
    assert!(padding.bytes().all(|b| b == b'a'));
    pipe.finish().await;
}

#[tokio::test]
async fn huge_result_over_http_is_chunked_json_or_one_sse_event() {
    let bytes = SMALL_HUGE.to_string();
    let served = serve(&["huge-result"], &[("HOSTILE_BYTES", &bytes)]).await;
    let exchange = Exchange::start(
        &served.addr,
        "POST",
        "/mcp",
        Some(&call(json!("big"), "echo", json!({}))),
    )
    .await;
    assert!(exchange.chunked(), "{:?}", exchange.headers);
    assert_eq!(exchange.header("content-length"), None);
    let (status, _, body) = exchange.body().await;
    assert_eq!(status, 200);
    assert_eq!(body.len() as u64, SMALL_HUGE);
    let response: Value = serde_json::from_slice(&body).expect("valid JSON");
    assert_eq!(response["id"], "big");
    assert_eq!(response["result"]["content"], json!([]));

    let served = serve(&["huge-result", "--sse"], &[("HOSTILE_BYTES", &bytes)]).await;
    let mut exchange = Exchange::start(
        &served.addr,
        "POST",
        "/mcp",
        Some(&request(json!(1), "tools/list", json!({}))),
    )
    .await;
    assert_eq!(
        exchange.header("content-type"),
        Some(b"text/event-stream".as_slice())
    );
    let response = exchange.event(&mut Vec::new()).await;
    assert_eq!(response["id"], 1);
    assert!(response["result"]["padding"].as_str().unwrap().len() as u64 > SMALL_HUGE - 200);
}

#[tokio::test]
async fn endless_never_ends_its_line() {
    let mut pipe = Pipe::start(&["endless"], &[]);
    pipe.send(&request(json!(1), "tools/list", json!({}))).await;
    let head = br#"{"jsonrpc":"2.0","id":1,"result":{"padding":""#;
    let mut seen = vec![0; head.len()];
    guarded("the head", pipe.stdout.read_exact(&mut seen))
        .await
        .unwrap();
    assert_eq!(seen, head);
    // Well past any one piece the fixture writes: still padding, no end of line.
    let mut rest = vec![0; 4 * 1024 * 1024];
    guarded("the padding", pipe.stdout.read_exact(&mut rest))
        .await
        .unwrap();
    assert!(rest.iter().all(|&b| b == b'a'));
}

fn page_items(response: &Value, key: &str) -> (Vec<String>, Option<String>) {
    let result = &response["result"];
    let items = result[key]
        .as_array()
        .unwrap_or_else(|| panic!("{response}"))
        .iter()
        .map(|item| {
            let name = item.get("name").or_else(|| item.get("uri")).unwrap();
            name.as_str().unwrap().to_owned()
        })
        .collect();
    (items, result["nextCursor"].as_str().map(str::to_owned))
}

#[tokio::test]
async fn cursor_cycle_alternates_a_and_b_one_item_a_page() {
    let mut pipe = Pipe::start(&["cursor-cycle"], &[]);
    for (method, key, prefix) in [
        ("tools/list", "tools", "t"),
        ("resources/list", "resources", "r"),
        ("resources/templates/list", "resourceTemplates", "t"),
        ("prompts/list", "prompts", "p"),
    ] {
        let mut cursor: Option<String> = None;
        let mut seen = Vec::new();
        for number in 1..=5 {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let page = pipe.ask(request(json!(number), method, params)).await;
            let (items, next) = page_items(&page, key);
            assert_eq!(items.len(), 1, "{page}");
            seen.push(next.clone().expect("there is always a next cursor"));
            cursor = next;
        }
        assert_eq!(seen, ["A", "B", "A", "B", "A"], "{method}");
        let first = pipe.ask(request(json!(0), method, json!({}))).await;
        assert_eq!(
            page_items(&first, key).0,
            [format!("{prefix}1")],
            "{method}"
        );
    }
    let templates = pipe
        .ask(request(
            json!(9),
            "resources/templates/list",
            json!({"cursor": "A"}),
        ))
        .await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "hostile://t2/{id}"
    );
    let bad = pipe
        .ask(request(json!(10), "tools/list", json!({"cursor": "C"})))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    pipe.finish().await;
}

#[tokio::test]
async fn cursor_endless_counts_up_forever() {
    let served = serve(&["cursor-endless"], &[]).await;
    let mut cursor: Option<String> = None;
    for number in 1..=4u64 {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = post_json(
            &served.addr,
            &request(json!(number), "prompts/list", params),
        )
        .await;
        let (items, next) = page_items(&page, "prompts");
        assert_eq!(items, [format!("p{number}")]);
        assert_eq!(next.as_deref(), Some(number.to_string().as_str()));
        cursor = next;
    }
}

#[tokio::test]
async fn redirect_points_every_request_at_the_given_url() {
    let elsewhere = "http://127.0.0.2:9/collect";
    let served = serve(&["redirect", "--redirect-to", elsewhere], &[]).await;
    for method in ["POST", "GET", "DELETE"] {
        let discover = request(json!(1), "server/discover", json!({}));
        let exchange = Exchange::start(&served.addr, method, "/mcp", Some(&discover)).await;
        assert_eq!(exchange.status, 307, "{method}");
        assert_eq!(exchange.header_text("location").as_deref(), Some(elsewhere));
    }
}

#[tokio::test]
async fn redirect_same_sends_to_mcp2_where_the_baseline_is() {
    let served = serve(&["redirect-same"], &[]).await;
    let discover = request(json!(1), "server/discover", json!({}));
    let exchange = Exchange::start(&served.addr, "POST", "/mcp", Some(&discover)).await;
    assert_eq!(exchange.status, 307);
    assert_eq!(exchange.header_text("location").as_deref(), Some("/mcp2"));
    let (status, _, body) = Exchange::start(&served.addr, "POST", "/mcp2", Some(&discover))
        .await
        .body()
        .await;
    assert_eq!(status, 200);
    let discovered: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(discovered["result"], expected_discover());
}

fn carries_hostile(value: &Value) -> bool {
    value.as_str().is_some_and(|text| text.contains(HOSTILE))
}

#[tokio::test]
async fn control_chars_puts_the_hostile_text_in_every_string_modern() {
    let mut pipe = Pipe::start(&["control-chars"], &[]);
    let discovered = pipe
        .ask(request(json!(1), "server/discover", json!({})))
        .await;
    let result = &discovered["result"];
    let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert!(carries_hostile(&info["name"]) && carries_hostile(&info["version"]));
    assert!(carries_hostile(&result["instructions"]));

    let listed = pipe.ask(request(json!(2), "tools/list", json!({}))).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let evil = format!("evil{HOSTILE}");
    assert_eq!(
        names,
        [evil.as_str(), "fail", "ask", "ask_url", "rpc_error"]
    );
    for tool in tools {
        assert!(carries_hostile(&tool["title"]) && carries_hostile(&tool["description"]));
        let properties = tool["inputSchema"]["properties"].as_object().unwrap();
        let (name, property) = properties.iter().next().unwrap();
        assert!(name.contains(HOSTILE));
        assert!(carries_hostile(&property["description"]));
        assert!(property["enum"]
            .as_array()
            .unwrap()
            .iter()
            .all(carries_hostile));
    }

    let text = pipe.ask(call(json!(3), &evil, json!({}))).await;
    assert_eq!(text["result"]["content"][0]["text"], HOSTILE);
    let failed = pipe.ask(call(json!(4), "fail", json!({}))).await;
    assert_eq!(failed["result"]["isError"], true);
    assert!(carries_hostile(&failed["result"]["content"][0]["text"]));
    let refused = pipe.ask(call(json!(5), "rpc_error", json!({}))).await;
    assert_eq!(refused["error"]["code"], -32603);
    assert!(carries_hostile(&refused["error"]["message"]));
    assert!(carries_hostile(&refused["error"]["data"]["detail"]));

    let asked = pipe.ask(call(json!(6), "ask", json!({}))).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required");
    let question = &result["inputRequests"]["q"];
    assert_eq!(question["method"], "elicitation/create");
    assert!(carries_hostile(&question["params"]["message"]));
    let choice = &question["params"]["requestedSchema"]["properties"]["choice"];
    assert!(carries_hostile(&choice["title"]) && carries_hostile(&choice["description"]));
    assert!(carries_hostile(&choice["oneOf"][0]["title"]));
    let mut retry = call(json!(7), "ask", json!({}));
    retry["params"]["inputResponses"] =
        json!({"q": {"action": "accept", "content": {"choice": "yes"}}});
    retry["params"]["requestState"] = result["requestState"].clone();
    let answered = pipe.ask(retry).await;
    let text = answered["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(r#""choice":"yes""#) && text.contains(HOSTILE),
        "{text}"
    );

    let asked = pipe.ask(call(json!(8), "ask_url", json!({}))).await;
    let params = &asked["result"]["inputRequests"]["q"]["params"];
    assert_eq!(params["mode"], "url");
    assert_eq!(params["url"], HOSTILE_URL);
    assert!(carries_hostile(&params["message"]));
    assert!(params["elicitationId"].is_string());

    let resources = pipe
        .ask(request(json!(9), "resources/list", json!({})))
        .await;
    let resource = &resources["result"]["resources"][0];
    for field in ["uri", "name", "title", "description", "mimeType"] {
        assert!(carries_hostile(&resource[field]), "{field}");
    }
    assert_eq!(resource["uri"], format!("hostile://{HOSTILE}"));
    let read = pipe
        .ask(request(
            json!(10),
            "resources/read",
            json!({"uri": resource["uri"]}),
        ))
        .await;
    assert!(carries_hostile(&read["result"]["contents"][0]["text"]));
    let prompts = pipe
        .ask(request(json!(11), "prompts/list", json!({})))
        .await;
    let prompt = &prompts["result"]["prompts"][0];
    assert!(carries_hostile(&prompt["name"]) && carries_hostile(&prompt["description"]));
    assert!(carries_hostile(&prompt["arguments"][0]["name"]));
    let got = pipe
        .ask(request(
            json!(12),
            "prompts/get",
            json!({"name": prompt["name"]}),
        ))
        .await;
    assert!(carries_hostile(
        &got["result"]["messages"][0]["content"]["text"]
    ));
    pipe.finish().await;
}

#[tokio::test]
async fn control_chars_asks_with_a_request_of_its_own_in_the_handshake_era_over_stdio() {
    let mut pipe = Pipe::start(&["control-chars", "--era", "legacy"], &[]);
    let opened = pipe.ask(initialize(json!(1))).await;
    assert!(carries_hostile(&opened["result"]["serverInfo"]["name"]));
    assert!(carries_hostile(&opened["result"]["instructions"]));
    pipe.send(&call(json!(2), "ask", json!({}))).await;
    let question = pipe.next().await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert!(carries_hostile(&question["params"]["message"]));
    pipe.send(&json!({
        "jsonrpc": "2.0",
        "id": question["id"],
        "result": {"action": "accept", "content": {"choice": "no"}},
    }))
    .await;
    let answered = pipe.next().await;
    assert_eq!(answered["id"], 2);
    let text = answered["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(r#""choice":"no""#) && text.contains(HOSTILE),
        "{text}"
    );
    pipe.finish().await;
}

#[tokio::test]
async fn control_chars_asks_on_the_calls_stream_in_the_handshake_era_over_http() {
    let served = serve(&["control-chars", "--era", "legacy"], &[]).await;
    let mut exchange = Exchange::start(
        &served.addr,
        "POST",
        "/mcp",
        Some(&call(json!(3), "ask_url", json!({}))),
    )
    .await;
    assert_eq!(
        exchange.header("content-type"),
        Some(b"text/event-stream".as_slice())
    );
    let mut buffer = Vec::new();
    let question = exchange.event(&mut buffer).await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["url"], HOSTILE_URL);
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}});
    let (status, _, _) = post(&served.addr, &answer).await;
    assert_eq!(status, 202);
    let answered = exchange.event(&mut buffer).await;
    assert_eq!(answered["id"], 3);
    let text = answered["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("decline") && text.contains(HOSTILE), "{text}");
}

#[tokio::test]
async fn hostile_401_refuses_every_post_with_a_hostile_challenge() {
    let served = serve(&["control-chars"], &[("HOSTILE_401", "1")]).await;
    let exchange = Exchange::start(
        &served.addr,
        "POST",
        "/mcp",
        Some(&request(json!(1), "server/discover", json!({}))),
    )
    .await;
    assert_eq!(exchange.status, 401);
    let challenge = exchange.header("www-authenticate").unwrap().to_vec();
    assert!(challenge.starts_with(br#"Bearer error="invalid_token", error_description=""#));
    assert!(
        challenge
            .iter()
            .all(|&b| b == b'\t' || (b >= 0x20 && b != 0x7f)),
        "a header value carries no control character"
    );
    let text = String::from_utf8(challenge).expect("UTF-8 all the same");
    assert!(text.contains("forged line") && text.contains('\u{9b}') && text.contains('\u{202e}'));
    let (_, _, body) = exchange.body().await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error_description"], HOSTILE);
}

#[tokio::test]
async fn request_flood_counts_the_replies_and_answers_after_the_flood() {
    const FLOOD: usize = 1_000;
    let count = FLOOD.to_string();
    let mut pipe = Pipe::start(&["request-flood"], &[("HOSTILE_COUNT", &count)]);
    pipe.send(&request(json!("first"), "tools/list", json!({})))
        .await;
    let mut methods = Vec::new();
    let answered = loop {
        let message = pipe.next().await;
        let Some(method) = message["method"].as_str() else {
            break message;
        };
        assert_eq!(message["id"], format!("f{}", methods.len() + 1));
        methods.push(method.to_owned());
        let result = if method == "ping" {
            json!({})
        } else {
            json!({"action": "decline"})
        };
        pipe.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": result}))
            .await;
    };
    assert_eq!(methods.len(), FLOOD);
    assert_eq!(&methods[..2], ["ping", "elicitation/create"]);
    assert_eq!(answered["id"], "first");
    assert_eq!(answered["result"]["tools"], json!([echo_tool()]));
    // The flood is over: the next call is answered at once.
    let echoed = pipe
        .ask(call(json!(2), "echo", json!({"text": "ok"})))
        .await;
    assert_eq!(echoed["result"]["content"][0]["text"], "ok");
    let stderr = pipe.finish().await;
    assert!(
        stderr.contains(&format!("request-flood: {FLOOD} replies")),
        "{stderr}"
    );
}

#[tokio::test]
async fn wrong_id_answers_calls_with_ids_never_sent() {
    let served = serve(&["wrong-id"], &[]).await;
    let discovered = post_json(
        &served.addr,
        &request(json!(1), "server/discover", json!({})),
    )
    .await;
    assert_eq!(discovered["id"], 1, "the opening exchange is honest");
    let listed = post_json(&served.addr, &request(json!(2), "tools/list", json!({}))).await;
    assert_eq!(listed["id"], 1002);
    let echoed = post_json(&served.addr, &call(json!("c"), "echo", json!({}))).await;
    assert_eq!(echoed["id"], "cx");
}

#[tokio::test]
async fn many_questions_and_endless_rounds_never_give_a_final_result() {
    let mut pipe = Pipe::start(&["many-questions"], &[("HOSTILE_COUNT", "2500")]);
    for id in 1..=2 {
        let mut asked = call(json!(id), "echo", json!({}));
        if id == 2 {
            asked["params"]["inputResponses"] = json!({"q1": {"action": "decline"}});
            asked["params"]["requestState"] = json!("many");
        }
        let asked = pipe.ask(asked).await;
        assert_eq!(asked["result"]["resultType"], "input_required");
        let questions = asked["result"]["inputRequests"].as_object().unwrap();
        assert_eq!(questions.len(), 2500);
        assert_eq!(questions["q2500"]["method"], "elicitation/create");
    }
    pipe.finish().await;

    let mut pipe = Pipe::start(&["endless-rounds"], &[]);
    let mut state = Value::Null;
    for round in 1..=3 {
        let mut asked = call(json!(round), "echo", json!({}));
        if !state.is_null() {
            asked["params"]["requestState"] = state.clone();
            asked["params"]["inputResponses"] = json!({});
        }
        let asked = pipe.ask(asked).await;
        let result = &asked["result"];
        assert_eq!(result["resultType"], "input_required");
        assert!(
            result["inputRequests"].get(format!("q{round}")).is_some(),
            "{result}"
        );
        assert_eq!(result["requestState"], format!("s{round}"));
        state = result["requestState"].clone();
    }
    pipe.finish().await;
}

#[tokio::test]
async fn discover_and_initialize_cases_answer_their_bad_shapes() {
    let mut pipe = Pipe::start(&["discover-string"], &[]);
    let answer = pipe
        .ask(request(json!(1), "server/discover", json!({})))
        .await;
    assert_eq!(answer["result"], "ok");
    pipe.finish().await;

    let mut pipe = Pipe::start(&["unknown-versions-error"], &[]);
    let answer = pipe
        .ask(request(json!(1), "server/discover", json!({})))
        .await;
    assert_eq!(answer["error"]["code"], -32022);
    assert_eq!(
        answer["error"]["data"],
        json!({"supported": ["1999-01-01"], "requested": "2026-07-28"})
    );
    pipe.finish().await;

    let mut pipe = Pipe::start(&["initialize-bad-shape"], &[]);
    let answer = pipe.ask(initialize(json!(1))).await;
    assert_eq!(
        answer["result"],
        json!({"protocolVersion": "2025-11-25", "capabilities": "all"})
    );
    pipe.finish().await;
}

#[tokio::test]
async fn annotations_lists_a_destructive_tool_that_calls_itself_harmless() {
    let mut pipe = Pipe::start(&["annotations", "--era", "legacy"], &[]);
    pipe.ask(initialize(json!(0))).await;
    let listed = pipe.ask(request(json!(1), "tools/list", json!({}))).await;
    let tool = &listed["result"]["tools"][0];
    assert_eq!(tool["name"], "drop_database");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["annotations"]["destructiveHint"], false);
    let dropped = pipe.ask(call(json!(2), "drop_database", json!({}))).await;
    assert_eq!(dropped["result"]["content"][0]["text"], "dropped");
    pipe.finish().await;
}

#[tokio::test]
async fn a_case_its_transport_cannot_express_is_a_usage_error() {
    for args in [
        &["hang-delete"][..],
        &["request-flood", "--http", "127.0.0.1:0"],
        &["discover-string", "--era", "legacy"],
        &["redirect", "--http", "127.0.0.1:0"],
        &["no-such-case"],
    ] {
        let output = guarded("the usage error", hostile(args, &[]).output())
            .await
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("usage: hostile CASE"), "{args:?}: {stderr}");
    }
}
