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

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Start `binary` serving HTTP on a free port with `env`; its endpoint URL.
pub async fn start_http(binary: &str, env: &[(&str, &str)]) -> (Running, String) {
    let port = free_port();
    let child = Command::new(binary)
        .args(["--http", &format!("127.0.0.1:{port}")])
        .envs(env.iter().copied())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example starts");
    wait_for_port(port).await;
    (Running(child), format!("http://127.0.0.1:{port}/mcp"))
}

/// Wait (up to 5 s) until something listens on loopback `port`.
pub async fn wait_for_port(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
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

    pub async fn send(&self, method: &str, name: Option<&str>, mut params: Value) -> Reply {
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
