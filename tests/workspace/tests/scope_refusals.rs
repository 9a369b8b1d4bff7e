//! One rule for refusals for want of scopes on Streamable HTTP: HTTP 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (plus
//! `resource_metadata` when protected-resource metadata is published) and the JSON-RPC
//! error -31403 with `data.requiredScopes` as the body, whichever check refused (the
//! declared scopes at the HTTP edge, the core's own check, an `Authorize` hook's
//! `Denied::insufficient_scope`) and whatever named the caller (API keys, OAuth tokens, an
//! axum layer of the application inserting a `Principal`, or nobody), in both eras. Over
//! stdio the same refusal is the JSON-RPC error alone. Through the router in process
//! (`tower::ServiceExt::oneshot`). Requirement ids (S-nnn) refer to the server checklist.

mod common;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::testing::TestIssuer;
use mcp_runtime::Principal;
use serde_json::{json, Value};
use tower::ServiceExt as _;

/// What the tests call: a scoped tool, prompt and resource, a tool whose hook asks for
/// more scopes for some arguments, and a prompt argument with completions.
mod shelf {
    use mcp_runtime::policy::auth::DeclaredScopes;
    use mcp_runtime::prelude::*;

    /// Lists the books.
    #[tool(read_only, scopes("books:read"))]
    pub async fn list_books() -> &'static str {
        "Dune, Emma, Ulysses"
    }

    /// Lends a book; rare ones need `books:rare` too (the `RareBooks` hook decides).
    #[tool]
    pub async fn lend(title: String) -> String {
        format!("lent {title}")
    }

    /// Recommends a book of a genre.
    #[prompt(scopes("books:read"), complete(genre = genres))]
    pub async fn recommend(
        /// `poetry` or `prose`.
        genre: String,
    ) -> String {
        format!("Recommend some {genre}.")
    }

    /// Genres starting with what was typed.
    pub async fn genres(request: CompletionRequest) -> Vec<String> {
        request.matching(["poetry", "prose"])
    }

    /// One book by number.
    #[resource("shelf://books/<id>", scopes("books:read"))]
    pub async fn book(id: u32) -> String {
        format!("book {id}")
    }

    /// Lending Ulysses needs `books:read` and `books:rare`; a lost book is refused for
    /// another reason.
    pub struct RareBooks;

    impl Authorize for RareBooks {
        async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
            let Action::CallTool { tool, arguments } = action else {
                return Ok(());
            };
            match arguments.get("title").and_then(serde_json::Value::as_str) {
                Some("Ulysses") if tool.name == "lend" => {
                    DeclaredScopes::check_principal(ctx.principal(), &["books:read", "books:rare"])
                }
                Some("Lost") => Err(Denied::new("that book is lost")),
                _ => Ok(()),
            }
        }
    }

    pub fn server() -> Server {
        Server::new("shelf", "1.0.0")
            .only_module(module_path!())
            .authorize(RareBooks)
    }
}

const READER_KEY: &str = "reader-4f7b2c9e1a6d3058";
const RARE_KEY: &str = "rare-8c1e5a7f3b9d2046ab";
const NOBODY_KEY: &str = "nobody-2d9f6b1c8e4a7035";
const ISSUER: &str = "https://issuer.test";
const RESOURCE: &str = "http://127.0.0.1/mcp";

/// How the caller is named.
enum Source {
    /// API keys (`Server::verify_tokens`): no metadata.
    ApiKeys,
    /// OAuth tokens (`Server::oauth`): the challenges name the metadata.
    OAuth(TestIssuer),
    /// The application's own layer inserts a `Principal` from `X-User` and `X-Scopes`.
    Layer,
}

/// The shelf behind one way of naming the caller.
struct Setup {
    router: Router,
    source: Source,
}

/// A stand-in for an application's authentication layer: `X-User` names the caller and
/// `X-Scopes` its scopes; without `X-User` the request goes on anonymous.
async fn team_layer(
    mut request: Request<Body>,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let headers = request.headers();
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let principal = text("x-user").map(|user| {
        Principal::new(user).with_scopes(text("x-scopes").unwrap_or_default().split_whitespace())
    });
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}

