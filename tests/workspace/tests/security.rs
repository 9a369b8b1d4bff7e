//! A server on a network: bearer tokens (JWT, JWKS), protected-resource metadata,
//! declared scopes, tenants, list filtering, cache scopes, rate and concurrency limits,
//! call timeouts, the refusal to serve a remote address without authentication, and the
//! stdio principal. Over real HTTP on a loopback port, through the raw client of
//! `common`. Requirement ids (S-nnn) refer to the server checklist.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{call, get, request, send, serve_on, Reply};
use mcp_runtime::policy::jwt::{JwtVerifier, KeySource};
use mcp_runtime::policy::limits::RateLimit;
use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::testing::TestIssuer;
use mcp_runtime::{Principal, Server};
use serde_json::{json, Value};

// The secured server of these tests and its token issuer, as the book shows them.
#[path = "security/downstream.rs"]
mod downstream;
#[path = "security/secured.rs"]
mod secured;
use secured::{Secured, ISSUER};

impl Secured {
    async fn call_as(&self, token: &str, tool: &str, arguments: Value) -> Reply {
        let auth = format!("Bearer {token}");
        send(
            self.addr,
            &call(tool, arguments, &[("Authorization", &auth)]),
        )
        .await
    }

    async fn request_as(
        &self,
        token: &str,
        method: &str,
        name: Option<&str>,
        params: Value,
    ) -> Reply {
        let auth = format!("Bearer {token}");
        send(
            self.addr,
            &request(3, method, name, params, &[("Authorization", &auth)]),
        )
        .await
    }
}

fn challenge(reply: &Reply) -> String {
    reply
        .header("www-authenticate")
        .unwrap_or_default()
        .to_owned()
}

// S-320, S-321, S-322: RFC 9728 metadata at the path-inserted and root well-known URIs.
#[tokio::test]
async fn protected_resource_metadata_is_published() {
    let s = Secured::start(|s| s).await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let reply = send(s.addr, &get(path, &[])).await;
        // S-320, S-322: the RFC 9728 document, at the well-known URI with and without the
        // endpoint's path.
        assert_eq!(reply.status, 200, "{path}");
        let doc = reply.json();
        assert_eq!(doc["resource"], s.resource);
        // S-321: it names the authorization server.
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(
            doc["scopes_supported"],
            json!(["orders:read", "orders:write"])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    }
}

// S-322, S-323, S-327, S-331, S-343: no token, 401 naming the metadata and the scopes;
// nothing is processed.
#[tokio::test]
async fn a_request_without_a_token_gets_401_with_the_metadata_url() {
    let s = Secured::start(|s| s).await;
    let reply = send(s.addr, &call("caller", json!({}), &[])).await;
    // S-286, S-331, S-343: no token, no call: 401 before any handler runs.
    assert_eq!(reply.status, 401);
    let header = challenge(&reply);
    assert!(header.starts_with("Bearer "), "{header}");
    // S-322: the challenge points to the protected resource metadata.
    assert!(
        header.contains(&format!(
            "resource_metadata=\"http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp\"",
            s.addr.port()
        )),
        "{header}"
    );
    assert!(
        header.contains("scope=\"orders:read orders:write\""),
        "{header}"
    );
    // S-327: OAuth 2.1 §5.3: a request without credentials gets no error code.
    assert!(
        !header.contains("error="),
        "no error code without credentials: {header}"
    );
    // Another scheme is no bearer token either.
    let basic = send(
        s.addr,
        &call(
            "caller",
            json!({}),
            &[("Authorization", "Basic YWxpY2U6c2VjcmV0")],
        ),
    )
    .await;
    assert_eq!(basic.status, 401);
}

