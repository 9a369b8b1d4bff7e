//! Calling other APIs as the caller: token exchange and connected accounts.
//!
//! Here, against a scripted authorization server on a loopback port (what it answers is
//! the test's to choose): how each failure answers, that API keys are never exchanged, the
//! vault's rows, revocation, refresh with rotation, and a second instance sharing the
//! store. Against a real authorization server (oidc-provider, `tests/auth/`), the ignored
//! tests at the end, which the test command runs with it started.

// ANCHOR: uses
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use mcp_runtime::client::{Client, Era};
use mcp_runtime::downstream::{AccountProvider, Accounts, ClientAuth, Downstream, TokenExchange};
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::prelude::*;
use mcp_runtime::store::SqliteStore;
use mcp_runtime::SealKey;
use serde_json::{json, Value};
// ANCHOR_END: uses

// ANCHOR: as_caller
/// Calls `api` with a token for `audience` (and `scopes`) exchanged for the caller's.
#[tool]
async fn as_caller(
    ctx: RequestContext,
    api: String,
    audience: String,
    scopes: Vec<String>,
) -> Result<Value, ToolError> {
    let token = ctx
        .downstream(&Downstream::exchange(audience).scopes(scopes))
        .await?;
    fetch(&api, token.secret()).await
}
// ANCHOR_END: as_caller

// ANCHOR: with_account
/// Calls `api` with the caller's connected `saas` account.
#[tool]
async fn with_account(ctx: RequestContext, api: String) -> Result<Value, ToolError> {
    let token = ctx.downstream(&Downstream::account("saas")).await?;
    fetch(&api, token.secret()).await
}

/// The caller's connected accounts.
#[tool]
async fn connections(ctx: RequestContext) -> Result<Value, ToolError> {
    Ok(json!({ "accounts": ctx.connected_accounts().await? }))
}

/// Forgets the caller's connection at `provider`.
#[tool]
async fn disconnect(ctx: RequestContext, provider: String) -> Result<Value, ToolError> {
    Ok(json!({ "revoked": ctx.disconnect_account(&provider).await? }))
}
// ANCHOR_END: with_account

/// GET `url` with `token` as the bearer; its JSON, or its status as a business error.
async fn fetch(url: &str, token: &str) -> Result<Value, ToolError> {
    let response = reqwest::Client::new()
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| ToolError::new(format!("the API could not be reached: {e}")))?;
    let status = response.status();
    let bytes = response.bytes().await.unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if status.is_success() {
        Ok(body)
    } else {
        Err(ToolError::new(format!("the API answered {status}: {body}")))
    }
}

// ---- a scripted authorization server and API -----------------------------------------

/// What the scripted authorization server answers and what reached it.
#[derive(Default)]
struct Script {
    /// The token endpoint's answer: status and body (200 with a token by default).
    answer: Option<(u16, Value)>,
    /// Every form the token endpoint received, decoded.
    forms: Vec<BTreeMap<String, String>>,
    /// Every Authorization header the API received.
    seen: Vec<String>,
    /// Tokens issued so far.
    issued: u32,
    /// The issued tokens' lifetime (300 s when not set).
    expires_in: Option<u64>,
}

type Shared = Arc<Mutex<Script>>;

async fn token_endpoint(State(script): State<Shared>, body: String) -> axum::response::Response {
    let form: BTreeMap<String, String> = body
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), percent_decode(v)))
        .collect();
    let mut script = script.lock().unwrap();
    script.forms.push(form.clone());
    if let Some((status, body)) = script.answer.clone() {
        let mut response =
            (StatusCode::from_u16(status).unwrap(), axum::Json(body)).into_response();
        if status == 307 {
            // Elsewhere, with the form and the credentials, if it were followed.
            response
                .headers_mut()
                .insert("location", "/api".parse().unwrap());
        }
        return response;
    }
    script.issued += 1;
    let n = script.issued;
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    let mut answer = json!({
        "access_token": format!("issued-{n}-for-{}", form.get("resource").or(form.get("audience")).map_or("saas", |v| v)),
        "token_type": "Bearer",
        "expires_in": script.expires_in.unwrap_or(300),
    });
    if grant != "urn:ietf:params:oauth:grant-type:token-exchange" {
        answer["refresh_token"] = json!(format!("refresh-{n}"));
        answer["scope"] = json!("saas:read");
    }
    axum::Json(answer).into_response()
}