impl Setup {
    fn api_keys() -> Setup {
        let keys = ApiKeys::new()
            .key(
                READER_KEY,
                Principal::new("reader").with_scopes(["books:read"]),
            )
            .unwrap()
            .key(
                RARE_KEY,
                Principal::new("curator").with_scopes(["books:read", "books:rare"]),
            )
            .unwrap()
            .key(NOBODY_KEY, Principal::new("nobody"))
            .unwrap();
        let app = shelf::server().verify_tokens(keys).build().unwrap();
        Setup {
            router: app.router(),
            source: Source::ApiKeys,
        }
    }

    fn oauth() -> Setup {
        let issuer = TestIssuer::new(ISSUER).unwrap();
        let app = shelf::server()
            .oauth(
                ProtectedResource::new(RESOURCE).authorization_server(ISSUER),
                issuer.verifier(RESOURCE).unwrap(),
            )
            .build()
            .unwrap();
        Setup {
            router: app.router(),
            source: Source::OAuth(issuer),
        }
    }

    fn layer() -> Setup {
        let app = shelf::server().build().unwrap();
        Setup {
            router: app.router().layer(axum::middleware::from_fn(team_layer)),
            source: Source::Layer,
        }
    }

    fn all() -> Vec<Setup> {
        vec![Setup::api_keys(), Setup::oauth(), Setup::layer()]
    }

    fn name(&self) -> &'static str {
        match self.source {
            Source::ApiKeys => "API keys",
            Source::OAuth(_) => "OAuth",
            Source::Layer => "the application's layer",
        }
    }

    /// Whether challenges name the metadata document.
    fn publishes_metadata(&self) -> bool {
        matches!(self.source, Source::OAuth(_))
    }

    /// The headers naming `who` (`reader`: books:read; `curator`: books:read and
    /// books:rare; `nobody`: no scopes).
    fn credentials(&self, who: &str) -> Vec<(&'static str, String)> {
        let scopes: &[&str] = match who {
            "reader" => &["books:read"],
            "curator" => &["books:read", "books:rare"],
            _ => &[],
        };
        match &self.source {
            Source::ApiKeys => {
                let key = match who {
                    "reader" => READER_KEY,
                    "curator" => RARE_KEY,
                    _ => NOBODY_KEY,
                };
                vec![("authorization", format!("Bearer {key}"))]
            }
            Source::OAuth(issuer) => {
                let token = issuer
                    .token(RESOURCE)
                    .subject(who)
                    .scopes(scopes.iter().copied())
                    .mint();
                vec![("authorization", format!("Bearer {token}"))]
            }
            Source::Layer => vec![("x-user", who.to_owned()), ("x-scopes", scopes.join(" "))],
        }
    }

    /// POST `body` with `headers` (the 2026-07-28 headers are added for a modern body).
    async fn post(&self, headers: &[(&str, String)], body: &Value) -> Answer {
        let mut request = Request::post("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(method) = body.get("method").and_then(Value::as_str) {
            if body.pointer("/params/_meta").is_some() {
                request = request
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", method);
                let name = body
                    .pointer("/params/name")
                    .or_else(|| body.pointer("/params/uri"))
                    .and_then(Value::as_str);
                if let (Some(name), "tools/call" | "prompts/get" | "resources/read") =
                    (name, method)
                {
                    request = request.header("mcp-name", name);
                }
            }
        }
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let request = request.body(Body::from(body.to_string())).unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        Answer::of(response).await
    }

    /// A 2026-07-28 request of `method` as `who`.
    async fn modern(&self, who: &str, method: &str, params: Value) -> Answer {
        let body: Value = serde_json::from_str(&common::body(5, method, params)).unwrap();
        self.post(&self.credentials(who), &body).await
    }
}

/// One response, read whole.
#[derive(Debug)]
struct Answer {
    status: u16,
    challenge: Option<String>,
    body: Value,
}