// S-325, S-326, S-327, S-328, S-344: expired, wrong-audience, wrong-issuer, unsigned,
// foreign-key and malformed tokens are refused with 401 invalid_token; a valid one works.
#[tokio::test]
async fn invalid_tokens_get_401_invalid_token() {
    let s = Secured::start(|s| s).await;
    let stranger = TestIssuer::new(ISSUER).unwrap();
    let base = || s.issuer.token(&s.resource).subject("alice").tenant("acme");
    let cases: Vec<(&str, String, &str)> = vec![
        ("expired", base().expired().mint(), "expired"),
        // S-326, S-328, S-329, S-339, S-344: a token whose audience is another server.
        (
            "for another server",
            s.issuer
                .token("https://other.example.com/mcp")
                .subject("alice")
                .mint(),
            "not issued for this server",
        ),
        // S-326, S-344: a token that names no audience at all.
        (
            "audience missing",
            base().claim("aud", Value::Null).mint(),
            "no aud claim",
        ),
        (
            "from another issuer",
            base().claim("iss", json!("https://evil.test")).mint(),
            "not issued by https://issuer.test",
        ),
        // S-297: an identity the client wrote itself, unsigned, is not believed.
        ("unsigned", base().unsigned(), "not a signed JWT"),
        (
            "signed with another key",
            stranger
                .token(&s.resource)
                .subject("alice")
                .without_key_id()
                .mint(),
            "signature does not verify",
        ),
        (
            "naming an unknown key",
            stranger.token(&s.resource).subject("alice").mint(),
            "is not a key of the issuer",
        ),
        (
            "not valid yet",
            base().claim("nbf", json!(4_000_000_000u64)).mint(),
            "not valid yet",
        ),
        // S-285: no sub, no caller.
        (
            "without subject",
            base().claim("sub", Value::Null).mint(),
            "no sub claim",
        ),
        ("not a JWT", "abc.def.ghi".to_owned(), "not a signed JWT"),
        ("bad characters", "abc%def".to_owned(), "malformed"),
    ];
    for (what, token, reason) in cases {
        let reply = s.call_as(&token, "caller", json!({})).await;
        // S-325, S-327, S-340: each fails validation and gets 401 with invalid_token.
        assert_eq!(reply.status, 401, "{what}");
        let header = challenge(&reply);
        assert!(
            header.contains("error=\"invalid_token\""),
            "{what}: {header}"
        );
        assert!(header.contains(reason), "{what}: {header}");
        assert_eq!(reply.code(), Some(-31401), "{what}");
        assert_eq!(
            reply.json()["error"]["data"]["error"],
            "invalid_token",
            "{what}"
        );
    }
    // Upper-case scheme and host name the same server (S-338).
    let shouting = s
        .issuer
        .token(&s.resource.replace("http://", "HTTP://"))
        .subject("alice")
        .mint();
    let reply = s.call_as(&shouting, "caller", json!({})).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.tool_text(), "alice of no tenant with []");
}

// S-331: malformed authorization requests are 400 invalid_request.
#[tokio::test]
async fn malformed_authorization_requests_get_400() {
    let s = Secured::start(|s| s).await;
    let token = s.token("alice", "acme", &[]);
    let auth = format!("Bearer {token}");
    let twice = send(
        s.addr,
        &call(
            "caller",
            json!({}),
            &[("Authorization", &auth), ("Authorization", &auth)],
        ),
    )
    .await;
    // S-331: a malformed authorization request (two Authorization headers) is 400.
    assert_eq!(twice.status, 400);
    assert!(challenge(&twice).contains("error=\"invalid_request\""));
    let in_query = common::post_to(
        &format!("/mcp?access_token={token}"),
        &common::headers("tools/call", Some("caller"), &[]),
        &common::body(1, "tools/call", json!({"name": "caller"})),
    );
    let reply = send(s.addr, &in_query).await;
    // S-340, S-341: a token in the query string is refused (OAuth 2.1), so none is left in
    // URLs and the logs that record them.
    assert_eq!(reply.status, 400);
    assert!(challenge(&reply).contains("query string"));
}