async fn api(State(script): State<Shared>, headers: axum::http::HeaderMap) -> axum::Json<Value> {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    script.lock().unwrap().seen.push(auth.clone());
    axum::Json(json!({ "authorization": auth }))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.replace('+', " ").into_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) =
                u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or(""), 16)
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// The scripted authorization server (`/token`) and API (`/api`) on a loopback port.
async fn scripted() -> (SocketAddr, Shared) {
    let script: Shared = Arc::default();
    let router = axum::Router::new()
        .route("/token", axum::routing::post(token_endpoint))
        .route("/api", axum::routing::get(api))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (addr, script)
}

/// A server of this module's tools whose callers' tokens a test issuer signs, with
/// `configure` applied; its address, the issuer, its resource URI.
async fn server(
    configure: impl FnOnce(Server) -> Server,
) -> (SocketAddr, mcp_runtime::testing::TestIssuer, String) {
    let issuer = mcp_runtime::testing::TestIssuer::new("https://issuer.test").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let server = Server::new("downstream", "1.0.0")
        .only_module(module_path!())
        .oauth(
            ProtectedResource::new(&resource).authorization_server("https://issuer.test"),
            issuer.verifier(&resource).unwrap(),
        );
    let addr = crate::common::serve_on(listener, configure(server).build().unwrap()).await;
    (addr, issuer, resource)
}

async fn client(addr: SocketAddr, token: &str, era: Era) -> Client {
    Client::http(format!("http://{addr}/mcp"))
        .bearer(token)
        .pin(era)
        .capabilities(json!({"elicitation": {"url": {}}}))
        .connect()
        .await
        .unwrap()
}

fn eras() -> Vec<Era> {
    let mut eras = vec![Era::Modern];
    if cfg!(feature = "legacy") {
        eras.push(Era::Legacy);
    }
    eras
}

// ANCHOR: exchange_at
fn exchange_at(addr: SocketAddr) -> TokenExchange {
    TokenExchange::new(
        format!("http://{addr}/token"),
        ClientAuth::secret_basic("mcp-server", "s3cret"),
    )
}
// ANCHOR_END: exchange_at

// ---- token exchange --------------------------------------------------------------------

