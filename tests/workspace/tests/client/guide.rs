//! The code of the book's "Calling other servers" chapter, run against the `interactive`
//! fixture server as a real process, over stdio and over HTTP.

// ANCHOR: uses
use std::time::Duration;

use futures_util::StreamExt;
use mcp_runtime::client::{Cache, Client, ClientError, ContentPolicy, Era, Layer, Limits};
use serde_json::{json, Value};
use tokio::process::Command;
// ANCHOR_END: uses

const INTERACTIVE: &str = env!("CARGO_BIN_EXE_interactive");

// ANCHOR: connect
/// Starts the server `program`, then sends 500 cents to ACME with its `transfer` tool,
/// confirming on the user's behalf when the server asks.
async fn send_money(program: &str) -> Result<String, ClientError> {
    let client = Client::stdio(Command::new(program))
        .timeout(Duration::from_secs(30))
        .on_elicit(|question: Value| async move {
            // A host shows `question["message"]` and the form in
            // `question["requestedSchema"]` to its user; this one always agrees.
            println!("the server asks: {}", question["message"]);
            json!({"action": "accept", "content": {"confirm": true}})
        })
        .connect()
        .await?;
    println!(
        "speaking {} ({:?})",
        client.protocol_version(),
        client.era()
    );
    let result = client
        .call_tool("transfer", json!({"amount": 500, "to": "ACME"}))
        .await?;
    client.close().await;
    Ok(result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned())
}
// ANCHOR_END: connect

// ANCHOR: list
/// The names of every tool of the server at `url`, page after page.
async fn tool_names(url: &str) -> Result<Vec<String>, ClientError> {
    let client = Client::http(url).connect().await?;
    let mut names = Vec::new();
    let mut tools = std::pin::pin!(client.tools());
    while let Some(tool) = tools.next().await {
        names.push(tool?["name"].as_str().unwrap_or_default().to_owned());
    }
    Ok(names)
}
// ANCHOR_END: list

// ANCHOR: host
/// A client for one tenant of a host: the server started with the tenant's token, a cache
/// shared with the other tenants' clients (public results only), tighter limits than the
/// defaults on what the server may send, and a limit on what reaches the model.
async fn tenant_client(
    mut server: Command,
    token: &str,
    shared: &Cache,
) -> Result<Client, ClientError> {
    // Over stdio a server of this framework reads its caller's token from the environment;
    // the cache takes the variables set here as the credential.
    server.env("MCP_ACCESS_TOKEN", token);
    Client::stdio(server)
        .cache(shared)
        .timeout(Duration::from_secs(20))
        .limits(Limits::new().max_message_bytes(4 << 20).max_pages(100))
        .content_policy(
            ContentPolicy::new()
                .max_block_bytes(256 * 1024)
                .allow_mime(["text/*", "image/png", "image/jpeg"]),
        )
        .connect()
        .await
}
// ANCHOR_END: host

// ANCHOR: errors
/// What went wrong, said for the person who has to act on it.
fn explain(error: &ClientError) -> String {
    match error.layer() {
        Layer::Transport => format!("The server could not be reached: {error}"),
        Layer::JsonRpc => format!("The server did not understand the request: {error}"),
        Layer::Mcp => format!("The server refused the request: {error}"),
        Layer::Business => format!("The tool failed: {error}"),
    }
}
// ANCHOR_END: errors

#[tokio::test]
async fn the_chapters_call_confirms_and_sends() {
    let sent = send_money(INTERACTIVE).await.expect("the call succeeds");
    assert!(sent.starts_with("Sent 500 cents to ACME"), "{sent}");
}

#[tokio::test]
async fn the_chapters_listing_follows_every_page() {
    let mut server = tokio::process::Command::new(INTERACTIVE)
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let url = crate::common::announced_url(&mut server).await;
    let names = tool_names(&url).await.expect("the listing");
    assert!(names.contains(&"transfer".to_owned()), "{names:?}");
    assert!(names.contains(&"crunch".to_owned()), "{names:?}");
    let direct = Client::http(&url).connect().await.expect("connects");
    assert_eq!(direct.era(), Era::Modern);
    assert_eq!(
        names.len(),
        direct.list_tools().await.expect("listing").len()
    );
}

#[tokio::test]
async fn the_hosts_clients_share_a_cache() {
    let shared = Cache::new();
    // The fixture checks tokens against API_KEY when it is set.
    let mut server = Command::new(INTERACTIVE);
    server.env("API_KEY", "acme-token-7f3a9c2e51d8");
    let acme = tenant_client(server, "acme-token-7f3a9c2e51d8", &shared)
        .await
        .expect("connects");
    let listed = acme.list_tools().await.expect("the list");
    // The discovery and the list pages are kept, by the hints the server gave them.
    assert!(!shared.is_empty());
    assert_eq!(acme.list_tools().await.expect("the list again"), listed);
    acme.close().await;
}

#[tokio::test]
async fn each_layer_is_explained() {
    let gone = Client::http("http://127.0.0.1:9/mcp").connect().await.err();
    let gone = gone.expect("nothing listens on port 9");
    assert!(
        explain(&gone).starts_with("The server could not be reached"),
        "{gone}"
    );

    let client = Client::stdio(Command::new(INTERACTIVE))
        .connect()
        .await
        .expect("connects");
    let unknown_method = client
        .request("no/such/method", json!({}))
        .await
        .unwrap_err();
    assert!(explain(&unknown_method).starts_with("The server did not understand"));
    let unknown_tool = client
        .call_tool("no_such_tool", json!({}))
        .await
        .unwrap_err();
    assert!(
        explain(&unknown_tool).starts_with("The server refused"),
        "{unknown_tool}"
    );
    let failed = client.call_tool("nickname", json!({})).await;
    // `nickname` needs an elicitation handler; this client has none.
    let failed = failed.unwrap_err();
    assert_eq!(failed.layer(), Layer::Mcp, "{failed}");
    client.close().await;
}