// S-332, S-333, S-334, S-337: a token without a declared scope gets 403
// insufficient_scope naming every scope the operation needs; a broader scope covers.
#[tokio::test]
async fn missing_scopes_get_403_insufficient_scope() {
    let s = Secured::start(|s| s).await;
    let reader = s.token("alice", "acme", &["orders:read"]);
    let reply = s
        .call_as(&reader, "place_tenant_order", json!({"item": "anvil"}))
        .await;
    // S-197, S-331: a tool call without the scope it needs is 403 insufficient_scope.
    assert_eq!(reply.status, 403);
    let header = challenge(&reply);
    assert!(header.contains("error=\"insufficient_scope\""), "{header}");
    assert!(header.contains("scope=\"orders:write\""), "{header}");
    assert!(header.contains("resource_metadata=\""), "{header}");
    assert_eq!(reply.code(), Some(-31403));
    assert_eq!(
        reply.json()["error"]["data"]["requiredScopes"],
        json!(["orders:write"])
    );
    assert_eq!(reply.json()["id"], 7);

    let nobody = s.token("bob", "acme", &[]);
    let prompt = s
        .request_as(
            &nobody,
            "prompts/get",
            Some("order_summary"),
            json!({"name": "order_summary"}),
        )
        .await;
    // S-244: prompts and resources are guarded too, each by its own scope.
    assert_eq!(prompt.status, 403);
    let read = s
        .request_as(
            &nobody,
            "resources/read",
            Some("tenant-orders://acme/0"),
            json!({"uri": "tenant-orders://acme/0"}),
        )
        .await;
    assert_eq!(read.status, 403);
    assert!(challenge(&read).contains("scope=\"orders:read\""));

    // S-337: `orders` covers `orders:write` and `orders:read`.
    let broad = s.token("carol", "acme", &["orders"]);
    let placed = s
        .call_as(&broad, "place_tenant_order", json!({"item": "anvil"}))
        .await;
    assert_eq!(placed.status, 200);
    assert_eq!(placed.tool_text(), "acme ordered anvil");
}

// S-175, S-244, S-343: one tenant's token cannot read, list or call another tenant's
// data, through tools, resources and prompts.
#[tokio::test]
async fn tenants_cannot_reach_each_others_data() {
    let s = Secured::start(|s| s).await;
    let acme = s.token("alice", "acme", &["orders:read", "orders:write"]);
    let globex = s.token("gus", "globex", &["orders:read"]);

    let mine = s.call_as(&acme, "tenant_orders", json!({})).await;
    assert_eq!(
        mine.json()["result"]["structuredContent"],
        json!(["acme-1: anvils", "acme-2: rockets"])
    );
    let theirs = s.call_as(&globex, "tenant_orders", json!({})).await;
    assert_eq!(
        theirs.json()["result"]["structuredContent"],
        json!(["globex-1: magnets"])
    );

    let read = |token: String, uri: &'static str| {
        let s = &s;
        async move {
            s.request_as(&token, "resources/read", Some(uri), json!({"uri": uri}))
                .await
        }
    };
    let own = read(acme.clone(), "tenant-orders://acme/1").await;
    assert_eq!(
        own.json()["result"]["contents"][0]["text"],
        "acme-2: rockets"
    );
    let foreign = read(acme.clone(), "tenant-orders://globex/0").await;
    // S-244, S-343: another tenant's order is refused and none of it is returned.
    assert_eq!(foreign.status, 200);
    assert_eq!(foreign.code(), Some(-31403));
    assert!(foreign.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("belongs to another tenant"));
    let back = read(globex.clone(), "tenant-orders://acme/0").await;
    assert_eq!(back.code(), Some(-31403));

    let summary = s
        .request_as(
            &globex,
            "prompts/get",
            Some("order_summary"),
            json!({"name": "order_summary"}),
        )
        .await;
    let text = summary.json()["result"]["messages"][0]["content"]["text"].clone();
    assert_eq!(text, "Summarize: globex-1: magnets");

    // A token naming no tenant cannot use tenant tools at all.
    let loner = s
        .issuer
        .token(&s.resource)
        .subject("lone")
        .scopes(["orders:read"])
        .mint();
    let refused = s.call_as(&loner, "tenant_orders", json!({})).await;
    assert_eq!(refused.code(), Some(-31403));
}