impl Answer {
    async fn of(response: axum::response::Response) -> Answer {
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned());
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let mut body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if let (Some(session), Value::Object(map)) = (session, &mut body) {
            map.insert("session".into(), json!(session));
        }
        Answer {
            status,
            challenge,
            body,
        }
    }

    /// The refusal the rule says: 403, the challenge naming `scopes` (and the metadata
    /// when `metadata`), the JSON-RPC error -31403 naming them too.
    fn assert_scope_refusal(&self, scopes: &[&str], metadata: bool, context: &str) {
        assert_eq!(self.status, 403, "{context}: {self:?}");
        let challenge = self.challenge.as_deref().unwrap_or_default();
        let scope = scopes.join(" ");
        assert!(
            challenge.starts_with(&format!(
                "Bearer error=\"insufficient_scope\", scope=\"{scope}\""
            )),
            "{context}: {challenge}"
        );
        assert_eq!(
            challenge.contains(
                "resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""
            ),
            metadata,
            "{context}: {challenge}"
        );
        assert_eq!(self.body["error"]["code"], -31403, "{context}: {self:?}");
        assert_eq!(
            self.body["error"]["data"]["requiredScopes"],
            json!(scopes),
            "{context}"
        );
    }

    fn text(&self) -> &str {
        self.body
            .pointer("/result/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

fn call(tool: &str, arguments: Value) -> (&'static str, Value) {
    ("tools/call", json!({"name": tool, "arguments": arguments}))
}

// S-331, S-332, S-333, S-337: a target's declared scopes, checked at the HTTP edge before
// the era adapter, refuse with 403 and the challenge, whatever named the caller; the
// metadata is named only where it is published.
#[tokio::test]
async fn declared_scopes_refuse_with_403_whatever_named_the_caller() {
    for setup in Setup::all() {
        let context = setup.name();
        let metadata = setup.publishes_metadata();
        let (method, params) = call("list_books", json!({}));
        let refused = setup.modern("nobody", method, params.clone()).await;
        // S-331: insufficient scope is 403 (`assert_scope_refusal`), for a tool, a prompt
        // and a resource alike.
        refused.assert_scope_refusal(&["books:read"], metadata, context);
        assert_eq!(refused.body["id"], 5, "{context}");
        let prompt = setup
            .modern(
                "nobody",
                "prompts/get",
                json!({"name": "recommend", "arguments": {"genre": "prose"}}),
            )
            .await;
        prompt.assert_scope_refusal(&["books:read"], metadata, context);
        let read = setup
            .modern(
                "nobody",
                "resources/read",
                json!({"uri": "shelf://books/1"}),
            )
            .await;
        read.assert_scope_refusal(&["books:read"], metadata, context);
        let served = setup.modern("reader", method, params).await;
        assert_eq!(served.status, 200, "{context}: {served:?}");
        assert_eq!(served.text(), "Dune, Emma, Ulysses", "{context}");
    }
}

// S-332, S-334: a hook's `Denied::insufficient_scope` is answered as a declared scope is:
// 403 with the challenge naming every scope the operation needs, also when the client
// asked for a streamed response (the refusal comes before any event).
#[tokio::test]
async fn a_hooks_refusal_for_want_of_scopes_is_the_same_403() {
    for setup in Setup::all() {
        let context = setup.name();
        let metadata = setup.publishes_metadata();
        let (method, rare) = call("lend", json!({"title": "Ulysses"}));
        let refused = setup.modern("reader", method, rare.clone()).await;
        // S-331: a hook's refusal for want of scopes is the same 403 insufficient_scope.
        refused.assert_scope_refusal(&["books:read", "books:rare"], metadata, context);
        assert_eq!(
            refused.body["error"]["message"],
            "Access denied to tool lend: it needs the scope(s) books:read books:rare"
        );
        // Asking for progress (and accepting SSE) does not change the answer.
        let mut streamed = rare.clone();
        streamed["_meta"] = mcp_runtime::testing::default_meta();
        streamed["_meta"]["progressToken"] = json!("p1");
        let refused = setup.modern("reader", method, streamed).await;
        refused.assert_scope_refusal(&["books:read", "books:rare"], metadata, context);
        let lent = setup.modern("curator", method, rare).await;
        assert_eq!(lent.status, 200, "{context}: {lent:?}");
        assert_eq!(lent.text(), "lent Ulysses");
        let (_, common) = call("lend", json!({"title": "Emma"}));
        assert_eq!(setup.modern("reader", method, common).await.status, 200);
    }
}

// The core's own check covers what the edge does not look at (completions of a scoped
// prompt's arguments) and answers the same way.
#[tokio::test]
async fn the_cores_check_of_completions_is_the_same_403() {
    for setup in Setup::all() {
        let context = setup.name();
        let complete = json!({
            "ref": {"type": "ref/prompt", "name": "recommend"},
            "argument": {"name": "genre", "value": "p"}
        });
        let refused = setup
            .modern("nobody", "completion/complete", complete.clone())
            .await;
        refused.assert_scope_refusal(&["books:read"], setup.publishes_metadata(), context);
        let served = setup
            .modern("reader", "completion/complete", complete)
            .await;
        assert_eq!(served.status, 200, "{context}: {served:?}");
        assert_eq!(
            served.body["result"]["completion"]["values"],
            json!(["poetry", "prose"])
        );
    }
}

// Only refusals for want of scopes are 403: another refusal of the hook stays the JSON-RPC
// error -31403 with HTTP 200 and no challenge.
#[tokio::test]
async fn other_refusals_are_not_scope_challenges() {
    for setup in Setup::all() {
        let (method, params) = call("lend", json!({"title": "Lost"}));
        let refused = setup.modern("curator", method, params).await;
        assert_eq!(refused.status, 200, "{}: {refused:?}", setup.name());
        assert_eq!(refused.challenge, None);
        assert_eq!(refused.body["error"]["code"], -31403);
        assert_eq!(refused.body["error"]["data"]["reason"], "that book is lost");
        assert!(refused.body["error"]["data"]
            .get("requiredScopes")
            .is_none());
    }
}

// An anonymous caller holds no scopes. Behind the application's layer (no verifier) it
// gets the same 403, from every check; with a verifier it never gets that far: no token
// is 401 (S-331).
#[tokio::test]
async fn anonymous_callers_get_the_same_403_or_401_with_a_verifier() {
    let layer = Setup::layer();
    let (method, params) = call("list_books", json!({}));
    let body: Value = serde_json::from_str(&common::body(5, method, params.clone())).unwrap();
    layer.post(&[], &body).await.assert_scope_refusal(
        &["books:read"],
        false,
        "anonymous, declared",
    );
    let (_, rare) = call("lend", json!({"title": "Ulysses"}));
    let rare: Value = serde_json::from_str(&common::body(5, method, rare)).unwrap();
    layer.post(&[], &rare).await.assert_scope_refusal(
        &["books:read", "books:rare"],
        false,
        "anonymous, hook",
    );
    let (_, open) = call("lend", json!({"title": "Emma"}));
    let open: Value = serde_json::from_str(&common::body(5, method, open)).unwrap();
    assert_eq!(layer.post(&[], &open).await.status, 200);
    for setup in [Setup::api_keys(), Setup::oauth()] {
        let refused = setup.post(&[], &body).await;
        assert_eq!(refused.status, 401, "{}: {refused:?}", setup.name());
        assert_eq!(refused.body["error"]["code"], -31401);
    }
}

/// A handshake-era session of `who` on `setup`: its id.
#[cfg(feature = "legacy")]
async fn open_session(setup: &Setup, who: &str, version: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}
    });
    let opened = setup.post(&setup.credentials(who), &initialize).await;
    assert_eq!(opened.status, 200, "{}: {opened:?}", setup.name());
    opened.body["session"].as_str().unwrap().to_owned()
}

