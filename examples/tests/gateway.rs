//! The `gateway` example as a process over HTTP, in front of a server we did not write
//! (`tests/servers/legacy-only.mjs`, handshake era only, over stdio), called by the
//! framework's own `Client`: each tenant with its API key is served in 2026-07-28 and
//! reaches the upstream's tools; a key the gateway does not know is refused. And in front
//! of a REST API described by an OpenAPI document (`--openapi`).
//!
//! The legacy upstream needs node and tests/servers/node_modules, so its test is ignored by
//! default: `MCP_TEST_SERVERS=1 cargo test --workspace --test gateway -- --ignored`.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Era};
use serde_json::json;

mod common;
use common::Running;

const ACME_KEY: &str = "gw-key-acme-0123456789";
const GLOBEX_KEY: &str = "gw-key-globex-0123456789";

/// The tenants: `acme` and `globex`, each with its key.
fn tenants() -> String {
    format!("acme:{ACME_KEY}:upstream-acme,globex:{GLOBEX_KEY}:upstream-globex")
}

/// Start the gateway over HTTP with `legacy-only.mjs` as the upstream `legacy`; the
/// process and its endpoint.
fn start_gateway() -> (Running, String) {
    assert!(
        std::env::var_os("MCP_TEST_SERVERS").is_some(),
        "needs node and tests/servers/node_modules: set MCP_TEST_SERVERS=1 after `npm ci` in tests/servers"
    );
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/servers/legacy-only.mjs");
    start(
        &[
            "--upstream".into(),
            format!("legacy=node {} --stdio", script.display()),
        ],
        &[("GATEWAY_TENANTS", tenants())],
    )
}

/// Start the gateway over HTTP with these arguments and environment variables; the
/// process and its endpoint.
fn start(args: &[String], env: &[(&str, String)]) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(args)
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .envs(env.iter().map(|(name, value)| (name, value)))
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gateway starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines, announced) = std::sync::mpsc::channel::<String>();
    // Keep draining: a full pipe would stall the gateway.
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let running = Running(child);
    let marker = "serving MCP over Streamable HTTP at ";
    let mut written = Vec::new();
    // A bound so a broken start fails instead of hanging.
    while let Ok(line) = announced.recv_timeout(Duration::from_secs(60)) {
        if let Some(at) = line.find(marker) {
            let rest = &line[at + marker.len()..];
            let end = rest.find([' ', '"', '\\']).unwrap_or(rest.len());
            return (running, rest[..end].to_owned());
        }
        written.push(line);
    }
    panic!("the gateway did not start:\n{}", written.join("\n"));
}

#[tokio::test]
#[ignore = "needs node and tests/servers/node_modules: MCP_TEST_SERVERS=1 (scripts/test-all.sh installs them)"]
async fn tenants_call_a_legacy_only_upstream_through_the_gateway_in_2026_07_28() {
    let (_gateway, url) = start_gateway();
    for (key, a) in [(ACME_KEY, 2), (GLOBEX_KEY, 40)] {
        let client = Client::http(&url).bearer(key).connect().await.unwrap();
        assert_eq!(client.era(), Era::Modern);
        assert_eq!(client.protocol_version(), "2026-07-28");
        let names: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        assert!(names.iter().any(|n| n == "legacy.add"), "{names:?}");
        assert_eq!(names.len(), 17, "{names:?}");
        let result = client
            .call_tool("legacy.add", json!({"a": a, "b": 1}))
            .await
            .unwrap();
        assert_eq!(result["structuredContent"]["sum"], a + 1, "{result}");
        match client.call_tool("legacy.fail", json!({})).await {
            Err(ClientError::Business(result)) => {
                assert_eq!(result["content"][0]["text"], "this tool always fails")
            }
            other => panic!("{other:?}"),
        }
        client.close().await;
    }
    // A key the gateway does not know: refused at the door.
    let refused = Client::http(&url)
        .bearer("gw-key-unknown-0123456789")
        .connect()
        .await;
    match refused {
        Err(ClientError::Transport { status, .. }) => assert_eq!(status, Some(401)),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("an unknown key connected"),
    }
}

/// A REST API's OpenAPI document: one operation, an API key in a header.
const SHOP: &str = r#"
openapi: 3.0.3
info: { title: Shop, version: "1" }
components:
  securitySchemes:
    apiKey: { type: apiKey, in: header, name: X-Api-Key }
security: [{ apiKey: [] }]
paths:
  /items/{itemId}:
    get:
      operationId: getItem
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: The item.
          content:
            application/json:
              schema: { type: object, properties: { name: { type: string } } }
"#;

#[tokio::test]
async fn an_openapi_document_is_served_as_tools_calling_the_api_with_the_gateway_s_key() {
    // The API: it records each request's path and credentials, and answers one item.
    type Seen = Arc<Mutex<Vec<(String, Option<String>, Option<String>)>>>;
    let seen: Seen = Arc::default();
    let recorded = seen.clone();
    let api = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let seen = recorded.clone();
        async move {
            let header = |name: &str| {
                request
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            seen.lock().unwrap().push((
                request.uri().to_string(),
                header("x-api-key"),
                header("authorization"),
            ));
            axum::Json(json!({"name": "bolt"}))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, api).await.unwrap() });

    let dir = std::env::temp_dir().join(format!("gateway-openapi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let document = dir.join("shop.yaml");
    std::fs::write(&document, SHOP).unwrap();
    let (_gateway, url) = start(
        &[
            "--openapi".into(),
            format!("shop={},http://{address}/v1", document.display()),
        ],
        &[
            ("GATEWAY_TENANTS", tenants()),
            ("SHOP_API_KEY_KEY", "the-gateway-s-key".into()),
        ],
    );
    let client = Client::http(&url).bearer(ACME_KEY).connect().await.unwrap();
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(names, ["shop.get_item"]);
    let result = client
        .call_tool("shop.get_item", json!({"itemId": 7}))
        .await
        .unwrap();
    assert_eq!(result["structuredContent"], json!({"name": "bolt"}));
    client.close().await;
    // The gateway's key, never the caller's token.
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "/v1/items/7".to_owned(),
            Some("the-gateway-s-key".to_owned()),
            None
        )]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