// S-175, S-203, S-222, S-240, S-242: filtered lists hide what the caller cannot use and
// are private on every page; unfiltered lists stay public.
#[tokio::test]
async fn lists_filtered_per_principal_are_private() {
    let s = Secured::start(|s| s.hide_unauthorized().page_size(2)).await;
    let reader = s.token("alice", "acme", &["orders:read"]);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut params = json!({});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let page = s.request_as(&reader, "tools/list", None, params).await;
        let result = page.json()["result"].clone();
        // S-240, S-243: a list filtered for this caller is private, on every page.
        assert_eq!(result["cacheScope"], "private");
        for tool in result["tools"].as_array().unwrap() {
            names.push(tool["name"].as_str().unwrap().to_owned());
        }
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(names, ["caller", "nap", "tenant_orders"]);
    let writer = s.token("bob", "acme", &["orders:read", "orders:write"]);
    let all = s.request_as(&writer, "tools/list", None, json!({})).await;
    assert_eq!(all.json()["result"]["tools"].as_array().unwrap().len(), 2);
    let prompts = s
        .request_as(
            &s.token("eve", "acme", &[]),
            "prompts/list",
            None,
            json!({}),
        )
        .await;
    assert_eq!(prompts.json()["result"]["prompts"], json!([]));

    let open = Secured::start(|s| s).await;
    let token = open.token("alice", "acme", &[]);
    let listed = open.request_as(&token, "tools/list", None, json!({})).await;
    assert_eq!(listed.json()["result"]["cacheScope"], "public");
    assert_eq!(
        listed.json()["result"]["tools"].as_array().unwrap().len(),
        4
    );
}

// S-242: lists shaped by scopes leave a tool out, and so do search answers; a call of it
// still gets the 403 naming the scope it needs, so the client can ask for it.
#[tokio::test]
async fn hidden_by_scope_is_left_out_of_search_and_refused_with_its_scope() {
    let s = Secured::start(|s| {
        s.hide_unauthorized()
            .tool_search(mcp_runtime::ToolSearch::new().threshold(0))
    })
    .await;
    let search = json!({"query": "place an order"});
    let reader = s.token("alice", "acme", &["orders:read"]);
    let found = s.call_as(&reader, "search_tools", search.clone()).await;
    let names = found.json()["result"]["structuredContent"]["tools"].to_string();
    assert!(!names.contains("place_tenant_order"), "{names}");
    let refused = s
        .call_as(&reader, "place_tenant_order", json!({"item": "x"}))
        .await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let writer = s.token("bob", "acme", &["orders:read", "orders:write"]);
    let found = s.call_as(&writer, "search_tools", search).await;
    let names = found.json()["result"]["structuredContent"]["tools"].to_string();
    assert!(names.contains("place_tenant_order"), "{names}");
}

// S-242, S-243: reads that depend on the caller (scoped, or taking the principal) are
// private; others keep the server's default.
#[tokio::test]
async fn principal_dependent_reads_are_private() {
    let s = Secured::start(|s| s).await;
    let token = s.token("alice", "acme", &["orders:read"]);
    for (uri, scope) in [
        ("secured://profile", "private"),
        ("tenant-orders://acme/0", "private"),
        ("secured://prices", "public"),
    ] {
        let reply = s
            .request_as(&token, "resources/read", Some(uri), json!({"uri": uri}))
            .await;
        // S-238, S-243: what depends on the caller is private, so no shared cache hands it
        // to another; the rest is public.
        assert_eq!(reply.json()["result"]["cacheScope"], scope, "{uri}");
    }
}

