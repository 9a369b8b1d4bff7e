//! The `tenants` example behind the development issuer, as separate processes talking real
//! HTTP: tokens fetched from the issuer, keys fetched from its JWKS, and one tenant's token
//! unable to read, list or call another tenant's data (S-175, S-244, S-326, S-343). Then
//! the same server on stdio, with the caller named by the environment (S-023).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

mod common;
use common::{Client, Running};

/// Start the development issuer; its URL.
fn start_issuer() -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dev-issuer"))
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("dev-issuer starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("its banner");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the issuer URL in the banner")
        .to_owned();
    (Running(child), url)
}

/// Start `tenants` over HTTP trusting `issuer`; its endpoint URL. It names itself (the
/// audience of its tokens) after its `--http` address, so the port is chosen here.
async fn start_tenants(issuer: &str) -> (Running, String) {
    let served = common::serve_http_on_a_picked_port(
        env!("CARGO_BIN_EXE_tenants"),
        &[("MCP_ISSUER", issuer)],
    )
    .await;
    (served.process, served.url)
}

/// A token from the issuer's token endpoint.
async fn token(http: &reqwest::Client, issuer: &str, body: Value) -> String {
    let reply = http
        .post(format!("{issuer}/token"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let value: Value = serde_json::from_slice(&reply.bytes().await.unwrap()).unwrap();
    value["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn tenants_over_http_see_only_their_own_orders() {
    let (_issuer_process, issuer) = start_issuer();
    let (_server, url) = start_tenants(&issuer).await;
    let http = reqwest::Client::new();
    let as_tenant = |tenant: &str, sub: &str, scope: &str| {
        let (http, issuer, url) = (http.clone(), issuer.clone(), url.clone());
        let body = json!({"sub": sub, "tenant": tenant, "scope": scope, "resource": url});
        async move {
            let token = token(&http, &issuer, body).await;
            Client {
                token: Some(token),
                ..Client::new(&url)
            }
        }
    };

    // The metadata names the issuer; without a token nothing is served.
    let metadata: Value = serde_json::from_slice(
        &http
            .get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(metadata["authorization_servers"], json!([issuer]));
    let anonymous = Client::new(&url);
    let refused = anonymous.send("tools/list", None, json!({})).await;
    assert_eq!(refused.status, 401);
    assert!(refused.challenge.contains("resource_metadata="));

    let acme = as_tenant("acme", "wile", "orders:read orders:write").await;
    let listed = acme.send("tools/list", None, json!({})).await;
    let names: Vec<&str> = listed.body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["list_orders", "place_order"],
        "cancel_order needs orders:admin"
    );
    assert_eq!(listed.body["result"]["cacheScope"], "private");

    let placed = acme
        .call("place_order", json!({"item": "tnt", "quantity": 3}))
        .await;
    assert_eq!(placed.body["result"]["structuredContent"]["id"], 3);
    assert_eq!(
        placed.body["result"]["structuredContent"]["placed_by"],
        "wile"
    );
    let mine = acme.call("list_orders", json!({})).await;
    let orders = mine.body["result"]["structuredContent"].clone();
    assert_eq!(orders["tenant"], "acme");
    assert_eq!(orders["orders"].as_array().unwrap().len(), 3);

    let globex = as_tenant("globex", "hank", "orders:read").await;
    let theirs = globex.call("list_orders", json!({})).await;
    let orders = theirs.body["result"]["structuredContent"]["orders"].clone();
    assert_eq!(
        orders,
        json!([{"id": 1, "item": "magnet", "quantity": 40, "placed_by": "hank"}])
    );
    // Reading or changing acme's orders is refused.
    let foreign = globex.read("orders://acme/1").await;
    assert_eq!(foreign.body["error"]["code"], -31403, "{}", foreign.body);
    let own = globex.read("orders://globex/1").await;
    assert_eq!(own.status, 200);
    let write = globex
        .call("place_order", json!({"item": "x", "quantity": 1}))
        .await;
    assert_eq!(write.status, 403);
    assert!(write.challenge.contains("error=\"insufficient_scope\""));
    assert!(write.challenge.contains("scope=\"orders:write\""));
    let admin = as_tenant("globex", "hank", "orders").await;
    let cancel = admin.call("cancel_order", json!({"id": 1})).await;
    assert_eq!(
        cancel.body["result"]["content"][0]["text"],
        "Order 1 of globex cancelled."
    );
    let other = admin.call("cancel_order", json!({"id": 2})).await;
    assert_eq!(
        other.body["result"]["isError"], true,
        "acme's order 2 is not globex's"
    );
    let review = acme
        .send(
            "prompts/get",
            Some("review_orders"),
            json!({"name": "review_orders"}),
        )
        .await;
    let text = review.body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains("anvil") && !text.contains("magnet"), "{text}");

    // S-326: a token minted for another server (its audience) is refused.
    let elsewhere = token(
        &http,
        &issuer,
        json!({"sub": "wile", "tenant": "acme", "scope": "orders:read", "resource": "http://elsewhere.example/mcp"}),
    )
    .await;
    let misdirected = Client {
        token: Some(elsewhere),
        ..Client::new(&url)
    };
    let reply = misdirected.call("list_orders", json!({})).await;
    assert_eq!(reply.status, 401);
    assert!(reply.challenge.contains("not issued for this server"));
}

fn stdio_call(env: &[(&str, &str)], tool: &str) -> Result<Value, String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenants"))
        .arg("--stdio")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tenants starts");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool,
        "arguments": if tool == "place_order" { json!({"item": "anvil", "quantity": 1}) } else { json!({}) },
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut stdin = child.stdin.take().unwrap();
    let _ = writeln!(stdin, "{request}");
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().next() {
        Some(line) => Ok(serde_json::from_str(line).unwrap()),
        None => Err(String::from_utf8_lossy(&output.stderr).into_owned()),
    }
}

#[tokio::test]
async fn on_stdio_the_host_names_the_caller() {
    let env = [
        ("MCP_PRINCIPAL", "wile"),
        ("MCP_TENANT", "acme"),
        ("MCP_SCOPES", "orders:read"),
    ];
    let listed = stdio_call(&env, "list_orders").unwrap();
    assert_eq!(listed["result"]["structuredContent"]["tenant"], "acme");
    let refused = stdio_call(&env, "place_order").unwrap();
    assert_eq!(refused["error"]["code"], -31403);
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["orders:write"])
    );
    let nobody = stdio_call(&[], "list_orders").unwrap();
    assert_eq!(nobody["error"]["code"], -31403);
    // Scopes without a subject would leave the caller anonymous and holding none of them:
    // the server does not start, and says what to set.
    let scopes_only = stdio_call(&[("MCP_SCOPES", "orders:read")], "list_orders").unwrap_err();
    assert!(
        scopes_only.contains("MCP_SCOPES") && scopes_only.contains("set MCP_PRINCIPAL too"),
        "{scopes_only}"
    );

    // A token in the environment, checked against the issuer's keys.
    let (_issuer_process, issuer) = start_issuer();
    let http = reqwest::Client::new();
    let minted = token(
        &http,
        &issuer,
        json!({"sub": "hank", "tenant": "globex", "scope": "orders:read orders:write", "resource": "http://127.0.0.1/mcp"}),
    )
    .await;
    let with_token = [
        ("MCP_ISSUER", issuer.as_str()),
        ("MCP_ACCESS_TOKEN", minted.as_str()),
    ];
    let placed = stdio_call(&with_token, "place_order").unwrap();
    assert_eq!(placed["result"]["structuredContent"]["placed_by"], "hank");
    let forged = [
        ("MCP_ISSUER", issuer.as_str()),
        ("MCP_ACCESS_TOKEN", "not.a.token"),
    ];
    let error = stdio_call(&forged, "list_orders").unwrap_err();
    assert!(
        error.contains("MCP_ACCESS_TOKEN: the access token was refused"),
        "{error}"
    );
}
