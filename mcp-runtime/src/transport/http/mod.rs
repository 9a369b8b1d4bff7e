//! Streamable HTTP (2026-07-28): `POST /mcp` with one JSON-RPC message per body.
//!
//! Checks, in order: Host/Origin allowlist (403), the bearer token when a verifier is
//! configured (401, or 400 for a malformed authorization), method (405), `Content-Type`
//! (415 unless `application/json`), body size (413) and arrival time (408), nesting depth
//! (-32600), JSON (-32700), declared scopes (403 with an `insufficient_scope` challenge),
//! envelope (-32600), the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers and a
//! tool's `Mcp-Param-*` headers against the body (-32020), then the era adapter (version
//! -32022, method -32601 with 404, `_meta` -32602 with 400).
//!
//! The caller is the principal the verifier makes of the bearer token or, without a
//! verifier, the `Principal` a layer in front of this router put into the request's
//! extensions (none: anonymous). One rule holds for refusals for want of scopes, whichever
//! check makes them (the declared scopes above, or the core's check and the `Authorize`
//! hook's `Denied::insufficient_scope` later) and whatever named the caller: HTTP 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="<every scope needed>"`
//! (plus `resource_metadata` when protected-resource metadata is published), and the
//! JSON-RPC error -31403 with `data.requiredScopes` as the body, in both eras. Only the
//! responses of a 2025-03-26 batch, which share one status, stay 200.
//!
//! Responses are JSON, except in two cases that stream Server-Sent Events: a request whose
//! client asked for progress or log messages (and accepts `text/event-stream`) switches to
//! SSE when its first notification is ready (a request that finishes first is answered
//! with plain JSON and its proper status), and `subscriptions/listen` is always a stream.
//! Closing a response stream, or the connection, cancels the request.
//!
//! The module's parts: `endpoint` takes a request through its steps, `headers` reads
//! and checks headers, `auth` renders the token policy's answers, `sse` streams,
//! `render` writes JSON responses, and `session` (feature `legacy`) serves handshake-era
//! sessions: their `Mcp-Session-Id`, resumable event streams, `GET` and `DELETE`.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::any;
use axum::Router;
use tokio_util::sync::CancellationToken;
use tower::{Service, ServiceExt as _};

use crate::core::Core;
use crate::era::Eras;
use crate::policy::oauth::HttpAuth;

#[cfg(feature = "oauth")]
mod accounts;
mod auth;
mod endpoint;
pub(crate) mod headers;
mod render;
#[cfg(feature = "legacy")]
pub(crate) mod session;
mod sse;

/// The property tests decode header values the way the endpoint does.
#[cfg(test)]
pub(crate) use headers::decode_sentinel;
#[cfg(feature = "legacy")]
pub(crate) use session::Sessions;

use render::json;

/// HTTP limits, the DNS-rebinding allowlist and the bearer-token check.
#[derive(Clone)]
pub struct HttpConfig {
    /// Hosts accepted in `Host` and `Origin` (compared without port, case-insensitively).
    pub allowed_hosts: Vec<String>,
    /// Largest accepted body in bytes.
    pub max_body_bytes: usize,
    /// Longest time a client may take to send its body.
    pub body_timeout: Duration,
    /// Serve a non-loopback address without a token verifier.
    pub allow_unauthenticated_remote: bool,
    pub(crate) auth: Option<HttpAuth>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("body_timeout", &self.body_timeout)
            .field(
                "allow_unauthenticated_remote",
                &self.allow_unauthenticated_remote,
            )
            .field("verifies_tokens", &self.auth.is_some())
            .field(
                "oauth",
                &self
                    .auth
                    .as_ref()
                    .and_then(|a| a.resource())
                    .map(|r| r.resource()),
            )
            .finish()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            max_body_bytes: 4 * 1024 * 1024,
            body_timeout: Duration::from_secs(30),
            allow_unauthenticated_remote: false,
            auth: None,
        }
    }
}

/// What every request of one router shares, behind one reference count: axum clones a
/// route's state for each request, three times, and the members' own clones cost more
/// (the cancellation token's takes a lock).
#[derive(Clone)]
struct Shared(Arc<SharedParts>);

impl std::ops::Deref for Shared {
    type Target = SharedParts;

    fn deref(&self) -> &SharedParts {
        &self.0
    }
}

/// The members of [`Shared`].
struct SharedParts {
    core: Arc<Core>,
    config: Arc<HttpConfig>,
    closing: CancellationToken,
    /// Handshake-era sessions, owned by the app: every router of it sees the same ones.
    #[cfg(feature = "legacy")]
    sessions: Arc<Sessions>,
    /// The era settings, for telling a message's era.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    eras: Eras,
}