// Rate limiting per principal: the limit is hit (429, Retry-After, -31429 with
// retryAfterMs), another caller is unaffected, and the caller recovers after waiting.
// The 500 ms period leaves the three calls room to be slow on a loaded machine.
#[tokio::test]
async fn rate_limit_is_hit_and_recovered() {
    let s = Secured::start(|s| s.rate_limit(RateLimit::per_second(2).burst(2))).await;
    let alice = s.token("alice", "acme", &[]);
    let bob = s.token("bob", "acme", &[]);
    assert_eq!(s.call_as(&alice, "caller", json!({})).await.status, 200);
    assert_eq!(s.call_as(&alice, "caller", json!({})).await.status, 200);
    let limited = s.call_as(&alice, "caller", json!({})).await;
    // S-198: the call beyond the budget is refused with 429.
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after"), Some("1"));
    assert_eq!(limited.code(), Some(-31429));
    let wait = limited.json()["error"]["data"]["retryAfterMs"]
        .as_u64()
        .unwrap();
    assert!((1..=500).contains(&wait), "{wait}");
    assert_eq!(s.call_as(&bob, "caller", json!({})).await.status, 200);
    tokio::time::sleep(Duration::from_millis(wait + 20)).await;
    let again = s.call_as(&alice, "caller", json!({})).await;
    assert_eq!(again.status, 200);
    assert!(again.tool_text().starts_with("alice"));
}

// Concurrent calls per principal are capped with a clear error; a running call is not
// disturbed, and the slot comes back when it ends.
#[tokio::test]
async fn concurrent_calls_per_principal_are_capped() {
    let s = Arc::new(Secured::start(|s| s.max_concurrent_calls(1)).await);
    let alice = s.token("alice", "acme", &[]);
    let running = {
        let (s, alice) = (s.clone(), alice.clone());
        tokio::spawn(async move { s.call_as(&alice, "nap", json!({"ms": 600})).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let refused = s.call_as(&alice, "caller", json!({})).await;
    // S-198: a second call while the first still runs is refused.
    assert_eq!(refused.status, 429);
    assert_eq!(refused.json()["error"]["data"]["reason"], "concurrency");
    let bob = s.token("bob", "acme", &[]);
    assert_eq!(s.call_as(&bob, "caller", json!({})).await.status, 200);
    let first = running.await.unwrap();
    assert_eq!(first.tool_text(), "slept 600 ms");
    assert_eq!(s.call_as(&alice, "caller", json!({})).await.status, 200);
}

// A handler that runs too long fails its call with -31408; the server goes on.
#[tokio::test]
async fn slow_handlers_time_out() {
    let s = Secured::start(|s| s.call_timeout(Some(Duration::from_millis(100)))).await;
    let token = s.token("alice", "acme", &[]);
    let reply = s.call_as(&token, "nap", json!({"ms": 5000})).await;
    assert_eq!(reply.code(), Some(-31408));
    assert_eq!(reply.json()["error"]["data"]["timeoutMs"], 100);
    assert_eq!(s.call_as(&token, "nap", json!({"ms": 1})).await.status, 200);
}

// Tokens are checked for handshake-era clients too, and a session stays with its
// principal.
#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_era_clients_authenticate_too() {
    let s = Secured::start(|s| s).await;
    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}
    })
    .to_string();
    let anonymous = send(s.addr, &common::post(&[], &init)).await;
    assert_eq!(anonymous.status, 401);
    let alice = format!("Bearer {}", s.token("alice", "acme", &["orders:read"]));
    let opened = send(s.addr, &common::post(&[("Authorization", &alice)], &init)).await;
    assert_eq!(opened.status, 200);
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "tenant_orders", "arguments": {}}})
    .to_string();
    let session_headers = |auth: &str| {
        vec![
            ("Authorization", auth.to_owned()),
            ("Mcp-Session-Id", session.clone()),
            ("MCP-Protocol-Version", "2025-11-25".to_owned()),
        ]
    };
    let as_alice = session_headers(&alice);
    let h: Vec<(&str, &str)> = as_alice.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let reply = send(s.addr, &common::post(&h, &list)).await;
    assert_eq!(reply.status, 200);
    assert!(String::from_utf8_lossy(&reply.body).contains("acme-1: anvils"));
    let bob = format!("Bearer {}", s.token("bob", "globex", &["orders:read"]));
    let as_bob = session_headers(&bob);
    let h: Vec<(&str, &str)> = as_bob.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(send(s.addr, &common::post(&h, &list)).await.status, 404);
}

