//! The `inventory-api` program: `openapi` prints the document, `serve` binds, says where
//! on its first line, takes its key from `INVENTORY_API_KEY`, and keeps its data in the
//! `--db` file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

const PROGRAM: &str = env!("CARGO_BIN_EXE_inventory-api");

#[test]
fn openapi_prints_the_handlers_document() {
    let output = Command::new(PROGRAM)
        .arg("openapi")
        .output()
        .expect("run the program");
    assert!(output.status.success(), "{output:?}");
    let expected = inventory_api::openapi()
        .to_pretty_json()
        .expect("the document serializes");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{expected}\n")
    );
}

#[test]
fn a_wrong_command_line_is_refused_with_the_usage() {
    for args in [
        &[][..],
        &["run"][..],
        &["serve", "--port", "1"][..],
        &["serve", "--addr"][..],
        &["serve", "--addr", "localhost"][..],
        &["openapi", "extra"][..],
    ] {
        let output = Command::new(PROGRAM)
            .args(args)
            .output()
            .expect("run the program");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("usage: inventory-api serve"),
            "{args:?}: {stderr}"
        );
    }
}

/// A running `inventory-api serve`, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(db: &str, api_key: Option<&str>) -> Server {
        let mut command = Command::new(PROGRAM);
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--db", db])
            .stdout(Stdio::piped())
            .env_remove("INVENTORY_API_KEY");
        if let Some(key) = api_key {
            command.env("INVENTORY_API_KEY", key);
        }
        let mut child = command.spawn().expect("start the server");
        let stdout = child.stdout.take().expect("its stdout");
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("its first line");
        let addr = first
            .trim_end()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("first line {first:?}"))
            .to_owned();
        Server { child, addr }
    }

    /// One HTTP/1.1 request; the status and the body.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if !body.is_empty() {
            request.push_str("Content-Type: application/json\r\n");
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("receive");
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {answer:?}"));
        let body = answer
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default();
        (status, body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_takes_its_key_from_the_environment_with_dev_key_when_unset() {
    let server = Server::start(":memory:", None);
    assert_eq!(
        server
            .request("GET", "/items", &[("X-Api-Key", "dev-key")], "")
            .0,
        200
    );
    assert_eq!(server.request("GET", "/items", &[], "").0, 401);

    let server = Server::start(":memory:", Some("s3cret"));
    assert_eq!(
        server
            .request("GET", "/items", &[("X-Api-Key", "dev-key")], "")
            .0,
        401
    );
    let (status, body) = server.request("GET", "/items", &[("X-Api-Key", "s3cret")], "");
    assert_eq!(status, 200);
    let page: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(page["total"], 0);
}

#[test]
fn serve_keeps_its_items_in_the_db_file() {
    let db = concat!(env!("CARGO_TARGET_TMPDIR"), "/inventory-api-cli.db");
    let _ = std::fs::remove_file(db);
    let key = [("X-Api-Key", "dev-key"), ("Idempotency-Key", "cli-1")];
    let item = r#"{"name":"Washer","sku":"W-8","quantity":100,"priceCents":5,"tags":[],"category":"parts"}"#;

    let server = Server::start(db, None);
    let (status, created) = server.request("POST", "/items", &key, item);
    assert_eq!(status, 201, "{created}");
    let id = serde_json::from_str::<serde_json::Value>(&created).expect("JSON")["id"].clone();
    drop(server);

    let server = Server::start(db, None);
    let (status, body) = server.request("GET", &format!("/items/{id}"), &key[..1], "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).expect("JSON")["sku"],
        "W-8"
    );
    // The stored answer survived the restart too.
    let (status, replayed) = server.request("POST", "/items", &key, item);
    assert_eq!((status, &replayed), (201, &created));
    drop(server);
    let _ = std::fs::remove_file(db);
}