/// POST `message` to a handshake-era session as `who`.
#[cfg(feature = "legacy")]
async fn in_session(
    setup: &Setup,
    who: &str,
    session: &str,
    version: Option<&str>,
    message: Value,
) -> Answer {
    let mut headers = setup.credentials(who);
    headers.push(("mcp-session-id", session.to_owned()));
    if let Some(version) = version {
        headers.push(("mcp-protocol-version", version.to_owned()));
    }
    setup.post(&headers, &message).await
}

// The rule holds in handshake-era sessions too: the edge's declared scopes, a hook's
// refusal of a request that runs as a task (`tools/call`), and the core's check of one
// answered directly (`completion/complete`).
#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_era_sessions_follow_the_same_rule() {
    let version = "2025-11-25";
    for setup in Setup::all() {
        let context = setup.name();
        let metadata = setup.publishes_metadata();
        let nobody = open_session(&setup, "nobody", version).await;
        let reader = open_session(&setup, "reader", version).await;
        let request = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
        let (method, list) = call("list_books", json!({}));
        in_session(
            &setup,
            "nobody",
            &nobody,
            Some(version),
            request(method, list.clone()),
        )
        .await
        .assert_scope_refusal(&["books:read"], metadata, context);
        let served = in_session(
            &setup,
            "reader",
            &reader,
            Some(version),
            request(method, list),
        )
        .await;
        assert_eq!(served.status, 200, "{context}: {served:?}");
        assert_eq!(served.text(), "Dune, Emma, Ulysses");

        let (_, rare) = call("lend", json!({"title": "Ulysses"}));
        let refused = in_session(
            &setup,
            "reader",
            &reader,
            Some(version),
            request(method, rare),
        )
        .await;
        refused.assert_scope_refusal(&["books:read", "books:rare"], metadata, context);
        assert_eq!(refused.body["id"], 9);

        let complete = request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "recommend"},
                   "argument": {"name": "genre", "value": ""}}),
        );
        in_session(&setup, "nobody", &nobody, Some(version), complete.clone())
            .await
            .assert_scope_refusal(&["books:read"], metadata, context);
        let completed = in_session(&setup, "reader", &reader, Some(version), complete).await;
        assert_eq!(completed.status, 200, "{context}: {completed:?}");
    }
}