// Serving a non-loopback address needs a verifier or an explicit opt-out.
#[tokio::test]
async fn remote_addresses_need_authentication() {
    let app = mcp_workspace_tests::secured::server().build().unwrap();
    let refused = app
        .serve_http("0.0.0.0:0".parse().unwrap())
        .await
        .expect_err("refused");
    let message = refused.to_string();
    assert!(
        message.contains("refusing to serve 0.0.0.0:0 without authentication"),
        "{message}"
    );
    assert!(message.contains("Server::oauth"), "{message}");
    // An explicit opt-out serves (until stopped).
    let opted_out = mcp_workspace_tests::secured::server()
        .allow_unauthenticated_remote()
        .build()
        .unwrap();
    let serving =
        tokio::spawn(async move { opted_out.serve_http("0.0.0.0:0".parse().unwrap()).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!serving.is_finished(), "the opted-out server is serving");
    serving.abort();
}

// `App::serve_http` answers `/mcp` without going through the router, and every other path
// through it: whatever the path, method or token, it answers as `App::router` served by
// axum does.
#[tokio::test]
async fn serve_http_answers_every_path_as_the_router_does() {
    let issuer = TestIssuer::new(ISSUER).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let direct: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let resource = format!("http://{direct}/mcp");
    let app = mcp_workspace_tests::secured::server()
        .oauth(
            ProtectedResource::new(&resource)
                .authorization_server(ISSUER)
                .scopes_supported(["orders:read", "orders:write"]),
            issuer.verifier(&resource).unwrap(),
        )
        .build()
        .unwrap();
    let serving = tokio::spawn({
        let app = app.clone();
        async move { app.serve_http(direct).await }
    });
    let routed = common::serve(app).await;
    let started = tokio::time::Instant::now();
    while tokio::net::TcpStream::connect(direct).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "serve_http listens"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let token = issuer
        .token(&resource)
        .subject("alice")
        .tenant("acme")
        .scopes(["orders:read"])
        .mint();
    let auth = format!("Bearer {token}");
    let bearer = [("Authorization", auth.as_str())];
    let mut requests = vec![
        call("caller", json!({}), &bearer),
        call("caller", json!({}), &[]),
        call("caller", json!({}), &[("Authorization", "Bearer forged")]),
        common::post_to("/mcp?probe=1", &bearer, "{}"),
        common::post_to("/mcp/", &bearer, "{}"),
        common::post_to("/MCP", &bearer, "{}"),
        common::post(&bearer, "{not json"),
        get("/mcp", &bearer),
        get("/healthz", &[]),
        get("/readyz", &[]),
        get("/.well-known/oauth-protected-resource/mcp", &[]),
        get("/.well-known/oauth-protected-resource", &[]),
        get("/nowhere", &[]),
    ];
    // The valid call is answered, so the comparison covers a call that ran.
    assert_eq!(send(direct, &requests[0]).await.status, 200);
    for method in ["DELETE", "HEAD", "PUT"] {
        let mut other = get("/mcp", &bearer);
        other.splice(..3, method.bytes());
        requests.push(other);
    }
    for request in &requests {
        let head = String::from_utf8_lossy(request)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        let (ours, router) = (send(direct, request).await, send(routed, request).await);
        assert_eq!(ours.status, router.status, "{head}");
        assert_ne!(ours.status, 0, "{head}");
        for name in [
            "content-type",
            "content-length",
            "transfer-encoding",
            "www-authenticate",
            "allow",
            "cache-control",
        ] {
            assert_eq!(ours.header(name), router.header(name), "{name} of {head}");
        }
        assert_eq!(
            String::from_utf8_lossy(&ours.body),
            String::from_utf8_lossy(&router.body),
            "{head}"
        );
    }
    serving.abort();
}

// S-023: on stdio the host names the caller; handlers and scopes see it.
#[tokio::test]
async fn stdio_callers_are_named_by_the_host() {
    let app = mcp_workspace_tests::secured::server()
        .stdio_principal(
            Principal::new("desktop-user")
                .with_tenant("acme")
                .with_scopes(["orders:read"]),
        )
        .build()
        .unwrap();
    let (mut lines, mut write) = common::stdio(app);
    let ask = |id: u64, tool: &str| {
        common::body(id, "tools/call", json!({"name": tool, "arguments": {}})) + "\n"
    };
    use tokio::io::AsyncWriteExt;
    write.write_all(ask(1, "caller").as_bytes()).await.unwrap();
    let reply = common::next_line(&mut lines).await;
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "desktop-user of acme with [orders:read]"
    );
    write
        .write_all(ask(2, "place_tenant_order").as_bytes())
        .await
        .unwrap();
    let reply = common::next_line(&mut lines).await;
    assert_eq!(reply["error"]["code"], -31403);
    assert_eq!(
        reply["error"]["data"]["requiredScopes"],
        json!(["orders:write"])
    );
}

