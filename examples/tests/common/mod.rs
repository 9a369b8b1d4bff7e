//! Example servers as processes, and a small 2026-07-28 client over HTTP.

#![allow(dead_code)] // each test file uses part of it

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// A child process killed when dropped.
pub struct Running(pub Child);

impl Running {
    /// Kill it now (SIGKILL: no chance to finish anything).
    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port nothing listened on a moment ago, for a program that cannot be told to
/// take port 0 and say which it got (nginx). Never the same port twice in one test
/// process, so tests running side by side do not hand each other's ports out.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// A server started by [`serve_http`].
pub struct Served {
    pub process: Running,
    /// Its MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// Its metrics endpoint, when `MCP_METRICS_ADDR` was among its environment.
    pub metrics: Option<String>,
}

/// Start `binary` serving HTTP with `env` on a port the system picks, as it announces on
/// stderr (so no port is chosen here and then taken by someone else before the server
/// binds it). A `MCP_METRICS_ADDR` of `127.0.0.1:0` is announced the same way. A server
/// that exits or stays silent for 30 s fails the test with what it wrote.
pub async fn serve_http(binary: &str, env: &[(&str, &str)]) -> Served {
    launch(binary, "127.0.0.1:0", env)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// [`serve_http`] for a server that must know its port before it binds (one that derives
/// its OAuth resource URL from `--http`): a port free a moment ago, and another should
/// the server find it taken.
pub async fn serve_http_on_a_picked_port(binary: &str, env: &[(&str, &str)]) -> Served {
    let mut failures = Vec::new();
    for _ in 0..5 {
        match launch(binary, &format!("127.0.0.1:{}", free_port()), env).await {
            Ok(served) => return served,
            Err(e) => failures.push(e),
        }
    }
    panic!("{}", failures.join("\n\n"))
}

/// Start `binary --http addr` and wait for it to announce where it serves.
async fn launch(binary: &str, addr: &str, env: &[(&str, &str)]) -> Result<Served, String> {
    use std::io::BufRead;
    let mut child = Command::new(binary)
        .args(["--http", addr])
        // The address is announced at info level; `env` may still ask for more.
        .env("RUST_LOG", "info")
        .envs(env.iter().copied())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines, announced) = std::sync::mpsc::channel::<String>();
    // The reader keeps draining after the announcement: a full pipe would stall the server.
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let mut process = Running(child);
    let (mut written, mut metrics) = (Vec::new(), None);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        while let Ok(line) = announced.try_recv() {
            if let Some(url) = announced_url(&line, "serving metrics at ") {
                metrics = Some(url);
            }
            if let Some(url) = announced_url(&line, "serving MCP over Streamable HTTP at ") {
                return Ok(Served {
                    process,
                    url,
                    metrics,
                });
            }
            written.push(line);
        }
        let exited = process.0.try_wait().ok().flatten();
        if exited.is_some() || std::time::Instant::now() > deadline {
            process.kill();
            // What it wrote just before exiting may still be in the pipe.
            std::thread::sleep(Duration::from_millis(100));
            written.extend(announced.try_iter());
            return Err(format!(
                "{binary} did not start serving HTTP at {addr} ({}):\n{}",
                exited.map_or("silent for 30 s".to_owned(), |s| s.to_string()),
                written.join("\n")
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The URL after `marker` in a log line (plain or JSON), up to a space or a quote.
fn announced_url(line: &str, marker: &str) -> Option<String> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let end = rest.find([' ', '"', '\\']).unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

/// Start `binary` serving HTTP (see [`serve_http`]); the process and its endpoint URL.
pub async fn start_http(binary: &str, env: &[(&str, &str)]) -> (Running, String) {
    let served = serve_http(binary, env).await;
    (served.process, served.url)
}

/// A 2026-07-28 client of one endpoint.
pub struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub token: Option<String>,
    /// The `clientCapabilities` it declares.
    pub capabilities: Value,
}

pub struct Reply {
    pub status: u16,
    pub challenge: String,
    pub body: Value,
}

impl Reply {
    /// `result`, or a panic naming the error.
    pub fn result(&self) -> &Value {
        match self.body.get("result") {
            Some(result) => result,
            None => panic!("expected a result, got {}", self.body),
        }
    }
}

impl Client {
    pub fn new(url: &str) -> Client {
        Client {
            http: reqwest::Client::new(),
            url: url.to_owned(),
            token: None,
            capabilities: json!({}),
        }
    }

    /// The same client declaring the Tasks extension (and form elicitation).
    pub fn taking_tasks(mut self) -> Client {
        self.capabilities = json!({
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        });
        self
    }

    pub async fn send(&self, method: &str, name: Option<&str>, params: Value) -> Reply {
        self.send_with(method, name, params, &[]).await
    }

    /// `send` with `extra` headers (such as the `Mcp-Param-*` of a tool's mirrored
    /// arguments).
    pub async fn send_with(
        &self,
        method: &str,
        name: Option<&str>,
        mut params: Value,
        extra: &[(&str, &str)],
    ) -> Reply {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": self.capabilities
        });
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(message.to_string());
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        if let Some(token) = &self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        for (header, value) in extra {
            request = request.header(*header, *value);
        }
        let reply = request.send().await.unwrap();
        let status = reply.status().as_u16();
        let challenge = reply
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = serde_json::from_slice(&reply.bytes().await.unwrap()).unwrap_or(Value::Null);
        Reply {
            status,
            challenge,
            body,
        }
    }

    pub async fn call(&self, tool: &str, arguments: Value) -> Reply {
        self.send(
            "tools/call",
            Some(tool),
            json!({"name": tool, "arguments": arguments}),
        )
        .await
    }

    pub async fn read(&self, uri: &str) -> Reply {
        self.send("resources/read", Some(uri), json!({"uri": uri}))
            .await
    }

    /// `tasks/get`.
    pub async fn task(&self, id: &str) -> Reply {
        self.send("tasks/get", Some(id), json!({"taskId": id}))
            .await
    }

    /// Poll `tasks/get` until the task's status is `status` (within 20 s).
    pub async fn wait_for(&self, id: &str, status: &str) -> Value {
        let mut last = Value::Null;
        for _ in 0..400 {
            let reply = self.task(id).await;
            last = reply.body.clone();
            if reply.body["result"]["status"] == status {
                return reply.body["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("task {id} never reached {status}: last {last}");
    }
}