// A 2025-03-26 batch shares one HTTP status among its responses, so a refusal inside it
// stays the JSON-RPC error with 200 (the one exception to the rule).
#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_batch_keeps_200_with_the_refusal_inside() {
    let setup = Setup::layer();
    let session = open_session(&setup, "nobody", "2025-03-26").await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "list_books", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "lend", "arguments": {"title": "Emma"}}},
    ]);
    let answered = in_session(&setup, "nobody", &session, None, batch).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.challenge, None);
    let answers = answered.body.as_array().unwrap();
    let refused = answers.iter().find(|a| a["id"] == 1).unwrap();
    assert_eq!(refused["error"]["code"], -31403);
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["books:read"])
    );
    let lent = answers.iter().find(|a| a["id"] == 2).unwrap();
    assert_eq!(lent["result"]["content"][0]["text"], "lent Emma");
}

// Over stdio there is no HTTP status: the refusal is the JSON-RPC error alone, the same
// error as on HTTP.
#[tokio::test]
async fn over_stdio_the_refusal_is_the_json_rpc_error() {
    use tokio::io::AsyncWriteExt as _;
    let app = shelf::server()
        .stdio_principal(Principal::new("reader").with_scopes(["books:read"]))
        .build()
        .unwrap();
    let (mut lines, mut writer) = common::stdio(app);
    let (method, rare) = call("lend", json!({"title": "Ulysses"}));
    let line = common::body(3, method, rare) + "\n";
    writer.write_all(line.as_bytes()).await.unwrap();
    let refused = common::next_line(&mut lines).await;
    assert_eq!(refused["id"], 3);
    assert_eq!(refused["error"]["code"], -31403);
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["books:read", "books:rare"])
    );
    // The same refusal over HTTP, as the rule says.
    let layer = Setup::layer();
    let (_, rare) = call("lend", json!({"title": "Ulysses"}));
    let over_http = layer.modern("reader", method, rare).await;
    assert_eq!(over_http.body["error"], refused["error"]);
}