// Keys from a JWKS URL: fetched on first use, and fetched again when the issuer rotates
// to a key the cache has not seen. A JWKS that cannot be fetched refuses tokens (401),
// it does not let them through.
#[tokio::test]
async fn jwks_keys_are_fetched_and_rotated() {
    let first = TestIssuer::new(ISSUER).unwrap();
    let second = TestIssuer::new(ISSUER).unwrap();
    let published = Arc::new(Mutex::new(first.jwks()));
    let jwks_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let jwks_url = format!("http://{}/jwks.json", jwks_listener.local_addr().unwrap());
    let served = published.clone();
    let jwks_app = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || {
            let served = served.clone();
            async move { axum::Json(served.lock().unwrap().clone()) }
        }),
    );
    tokio::spawn(async move { axum::serve(jwks_listener, jwks_app).await });

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let verifier = JwtVerifier::new(ISSUER, &resource, KeySource::jwks_url(&jwks_url));
    let app = mcp_workspace_tests::secured::server()
        .oauth(
            ProtectedResource::new(&resource).authorization_server(ISSUER),
            verifier,
        )
        .build()
        .unwrap();
    let addr = serve_on(listener, app).await;
    let call_with = |token: String| async move {
        let auth = format!("Bearer {token}");
        send(
            addr,
            &call("caller", json!({}), &[("Authorization", &auth)]),
        )
        .await
    };
    let by_first = first.token(&resource).subject("alice").mint();
    assert_eq!(call_with(by_first.clone()).await.status, 200);
    // Rotation: the issuer now publishes only its new key.
    *published.lock().unwrap() = second.jwks();
    let by_second = second.token(&resource).subject("bob").mint();
    // Refetches are spaced out (a flood of unknown key ids must not flood the issuer).
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let reply = call_with(by_second).await;
    assert_eq!(reply.status, 200, "{}", challenge(&reply));
    assert_eq!(reply.tool_text(), "bob of no tenant with []");

    let unreachable = JwtVerifier::new(
        ISSUER,
        "http://127.0.0.1/mcp",
        KeySource::jwks_url("http://127.0.0.1:9/jwks.json"),
    );
    let token = first.token("http://127.0.0.1/mcp").subject("alice").mint();
    // S-340: when the issuer's keys cannot be fetched, the token is refused, not trusted.
    let refused = mcp_runtime::policy::oauth::TokenVerifier::verify(&unreachable, &token)
        .await
        .unwrap_err();
    assert!(
        refused.description().contains("could not be fetched"),
        "{refused}"
    );
}