/// Where RFC 9728 metadata lives for a resource at the root of its host.
const ROOT_METADATA: &str = "/.well-known/oauth-protected-resource";

/// One app's HTTP endpoint: `/mcp` (and the protected-resource metadata when tokens are
/// checked) with the state its requests share. Open subscription streams end when
/// `closing` is cancelled.
pub(crate) struct HttpEndpoint(Shared);

impl HttpEndpoint {
    pub(crate) fn new(
        core: Arc<Core>,
        eras: &Eras,
        #[cfg(feature = "legacy")] sessions: Arc<Sessions>,
        config: Arc<HttpConfig>,
        closing: CancellationToken,
    ) -> HttpEndpoint {
        HttpEndpoint(Shared(Arc::new(SharedParts {
            core,
            config,
            closing,
            #[cfg(feature = "legacy")]
            sessions,
            eras: eras.clone(),
        })))
    }

    /// The routes as an axum router, for [`App::router`](crate::App::router).
    pub(crate) fn router(self) -> Router {
        routes(&self.0).with_state(self.0)
    }

    /// What [`App::serve_http`](crate::App::serve_http) serves: the same routes, with
    /// `/mcp` answered without going through the router. axum boxes each route's future,
    /// and `/mcp`'s is several kilobytes, an allocation per request too large for malloc's
    /// fast path; here the request's future lives in the allocation hyper keeps for each
    /// connection.
    pub(crate) fn service(
        self,
    ) -> impl Service<
        Request,
        Response = Response,
        Error = Infallible,
        Future = impl Future<Output = Result<Response, Infallible>> + Send,
    > + Clone
           + Send
           + 'static {
        let shared = self.0;
        let router = routes(&shared).with_state(shared.clone());
        tower::service_fn(move |request: Request| {
            let target = if request.uri().path() == MCP_PATH {
                Target::Mcp(shared.clone())
            } else {
                Target::Other(router.clone())
            };
            async move {
                match target {
                    Target::Mcp(shared) => Ok(endpoint::endpoint(State(shared), request).await),
                    Target::Other(router) => router.oneshot(request).await,
                }
            }
        })
    }
}

/// Where [`HttpEndpoint::service`] sends a request.
enum Target {
    /// `/mcp`, straight to the endpoint.
    Mcp(Shared),
    /// Any other path, through the router.
    Other(Router),
}

/// The path of the MCP endpoint.
const MCP_PATH: &str = "/mcp";

/// The routes: `/mcp`, the probes, and the protected-resource metadata when tokens are
/// checked.
fn routes(shared: &Shared) -> Router<Shared> {
    let mut router = Router::new()
        .route(MCP_PATH, any(endpoint::endpoint))
        .route("/healthz", axum::routing::get(healthz))
        .route("/readyz", axum::routing::get(readyz));
    #[cfg(feature = "oauth")]
    if shared
        .core
        .states
        .get::<crate::core::downstream::Downstreams>()
        .is_some_and(|d| d.accounts.is_some())
    {
        router = router
            .route(
                crate::core::downstream::accounts::CALLBACK_PATH,
                axum::routing::get(accounts::callback),
            )
            .route(
                crate::core::downstream::accounts::CONNECT_PATH,
                axum::routing::get(accounts::connect),
            )
            .route(
                crate::core::downstream::accounts::VERIFIED_PATH,
                axum::routing::get(accounts::verified),
            );
    }
    if let Some(resource) = shared.config.auth.as_ref().and_then(|auth| auth.resource()) {
        // RFC 9728: at the path-inserted location, and at the root for clients that look
        // there first. Without an OAuth flow (API keys) there is no document.
        let own = resource.metadata_path();
        let paths = if own == ROOT_METADATA {
            vec![own]
        } else {
            vec![own, ROOT_METADATA.to_owned()]
        };
        let document = Arc::new(resource.document());
        for path in paths {
            let document = document.clone();
            let serve = move || {
                let document = document.clone();
                async move { auth::metadata_response(&document) }
            };
            router = router.route(&path, axum::routing::get(serve));
        }
    }
    router
}

/// Host check (probes use the pod's address) and no token.
async fn healthz() -> Response {
    probe(StatusCode::OK, "ok")
}

/// Readiness: 200 while the server takes new work, 503 once shutdown has begun, so a load
/// balancer stops routing here before the listener closes.
async fn readyz(State(shared): State<Shared>) -> Response {
    if shared.core.lifecycle.is_ready() {
        probe(StatusCode::OK, "ready")
    } else {
        probe(StatusCode::SERVICE_UNAVAILABLE, "draining")
    }
}

fn probe(status: StatusCode, state: &str) -> Response {
    let mut response = json(status, &serde_json::json!({ "status": state }));
    response.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    response
}
