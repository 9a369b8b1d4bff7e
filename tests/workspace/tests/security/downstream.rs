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
use mcp_runtime::downstream::{
    AccountProvider, Accounts, ClientAuth, Downstream, TokenExchange, UserCheck,
};
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::policy::jwt::{JwtVerifier, KeySource};
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
    // S-288: the caller's token went to the authorization server, never to the API.
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
                    let (url, params) = asked_url(&question);
                    // S-293: the link names no one: the caller and tenant are sealed in
                    // `state`. S-294: it is the provider's sign-in, where the user must
                    // still sign in and consent; it grants nothing by itself.
                    assert!(!url.contains("alice") && !url.contains("acme"), "{url}");
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
        // S-287, S-289: the tokens went from the provider to this server's callback and
        // into the vault: the client got a URL, the browser a page with no token on it.
        let page = callback_hit
            .lock()
            .unwrap()
            .clone()
            .expect("the sign-in was not asked for");
        assert!(
            page.starts_with("200") && page.contains("is connected"),
            "{page}"
        );
        assert!(
            !page.contains("issued-") && !page.contains("refresh-"),
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
    let connect = connecting(addrs[0], &alice).await;
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
    let connect = connecting(addrs[0], &alice).await;
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

/// A client of the server at `addr` calling with `token`, whose answer to a sign-in link
/// plays the browser: it follows the link straight to the callback, with a code.
async fn connecting(addr: SocketAddr, token: &str) -> Client {
    Client::http(format!("http://{addr}/mcp"))
        .bearer(token)
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
        .unwrap()
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

/// Against a real authorization server: oidc-provider with a token-exchange grant, and a
/// downstream API that accepts only tokens for its own audience (`tests/auth/`, started by
/// the test command, which names them in `MCP_TEST_AUTH_ISSUER` and
/// `MCP_TEST_DOWNSTREAM_API`). The connect flow runs in headless Chromium
/// (`MCP_TEST_CHROMIUM`).
mod oidc {
    use super::*;

    /// The harness's URLs and the authorization server's endpoints.
    struct Harness {
        issuer: String,
        api: String,
        token_endpoint: String,
        authorization_endpoint: String,
        jwks_uri: String,
    }

    async fn harness() -> Harness {
        let var = |name: &str| {
            std::env::var(name).unwrap_or_else(|_| {
                panic!("{name} is not set: run tests/auth/harness.mjs and name it (scripts/test-all.sh does)")
            })
        };
        let issuer = var("MCP_TEST_AUTH_ISSUER");
        let api = var("MCP_TEST_DOWNSTREAM_API");
        let discovery: Value = serde_json::from_slice(
            &reqwest::get(format!("{issuer}/.well-known/openid-configuration"))
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap(),
        )
        .unwrap();
        let endpoint = |name: &str| discovery[name].as_str().unwrap().to_owned();
        Harness {
            token_endpoint: endpoint("token_endpoint"),
            authorization_endpoint: endpoint("authorization_endpoint"),
            jwks_uri: endpoint("jwks_uri"),
            issuer,
            api,
        }
    }

    impl Harness {
        /// A caller's token for this MCP server (audience https://mcp.test).
        async fn caller(&self, subject: &str) -> String {
            let reply = reqwest::Client::new()
                .post(format!("{}/test/token", self.issuer))
                .header("content-type", "application/json")
                .body(json!({"sub": subject, "tenant": "acme"}).to_string())
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            let reply: Value = serde_json::from_slice(&reply).unwrap();
            reply["access_token"].as_str().unwrap().to_owned()
        }

        /// How many exchanges the authorization server made for `subject` and `audience`.
        async fn exchanges(&self, subject: &str, audience: &str) -> u64 {
            let counts: Value = serde_json::from_slice(
                &reqwest::get(format!("{}/test/exchanges", self.issuer))
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap(),
            )
            .unwrap();
            counts[format!("{subject} {audience}")]
                .as_u64()
                .unwrap_or(0)
        }

        /// Every Authorization header the API received.
        async fn seen(&self) -> Vec<String> {
            serde_json::from_slice(
                &reqwest::get(format!("{}/test/seen", self.api))
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap(),
            )
            .unwrap()
        }

        /// A server of this module's tools whose callers' tokens the harness issues,
        /// configured by `configure`.
        async fn server(&self, configure: impl FnOnce(Server) -> Server) -> SocketAddr {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let verifier = JwtVerifier::new(
                &self.issuer,
                "https://mcp.test",
                KeySource::jwks_url(&self.jwks_uri),
            )
            .tenant_claim("tenant");
            let server = Server::new("downstream", "1.0.0")
                .only_module("security::downstream")
                .oauth(
                    ProtectedResource::new(format!("http://127.0.0.1:{port}/mcp"))
                        .authorization_server(&self.issuer),
                    verifier,
                );
            crate::common::serve_on(listener, configure(server).build().unwrap()).await
        }

        fn exchange(&self) -> TokenExchange {
            TokenExchange::new(
                &self.token_endpoint,
                ClientAuth::secret_basic("mcp-server", "mcp-server-secret"),
            )
        }
    }

    async fn whoami(
        client: &Client,
        harness: &Harness,
        audience: &str,
        scopes: &[&str],
    ) -> Result<Value, mcp_runtime::client::ClientError> {
        client
            .call_tool(
                "as_caller",
                json!({"api": format!("{}/orders/whoami", harness.api), "audience": audience, "scopes": scopes}),
            )
            .await
            .map(|result| result["structuredContent"].clone())
    }

    #[tokio::test]
    #[ignore = "needs the authorization server of tests/auth (the test command starts it)"]
    async fn exchanged_tokens_reach_the_api_in_the_callers_name() {
        let harness = harness().await;
        let addr = harness
            .server(|s| s.exchange_tokens(harness.exchange()))
            .await;
        let alice = harness.caller("alice").await;
        let carol = harness.caller("carol").await;
        // The harness counts every exchange since it started.
        let alice_before = harness.exchanges("alice", "https://orders.test").await;
        let carol_before = harness.exchanges("carol", "https://orders.test").await;
        let mut jtis = Vec::new();
        for era in eras() {
            for (subject, token) in [("alice", &alice), ("carol", &carol)] {
                let client = client(addr, token, era).await;
                for _ in 0..2 {
                    let seen = whoami(&client, &harness, "https://orders.test", &["orders:read"])
                        .await
                        .unwrap();
                    // The API saw the caller, with a token for its own audience, issued to
                    // this server acting for the caller.
                    assert_eq!(seen["sub"], subject, "{era:?}: {seen}");
                    assert_eq!(seen["aud"], "https://orders.test", "{seen}");
                    assert_eq!(seen["act"]["sub"], "mcp-server", "{seen}");
                    jtis.push((subject, seen["jti"].as_str().unwrap().to_owned()));
                }
            }
        }
        // One exchange per caller: the token is kept between calls and eras.
        assert_eq!(
            harness.exchanges("alice", "https://orders.test").await,
            alice_before + 1
        );
        assert_eq!(
            harness.exchanges("carol", "https://orders.test").await,
            carol_before + 1
        );
        // Two callers, two tokens.
        let alice_jti = &jtis.iter().find(|(s, _)| *s == "alice").unwrap().1;
        let carol_jti = &jtis.iter().find(|(s, _)| *s == "carol").unwrap().1;
        assert_ne!(alice_jti, carol_jti);
        // The callers' own tokens never reached the API...
        let seen = harness.seen().await;
        assert!(!seen.is_empty());
        for token in [&alice, &carol] {
            assert!(seen.iter().all(|header| !header.contains(token.as_str())));
        }
        // ...which refuses them anyway: their audience is the MCP server.
        let direct = reqwest::Client::new()
            .get(format!("{}/orders", harness.api))
            .bearer_auth(&alice)
            .send()
            .await
            .unwrap();
        assert_eq!(direct.status(), 401);
    }

    #[tokio::test]
    #[ignore = "needs the authorization server of tests/auth (the test command starts it)"]
    async fn an_expired_exchanged_token_is_exchanged_again() {
        let harness = harness().await;
        let addr = harness
            .server(|s| s.exchange_tokens(harness.exchange()))
            .await;
        let dave = harness.caller("dave").await;
        let client = client(addr, &dave, Era::Modern).await;
        let before = harness.exchanges("dave", "https://short.test").await;
        // Tokens for https://short.test live 3 s, reused for 2.4 s.
        whoami(&client, &harness, "https://short.test", &[])
            .await
            .unwrap();
        whoami(&client, &harness, "https://short.test", &[])
            .await
            .unwrap();
        assert_eq!(
            harness.exchanges("dave", "https://short.test").await,
            before + 1
        );
        tokio::time::sleep(std::time::Duration::from_millis(2_600)).await;
        let seen = whoami(&client, &harness, "https://short.test", &[])
            .await
            .unwrap();
        assert_eq!(seen["sub"], "dave");
        assert_eq!(
            harness.exchanges("dave", "https://short.test").await,
            before + 2
        );
    }

    #[tokio::test]
    #[ignore = "needs the authorization server of tests/auth (the test command starts it)"]
    async fn refusals_answer_as_the_model_can_explain() {
        let harness = harness().await;
        let addr = harness
            .server(|s| s.exchange_tokens(harness.exchange()))
            .await;
        let bob = harness.caller("bob").await;
        for era in eras() {
            let client = client(addr, &bob, era).await;
            // Bob never consented to orders:write.
            let refused =
                match whoami(&client, &harness, "https://orders.test", &["orders:write"]).await {
                    Err(mcp_runtime::client::ClientError::Business(result)) => result,
                    other => panic!("{other:?}"),
                };
            let text = refused["content"][0]["text"].as_str().unwrap();
            assert!(
                text.contains("invalid_scope") && text.contains("orders:write"),
                "{text}"
            );
            assert_eq!(
                refused["structuredContent"]["error"]["detail"]["code"],
                "downstream_refused"
            );
            // An audience the authorization server does not exchange into.
            let target = match whoami(&client, &harness, "https://saas.test", &[]).await {
                Err(mcp_runtime::client::ClientError::Business(result)) => result,
                other => panic!("{other:?}"),
            };
            assert!(
                target["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("invalid_target"),
                "{target}"
            );
            // What bob may have still works.
            let seen = whoami(&client, &harness, "https://orders.test", &["orders:read"])
                .await
                .unwrap();
            assert_eq!(seen["sub"], "bob");
        }
        // This server with a wrong secret: the operators' fault.
        let wrong = harness
            .server(|s| {
                s.exchange_tokens(TokenExchange::new(
                    &harness.token_endpoint,
                    ClientAuth::secret_basic("mcp-server", "not-the-secret"),
                ))
            })
            .await;
        let client = client(wrong, &bob, Era::Modern).await;
        let error = whoami(&client, &harness, "https://orders.test", &[])
            .await
            .unwrap_err();
        assert!(error.to_string().contains("client registration"), "{error}");
    }

    #[tokio::test]
    #[ignore = "needs the authorization server of tests/auth (the test command starts it)"]
    async fn the_server_can_authenticate_with_a_private_key() {
        let harness = harness().await;
        let pem = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../auth/keys/mcp-server-jwt.pem"
        ))
        .unwrap();
        let auth =
            ClientAuth::private_key_jwt("mcp-server-jwt", "ES256", &pem, Some("mcp-server-jwt-1"))
                .unwrap();
        let addr = harness
            .server(|s| s.exchange_tokens(TokenExchange::new(&harness.token_endpoint, auth)))
            .await;
        let erin = harness.caller("erin").await;
        let client = client(addr, &erin, Era::Modern).await;
        let seen = whoami(&client, &harness, "https://orders.test", &["orders:read"])
            .await
            .unwrap();
        assert_eq!(seen["sub"], "erin");
        assert_eq!(seen["act"]["sub"], "mcp-server-jwt");
    }

    #[tokio::test]
    #[ignore = "needs the authorization server of tests/auth (the test command starts it)"]
    async fn tools_served_from_a_document_call_the_api_as_the_caller() {
        use mcp_runtime::openapi::{Curation, OpenApiTools};
        let harness = harness().await;
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/orders-mcp");
        let document = std::fs::read_to_string(format!("{examples}/openapi.json")).unwrap();
        let curation = Curation::from_toml(
            &std::fs::read_to_string(format!("{examples}/mcp-openapi.toml")).unwrap(),
        )
        .unwrap();
        let tools = OpenApiTools::from_document(&document, &curation)
            .unwrap()
            .base_url(&harness.api);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let verifier = JwtVerifier::new(
            &harness.issuer,
            "https://mcp.test",
            KeySource::jwks_url(&harness.jwks_uri),
        );
        let app = Server::new("orders-served", "1.0.0")
            .only([])
            .openapi(tools)
            .oauth(
                ProtectedResource::new(format!("http://127.0.0.1:{port}/mcp"))
                    .authorization_server(&harness.issuer),
                verifier,
            )
            .exchange_tokens(harness.exchange())
            .build()
            .unwrap();
        let addr = crate::common::serve_on(listener, app).await;
        let judy = harness.caller("judy").await;
        for era in eras() {
            let client = client(addr, &judy, era).await;
            let me = client.call_tool("who_am_i", json!({})).await.unwrap();
            assert_eq!(me["structuredContent"]["sub"], "judy", "{era:?}: {me}");
            assert_eq!(me["structuredContent"]["aud"], "https://orders.test");
            // The operation's own scope is what the exchange asks for.
            let created = client
                .call_tool("create_order", json!({"item": "tea"}))
                .await
                .unwrap();
            assert_eq!(created["structuredContent"]["owner"], "judy", "{created}");
        }
        assert!(harness
            .seen()
            .await
            .iter()
            .all(|seen| !seen.contains(&judy)));
    }

    /// Opens `url` in headless Chromium, signs in as `login` and consents; the page it
    /// ends on.
    async fn sign_in_in_a_browser(url: &str, login: &str) -> String {
        let chromium =
            std::env::var("MCP_TEST_CHROMIUM").expect("MCP_TEST_CHROMIUM names the browser");
        let output = tokio::process::Command::new("node")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../auth/connect.mjs"))
            .arg(url)
            .arg(login)
            .arg(chromium)
            .output()
            .await
            .unwrap();
        let printed = String::from_utf8_lossy(&output.stdout).into_owned();
        // It ends on this server's page: connected, or refused for being someone else.
        assert!(
            printed.contains("is connected") || printed.contains("different user"),
            "{printed}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        printed
    }

    #[tokio::test]
    #[ignore = "needs the authorization server of tests/auth and Chromium (the test command has both)"]
    async fn an_account_is_connected_in_a_browser_and_the_call_goes_on() {
        let harness = harness().await;
        let dir = std::env::temp_dir().join(format!("mcp-vault-oidc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("vault.db");
        let _ = std::fs::remove_file(&file);
        // Two instances sharing the store and the vault key; the first's URL is the one
        // browsers come back to.
        let first = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let public = format!("http://127.0.0.1:{}", first.local_addr().unwrap().port());
        // The browser's user is checked first: they sign in at the issuer of this server's
        // tokens, and must be the caller the link was made for.
        let provider = || {
            Accounts::new(vault_key(), &public)
                .check_user(UserCheck::new(
                    &harness.issuer,
                    &harness.authorization_endpoint,
                    &harness.token_endpoint,
                    ClientAuth::secret_basic("mcp-login", "mcp-login-secret"),
                ))
                .provider(
                    AccountProvider::new(
                        "saas",
                        &harness.authorization_endpoint,
                        &harness.token_endpoint,
                        ClientAuth::secret_basic("saas-connect", "saas-connect-secret"),
                    )
                    .scopes(["openid", "offline_access", "saas:read"])
                    .resource("https://saas.test"),
                )
        };
        let verifier = || {
            JwtVerifier::new(
                &harness.issuer,
                "https://mcp.test",
                KeySource::jwks_url(&harness.jwks_uri),
            )
            .tenant_claim("tenant")
        };
        let mut addrs = Vec::new();
        let second = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        for listener in [first, second] {
            let app = Server::new("downstream", "1.0.0")
                .only_module("security::downstream")
                .oauth(
                    ProtectedResource::new(format!("{public}/mcp"))
                        .authorization_server(&harness.issuer),
                    verifier(),
                )
                .allowed_hosts(["127.0.0.1"])
                .store(SqliteStore::open(&file).unwrap())
                .accounts(provider())
                .build()
                .unwrap();
            addrs.push(crate::common::serve_on(listener, app).await);
        }
        let me = format!("{}/saas/me", harness.api);
        for (n, era) in eras().into_iter().enumerate() {
            let user = ["frank", "grace"][n];
            let token = harness.caller(user).await;
            let pages = Arc::new(Mutex::new(Vec::new()));
            let seen_pages = pages.clone();
            let client = Client::http(format!("http://{}/mcp", addrs[0]))
                .bearer(&token)
                .pin(era)
                .capabilities(json!({"elicitation": {"url": {}}}))
                .on_elicit(move |question: Value| {
                    let pages = seen_pages.clone();
                    async move {
                        let url = question["url"].as_str().unwrap().to_owned();
                        let page = sign_in_in_a_browser(&url, user).await;
                        pages.lock().unwrap().push(page);
                        json!({"action": "accept"})
                    }
                })
                .connect()
                .await
                .unwrap();
            // The call asks for the connection, the browser signs in and consents at the
            // provider, and the original call then succeeds.
            let result = client
                .call_tool("with_account", json!({"api": me}))
                .await
                .unwrap();
            assert_eq!(
                result["structuredContent"]["sub"], user,
                "{era:?}: {result}"
            );
            assert_eq!(result["structuredContent"]["aud"], "https://saas.test");
            let pages = pages.lock().unwrap().clone();
            assert_eq!(pages.len(), 1, "{pages:?}");
            assert!(pages[0].contains("is connected"), "{pages:?}");
            // The vault's rows hold ciphertext only.
            for row in stored_rows(&file) {
                assert!(!row.contains("eyJ") && !row.contains(user), "{row}");
            }
            // The second instance sees the connection without asking.
            let other = super::client(addrs[1], &token, era).await;
            let again = other
                .call_tool("with_account", json!({"api": me}))
                .await
                .unwrap();
            assert_eq!(again["structuredContent"]["sub"], user);
            // Revoked: the next call asks again (this client has no answer to give).
            other
                .call_tool("disconnect", json!({"provider": "saas"}))
                .await
                .unwrap();
            assert!(other
                .call_tool("with_account", json!({"api": me}))
                .await
                .is_err());
            // The link opened by someone else: they sign in as mallory and are refused
            // before the provider is reached; the call is told nothing was connected.
            let opened_by = Arc::new(Mutex::new(Vec::new()));
            let pages = opened_by.clone();
            let phished = Client::http(format!("http://{}/mcp", addrs[0]))
                .bearer(&token)
                .pin(era)
                .capabilities(json!({"elicitation": {"url": {}}}))
                .on_elicit(move |question: Value| {
                    let pages = pages.clone();
                    async move {
                        let url = question["url"].as_str().unwrap().to_owned();
                        let page = sign_in_in_a_browser(&url, "mallory").await;
                        pages.lock().unwrap().push(page);
                        json!({"action": "accept"})
                    }
                })
                .connect()
                .await
                .unwrap();
            let refused = phished.call_tool("with_account", json!({"api": me})).await;
            let Err(mcp_runtime::client::ClientError::Business(refused)) = refused else {
                panic!("{refused:?}");
            };
            assert!(
                refused.to_string().contains("not connected yet"),
                "{refused}"
            );
            let pages = opened_by.lock().unwrap().clone();
            // S-292, S-297: the link is bound to its caller, and the server checks who
            // opens it rather than trusting the link: someone else is refused.
            assert!(pages[0].contains("different user"), "{pages:?}");
            assert!(stored_rows(&file).iter().all(|row| !row.contains("sealed")));
        }
    }
}

/// Logs written to memory.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Logs {
    type Writer = Logs;
    fn make_writer(&'a self) -> Logs {
        self.clone()
    }
}

/// No token reaches the logs (every target, `TRACE`, with spans): not the caller's, not an
/// exchanged one, not a connected account's access or refresh token, not a sign-in's code.
///
/// The flows run in a process of their own (this test binary again, with that test alone),
/// whose one subscriber sees every event: a subscriber set for one thread of a process
/// running other tests can miss events of call sites those tests reach first.
#[test]
fn no_token_reaches_a_log() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "downstream::logged_flows",
            "--ignored",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && printed.contains("1 passed"),
        "{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
#[ignore = "run by no_token_reaches_a_log, in a process of its own"]
async fn logged_flows() {
    use tracing_subscriber::fmt::format::FmtSpan;
    let logs = Logs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_ansi(false)
        .with_span_events(FmtSpan::FULL)
        .with_max_level(tracing::Level::TRACE)
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let (as_addr, script) = scripted().await;
    let api = format!("http://{as_addr}/api");
    // Exchanged tokens.
    let (addr, issuer, resource) = server(|s| s.exchange_tokens(exchange_at(as_addr))).await;
    let alice = issuer.token(&resource).subject("alice").mint();
    client(addr, &alice, Era::Modern)
        .await
        .call_tool(
            "as_caller",
            json!({"api": api, "audience": "https://orders.test", "scopes": []}),
        )
        .await
        .unwrap();
    // A connected account: connected, used, refreshed (tokens that live 10 s are due at
    // once), revoked.
    script.lock().unwrap().expires_in = Some(10);
    let file = std::env::temp_dir().join(format!("mcp-vault-logs-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let (addrs, issuer, resource) = two_instances(as_addr, &file).await;
    let bob = issuer.token(&resource).subject("bob").mint();
    let connect = connecting(addrs[0], &bob).await;
    connect
        .call_tool("with_account", json!({"api": api}))
        .await
        .unwrap();
    connect
        .call_tool("with_account", json!({"api": api}))
        .await
        .unwrap();
    connect
        .call_tool("disconnect", json!({"provider": "saas"}))
        .await
        .unwrap();
    assert!(script.lock().unwrap().issued >= 3);

    let logs = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    // The logs saw the work...
    assert!(logs.contains("exchanged the caller's token"), "{logs}");
    assert!(logs.contains("an account was connected"), "{logs}");
    assert!(
        logs.contains("refreshed a connected account's token"),
        "{logs}"
    );
    // ...and none of its secrets.
    for secret in [
        alice.as_str(),
        bob.as_str(),
        "issued-",
        "refresh-",
        "the-code",
        "code=c",
        "s3cret",
        "connect-secret",
    ] {
        assert!(!logs.contains(secret), "`{secret}` reached the logs");
    }
}