/// A `tracing` writer that keeps everything in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// S-341, S-345: tokens never appear in the logs, at any level, whether they verify or
// not; handlers see the principal, never the token.
#[tokio::test]
async fn tokens_are_never_logged() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let s = Secured::start(|s| s).await;
    let good = s.token("alice", "acme", &["orders:read"]);
    let expired = s
        .issuer
        .token(&s.resource)
        .subject("alice")
        .expired()
        .mint();
    let foreign = s
        .issuer
        .token("https://elsewhere.example/mcp")
        .subject("alice")
        .mint();
    for token in [&good, &expired, &foreign] {
        s.call_as(token, "caller", json!({})).await;
        s.call_as(token, "place_tenant_order", json!({"item": "x"}))
            .await;
    }
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("refused an access token"),
        "the refusals are logged: {logs}"
    );
    // S-274, S-339, S-341: no piece of any token, accepted or refused, is in the logs.
    for token in [&good, &expired, &foreign] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(!logs.contains(signature), "a token leaked into the logs");
        let payload = token.split('.').nth(1).unwrap();
        assert!(!logs.contains(payload), "a token leaked into the logs");
    }
}

// Callers without authentication share one allowance of concurrent calls: a call beyond
// it is refused with a clear error, the running call is not disturbed, and the slot comes
// back when it ends.
#[tokio::test]
async fn anonymous_callers_share_one_concurrency_allowance() {
    use tokio::io::AsyncWriteExt as _;
    let app = mcp_workspace_tests::long::server(Arc::default())
        .max_concurrent_calls(1)
        .build()
        .unwrap();
    let (mut lines, mut write) = common::stdio(app);
    let call = |id: u64, name: &str, arguments: Value| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments,
                       "_meta": mcp_runtime::testing::default_meta()}
        })
        .to_string()
            + "\n"
    };
    let both = call(1, "takes", json!({"ms": 400})) + &call(2, "plain", json!({}));
    write.write_all(both.as_bytes()).await.unwrap();
    let refused = common::next_line(&mut lines).await;
    assert_eq!(refused["id"], 2, "{refused}");
    assert_eq!(refused["error"]["code"], -31429, "{refused}");
    assert_eq!(refused["error"]["data"]["reason"], "concurrency");
    assert_eq!(refused["error"]["data"]["maxConcurrent"], 1);
    let first = common::next_line(&mut lines).await;
    assert_eq!(first["id"], 1);
    assert_eq!(first["result"]["content"][0]["text"], "took 400 ms");
    write
        .write_all(call(3, "plain", json!({})).as_bytes())
        .await
        .unwrap();
    let again = common::next_line(&mut lines).await;
    assert_eq!(again["id"], 3);
    assert_eq!(again["result"]["content"][0]["text"], "plain", "{again}");
}

// S-288, S-329, S-345: a handler knows the verified caller (subject, scopes, tenant,
// claims) and never the token itself, so it cannot pass the client's token on to another
// service.
#[tokio::test]
async fn handlers_see_the_caller_never_the_token() {
    /// Shows all it is told about the request and its caller.
    #[mcp_runtime::tool]
    async fn everything(ctx: mcp_runtime::RequestContext) -> String {
        format!(
            "{ctx:?} {:?} {}",
            ctx.principal(),
            serde_json::Value::Object(ctx.meta().clone())
        )
    }
    let issuer = TestIssuer::new(ISSUER).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let app = Server::new("t", "1")
        .only(mcp_runtime::tools![everything])
        .oauth(
            ProtectedResource::new(&resource).authorization_server(ISSUER),
            issuer.verifier(&resource).unwrap(),
        )
        .build()
        .unwrap();
    let addr = serve_on(listener, app).await;
    let token = issuer
        .token(&resource)
        .subject("alice")
        .claim("tenant", json!("acme"))
        .mint();
    let auth = format!("Bearer {token}");
    let reply = send(
        addr,
        &call("everything", json!({}), &[("Authorization", &auth)]),
    )
    .await;
    assert_eq!(reply.status, 200);
    let seen = reply.tool_text();
    // S-285: the caller is who the token names: its sub and its claims.
    assert!(seen.contains("alice") && seen.contains("acme"), "{seen}");
    // S-288, S-329, S-339, S-345: no piece of the token reaches a handler, so none can
    // pass it on to another service.
    for part in token.split('.') {
        assert!(
            !seen.contains(part),
            "a piece of the token reached the handler: {seen}"
        );
    }
}