#[tokio::test]
async fn the_exchanged_token_reaches_the_api_and_the_callers_own_never_does() {
    let (as_addr, script) = scripted().await;
    let file = std::env::temp_dir().join(format!("mcp-exchange-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let store = SqliteStore::open(&file).unwrap();
    let (addr, issuer, resource) =
        server(|s| s.exchange_tokens(exchange_at(as_addr)).store(store)).await;
    let alice = issuer.token(&resource).subject("alice").mint();
    for era in eras() {
        let client = client(addr, &alice, era).await;
        let api = format!("http://{as_addr}/api");
        let result = client
            .call_tool(
                "as_caller",
                json!({"api": api, "audience": "https://orders.test", "scopes": ["orders:read"]}),
            )
            .await
            .unwrap();
        assert_eq!(
            result["structuredContent"]["authorization"], "Bearer issued-1-for-https://orders.test",
            "{era:?}: {result}"
        );
    }
    let script = script.lock().unwrap();
    // One exchange for both calls: the token is kept per caller, audience and scopes.
    assert_eq!(script.forms.len(), 1, "{:?}", script.forms);
    let form = &script.forms[0];
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(form["subject_token"], alice);
    assert_eq!(
        form["subject_token_type"],
        "urn:ietf:params:oauth:token-type:access_token"
    );
    assert_eq!(form["resource"], "https://orders.test");
    assert_eq!(form["scope"], "orders:read");
    // The caller's token went to the authorization server, never to the API.
    assert!(
        script.seen.iter().all(|seen| !seen.contains(&alice)),
        "{:?}",
        script.seen
    );
    // Exchanged tokens live in memory only: the store never saw one.
    assert!(stored_rows(&file)
        .iter()
        .all(|row| !row.contains("issued-")));
}

#[tokio::test]
async fn a_second_caller_gets_a_token_of_their_own() {
    let (as_addr, script) = scripted().await;
    let (addr, issuer, resource) = server(|s| s.exchange_tokens(exchange_at(as_addr))).await;
    let arguments = json!({"api": format!("http://{as_addr}/api"), "audience": "https://orders.test", "scopes": []});
    let mut seen = Vec::new();
    for subject in ["alice", "carol"] {
        let token = issuer.token(&resource).subject(subject).mint();
        let result = client(addr, &token, Era::Modern)
            .await
            .call_tool("as_caller", arguments.clone())
            .await
            .unwrap();
        seen.push(
            result["structuredContent"]["authorization"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    // Two callers, two exchanges, two tokens.
    assert_ne!(seen[0], seen[1]);
    assert_eq!(script.lock().unwrap().forms.len(), 2);
}

#[tokio::test]
async fn a_refusal_is_a_business_error_and_an_outage_a_transport_error() {
    let (as_addr, script) = scripted().await;
    let (addr, issuer, resource) = server(|s| s.exchange_tokens(exchange_at(as_addr))).await;
    let token = issuer.token(&resource).subject("bob").mint();
    let arguments = json!({"api": format!("http://{as_addr}/api"), "audience": "https://orders.test", "scopes": ["orders:write"]});
    for era in eras() {
        let client = client(addr, &token, era).await;
        // The user has not consented: a result the model reads, naming what was refused.
        // The description's escape sequence does not reach it.
        script.lock().unwrap().answer = Some((
            400,
            json!({"error": "invalid_scope", "error_description": "bob has not consented to orders:write\u{1b}[2J"}),
        ));
        let refused = match client.call_tool("as_caller", arguments.clone()).await {
            Err(mcp_runtime::client::ClientError::Business(result)) => result,
            other => panic!("{other:?}"),
        };
        assert_eq!(refused["isError"], true, "{refused}");
        let text = refused["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("invalid_scope") && text.contains("orders:write"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "{text}");
        assert_eq!(
            refused["structuredContent"]["error"]["detail"]["code"],
            "downstream_refused"
        );
        // The authorization server fails: a protocol error saying it was the transport.
        script.lock().unwrap().answer = Some((503, json!({})));
        let failed = client
            .call_tool("as_caller", arguments.clone())
            .await
            .unwrap_err();
        let failed = failed.to_string();
        assert!(
            failed.contains("transport error") && failed.contains("503"),
            "{failed}"
        );
        // A redirect is not followed: the credentials and the caller's token go to the
        // configured endpoint alone.
        script.lock().unwrap().answer = Some((307, json!({})));
        let redirected = client
            .call_tool("as_caller", arguments.clone())
            .await
            .unwrap_err();
        assert!(
            redirected.to_string().contains("answered HTTP 307"),
            "{redirected}"
        );
        // An answer past 64 KiB is not read on.
        script.lock().unwrap().answer = Some((200, json!({"access_token": "x".repeat(70_000)})));
        let huge = client
            .call_tool("as_caller", arguments.clone())
            .await
            .unwrap_err();
        assert!(huge.to_string().contains("exceeds 65536 bytes"), "{huge}");
        // This server's own credentials refused: the operators' fault, said as such.
        script.lock().unwrap().answer = Some((401, json!({"error": "invalid_client"})));
        let misconfigured = client
            .call_tool("as_caller", arguments.clone())
            .await
            .unwrap_err();
        assert!(
            misconfigured.to_string().contains("client registration"),
            "{misconfigured}"
        );
    }
    // Nothing reached the API.
    assert!(script.lock().unwrap().seen.is_empty());
}

#[tokio::test]
async fn an_unreachable_authorization_server_is_a_transport_error() {
    // A port nothing listens on.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed_addr = closed.local_addr().unwrap();
    drop(closed);
    let (addr, issuer, resource) = server(|s| s.exchange_tokens(exchange_at(closed_addr))).await;
    let token = issuer.token(&resource).subject("alice").mint();
    let client = client(addr, &token, Era::Modern).await;
    let error = client
        .call_tool("as_caller", json!({"api": "http://127.0.0.1:9/api", "audience": "https://orders.test", "scopes": []}))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("could not be reached") && error.contains("transport error"),
        "{error}"
    );
}

#[tokio::test]
async fn api_keys_are_never_exchanged() {
    let (as_addr, script) = scripted().await;
    let keys = ApiKeys::new()
        .key("mk_live_0123456789abcdef", Principal::new("robot"))
        .unwrap();
    let app = Server::new("downstream", "1.0.0")
        .only_module(module_path!())
        .verify_tokens(keys)
        .exchange_tokens(exchange_at(as_addr))
        .build()
        .unwrap();
    let addr = crate::common::serve(app).await;
    let client = client(addr, "mk_live_0123456789abcdef", Era::Modern).await;
    let error = client
        .call_tool("as_caller", json!({"api": format!("http://{as_addr}/api"), "audience": "https://orders.test", "scopes": []}))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("no access token from an authorization server"),
        "{error}"
    );
    assert!(
        script.lock().unwrap().forms.is_empty(),
        "the API key was sent to the authorization server"
    );
}

#[test]
fn a_token_endpoint_beyond_this_machine_must_be_https() {
    let built = Server::new("downstream", "1.0.0")
        .only_module(module_path!())
        .exchange_tokens(TokenExchange::new(
            "http://auth.example.com/token",
            ClientAuth::secret_basic("c", "s"),
        ))
        .build();
    let Err(error) = built else {
        panic!("built with a plain-http token endpoint");
    };
    assert!(error.to_string().contains("https://"), "{error}");
}

// ---- connected accounts -------------------------------------------------------------

fn vault_key() -> SealKey {
    SealKey::parse(&"5a".repeat(32)).unwrap()
}

// ANCHOR: accounts
fn accounts(as_addr: SocketAddr, public_url: &str, key: SealKey) -> Accounts {
    Accounts::new(key, public_url).provider(
        AccountProvider::new(
            "saas",
            format!("http://{as_addr}/authorize"),
            format!("http://{as_addr}/token"),
            ClientAuth::secret_basic("saas-connect", "connect-secret"),
        )
        .scopes(["offline_access", "saas:read"])
        .resource("https://saas.test"),
    )
}
// ANCHOR_END: accounts

/// Two instances sharing one SQLite file and vault key; their addresses and the issuer.
async fn two_instances(
    as_addr: SocketAddr,
    file: &std::path::Path,
) -> (Vec<SocketAddr>, mcp_runtime::testing::TestIssuer, String) {
    let issuer = mcp_runtime::testing::TestIssuer::new("https://issuer.test").unwrap();
    // The resource (the tokens' audience) is the first instance's URL; the second serves
    // the same resource, as instances behind one balancer do.
    let first = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let public = format!("http://127.0.0.1:{}", first.local_addr().unwrap().port());
    let resource = format!("{public}/mcp");
    let mut addrs = Vec::new();
    let second = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    for listener in [first, second] {
        let app = Server::new("downstream", "1.0.0")
            .only_module(module_path!())
            .oauth(
                ProtectedResource::new(&resource).authorization_server("https://issuer.test"),
                issuer.verifier(&resource).unwrap(),
            )
            .allowed_hosts(["127.0.0.1"])
            .store(SqliteStore::open(file).unwrap())
            .accounts(accounts(as_addr, &public, vault_key()))
            .build()
            .unwrap();
        addrs.push(crate::common::serve_on(listener, app).await);
    }
    (addrs, issuer, resource)
}

/// The sign-in URL the server asks the client to open, and its query.
fn asked_url(question: &Value) -> (String, BTreeMap<String, String>) {
    let url = question["url"]
        .as_str()
        .unwrap_or_else(|| panic!("no URL: {question}"))
        .to_owned();
    let query = url.split_once('?').unwrap().1;
    let params = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), percent_decode(v)))
        .collect();
    (url, params)
}

#[tokio::test]
async fn a_connected_account_is_asked_for_stored_encrypted_shared_and_revoked() {
    let dir = std::env::temp_dir().join(format!("mcp-vault-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vault.db");
    let _ = std::fs::remove_file(&file);
    let (as_addr, script) = scripted().await;
    let (addrs, issuer, resource) = two_instances(as_addr, &file).await;
    let alice = issuer
        .token(&resource)
        .subject("alice")
        .tenant("acme")
        .mint();
    let api = format!("http://{as_addr}/api");
    for era in eras() {
        let _ = std::fs::remove_file(dir.join("unused"));
        // Not connected: the call asks the client to open the provider's sign-in. The
        // answer here plays the browser: it follows the link to the callback with a code.
        let callback_hit = Arc::new(Mutex::new(None::<String>));
        let hit = callback_hit.clone();
        let first = Client::http(format!("http://{}/mcp", addrs[0]))
            .bearer(&alice)
            .pin(era)
            .capabilities(json!({"elicitation": {"url": {}}}))
            .on_elicit(move |question: Value| {
                let hit = hit.clone();
                async move {
                    let (_, params) = asked_url(&question);
                    assert_eq!(params["response_type"], "code");
                    assert_eq!(params["code_challenge_method"], "S256");
                    assert_eq!(params["resource"], "https://saas.test");
                    assert_eq!(params["scope"], "offline_access saas:read");
                    let callback = format!(
                        "{}?code=the-code&state={}",
                        params["redirect_uri"],
                        url_encode(&params["state"])
                    );
                    let page = reqwest::get(&callback).await.unwrap();
                    let status = page.status();
                    *hit.lock().unwrap() = Some(format!("{status} {}", page.text().await.unwrap()));
                    json!({"action": "accept"})
                }
            })
            .connect()
            .await
            .unwrap();
        let result = first
            .call_tool("with_account", json!({"api": api}))
            .await
            .unwrap();
        let page = callback_hit
            .lock()
            .unwrap()
            .clone()
            .expect("the sign-in was not asked for");
        assert!(
            page.starts_with("200") && page.contains("is connected"),
            "{page}"
        );
        let authorization = result["structuredContent"]["authorization"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            authorization.starts_with("Bearer issued-"),
            "{era:?}: {result}"
        );
        {
            let script = script.lock().unwrap();
            let form = script.forms.last().unwrap();
            assert_eq!(form["grant_type"], "authorization_code");
            assert_eq!(form["code"], "the-code");
            assert!(form["code_verifier"].len() >= 43, "{form:?}");
        }
        // The second instance sees the connection, without asking.
        let second = client(addrs[1], &alice, era).await;
        let again = second
            .call_tool("with_account", json!({"api": api}))
            .await
            .unwrap();
        assert_eq!(
            again["structuredContent"]["authorization"],
            authorization.as_str()
        );
        let listed = second.call_tool("connections", json!({})).await.unwrap();
        assert_eq!(
            listed["structuredContent"]["accounts"][0]["provider"], "saas",
            "{listed}"
        );
        // The store holds ciphertext only: no token, no subject.
        let rows = stored_rows(&file);
        let vault_rows: Vec<&String> = rows.iter().filter(|row| row.contains("sealed")).collect();
        assert_eq!(vault_rows.len(), 1, "{rows:?}");
        for row in &rows {
            assert!(
                !row.contains("issued-") && !row.contains("refresh-") && !row.contains("alice"),
                "{row}"
            );
        }
        // Revoked: gone for both instances; the next call asks again.
        let revoked = second
            .call_tool("disconnect", json!({"provider": "saas"}))
            .await
            .unwrap();
        assert_eq!(revoked["structuredContent"]["revoked"], true, "{revoked}");
        assert!(stored_rows(&file).iter().all(|row| !row.contains("sealed")));
        let asks = client(addrs[0], &alice, era).await;
        let asked = asks.call_tool("with_account", json!({"api": api})).await;
        assert!(asked.is_err(), "{asked:?}"); // the client has no answer for the question
    }
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_row_moved_to_another_caller_does_not_open() {
    let dir = std::env::temp_dir().join(format!("mcp-vault-rotate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vault.db");
    let _ = std::fs::remove_file(&file);
    let (as_addr, script) = scripted().await;
    // Tokens that live 10 s, inside the 30 s margin: every use refreshes.
    script.lock().unwrap().expires_in = Some(10);
    let (addrs, issuer, resource) = two_instances(as_addr, &file).await;
    let api = format!("http://{as_addr}/api");
    let alice = issuer.token(&resource).subject("alice").mint();
    let connect = Client::http(format!("http://{}/mcp", addrs[0]))
        .bearer(&alice)
        .pin(Era::Modern)
        .capabilities(json!({"elicitation": {"url": {}}}))
        .on_elicit(|question: Value| async move {
            let (_, params) = asked_url(&question);
            let callback = format!(
                "{}?code=c&state={}",
                params["redirect_uri"],
                url_encode(&params["state"])
            );
            reqwest::get(&callback).await.unwrap();
            json!({"action": "accept"})
        })
        .connect()
        .await
        .unwrap();
    connect
        .call_tool("with_account", json!({"api": api}))
        .await
        .unwrap();
    // The call that connected already refreshed once (its retry found the token due):
    // refresh-1 was traded for refresh-2.
    for (n, presented) in [(1, "refresh-2"), (2, "refresh-3")] {
        let used = client(addrs[n % 2], &alice, Era::Modern).await;
        used.call_tool("with_account", json!({"api": api}))
            .await
            .unwrap();
        let script = script.lock().unwrap();
        let form = script.forms.last().unwrap();
        assert_eq!(form["grant_type"], "refresh_token", "{form:?}");
        assert_eq!(
            form["refresh_token"], presented,
            "the rotated refresh token was not kept"
        );
    }
    // The provider no longer takes the refresh token: the connection is gone, the next
    // call asks the user to connect again.
    script.lock().unwrap().answer = Some((400, json!({"error": "invalid_grant"})));
    let dead = client(addrs[0], &alice, Era::Modern).await;
    assert!(dead
        .call_tool("with_account", json!({"api": api}))
        .await
        .is_err());
    assert!(stored_rows(&file).iter().all(|row| !row.contains("sealed")));
    script.lock().unwrap().answer = None;
    connect
        .call_tool("with_account", json!({"api": api}))
        .await
        .unwrap();
    // Alice's row copied under mallory's key does not open for mallory.
    let conn = rusqlite::Connection::open(&file).unwrap();
    let body: String = conn
        .query_row(
            "SELECT body FROM mcp_records WHERE id LIKE 'acct:%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let digest = <sha2::Sha256 as sha2::Digest>::digest(b"\0mallory");
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    conn.execute(
        "INSERT INTO mcp_records (id, version, expires_at, body) VALUES (?1, 1, ?2, ?3)",
        rusqlite::params![format!("acct:saas:{hex}"), i64::MAX, body],
    )
    .unwrap();
    let mallory = issuer.token(&resource).subject("mallory").mint();
    let listed = client(addrs[1], &mallory, Era::Modern).await;
    let connections = listed.call_tool("connections", json!({})).await.unwrap();
    assert_eq!(
        connections["structuredContent"]["accounts"],
        json!([]),
        "{connections}"
    );
    let before = script.lock().unwrap().seen.len();
    assert!(listed
        .call_tool("with_account", json!({"api": api}))
        .await
        .is_err());
    assert_eq!(
        script.lock().unwrap().seen.len(),
        before,
        "alice's token was used for mallory"
    );
}

#[tokio::test]
async fn a_sign_in_link_that_was_not_issued_here_connects_nothing() {
    let dir = std::env::temp_dir().join(format!("mcp-vault-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vault.db");
    let _ = std::fs::remove_file(&file);
    let (as_addr, script) = scripted().await;
    let (addrs, _, _) = two_instances(as_addr, &file).await;
    for query in [
        "code=c&state=v1.AAAA",
        "code=c",
        "error=access_denied&state=x",
    ] {
        let page = reqwest::get(format!("http://{}/oauth/callback?{query}", addrs[0]))
            .await
            .unwrap();
        assert_eq!(page.status(), 400, "{query}");
        let csp = page.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(csp.contains("default-src 'none'"), "{csp}");
        let text = page.text().await.unwrap();
        assert!(
            text.contains("not valid") || text.contains("needs the link"),
            "{text}"
        );
    }
    // No code was traded, nothing stored.
    assert!(script.lock().unwrap().forms.is_empty());
    assert!(stored_rows(&file).iter().all(|row| !row.contains("sealed")));
}

#[tokio::test]
async fn records_written_before_a_key_rotation_open_with_the_previous_key() {
    let dir = std::env::temp_dir().join(format!("mcp-vault-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vault.db");
    let _ = std::fs::remove_file(&file);
    let (as_addr, _script) = scripted().await;
    let (addrs, issuer, resource) = two_instances(as_addr, &file).await;
    let alice = issuer.token(&resource).subject("alice").mint();
    let connect = Client::http(format!("http://{}/mcp", addrs[0]))
        .bearer(&alice)
        .pin(Era::Modern)
        .capabilities(json!({"elicitation": {"url": {}}}))
        .on_elicit(|question: Value| async move {
            let (_, params) = asked_url(&question);
            let callback = format!(
                "{}?code=c&state={}",
                params["redirect_uri"],
                url_encode(&params["state"])
            );
            reqwest::get(&callback).await.unwrap();
            json!({"action": "accept"})
        })
        .connect()
        .await
        .unwrap();
    connect
        .call_tool(
            "with_account",
            json!({"api": format!("http://{as_addr}/api")}),
        )
        .await
        .unwrap();
    let public = resource.trim_end_matches("/mcp").to_owned();
    let new_key = SealKey::parse(&"6b".repeat(32)).unwrap();
    let listed = |accounts: Accounts| {
        let (issuer, resource, file) = (&issuer, &resource, &file);
        async move {
            let app = Server::new("downstream", "1.0.0")
                .only_module(module_path!())
                .oauth(
                    ProtectedResource::new(resource).authorization_server("https://issuer.test"),
                    issuer.verifier(resource).unwrap(),
                )
                .allowed_hosts(["127.0.0.1"])
                .store(SqliteStore::open(file).unwrap())
                .accounts(accounts)
                .build()
                .unwrap();
            let addr = crate::common::serve(app).await;
            let token = issuer.token(resource).subject("alice").mint();
            let result = client(addr, &token, Era::Modern)
                .await
                .call_tool("connections", json!({}))
                .await
                .unwrap();
            result["structuredContent"]["accounts"]
                .as_array()
                .unwrap()
                .len()
        }
    };
    // The new key with the old one as previous: still connected.
    let rotated = accounts(as_addr, &public, new_key.clone()).previous_keys([vault_key()]);
    assert_eq!(listed(rotated).await, 1);
    // The new key alone: the old record does not open (and is dropped when used).
    assert_eq!(listed(accounts(as_addr, &public, new_key)).await, 0);
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Every record's key and body in the SQLite store at `file`.
fn stored_rows(file: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(file).unwrap();
    let mut statement = conn
        .prepare("SELECT id || ' ' || body FROM mcp_records")
        .unwrap();
    statement
        .query_map([], |row| row.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}
