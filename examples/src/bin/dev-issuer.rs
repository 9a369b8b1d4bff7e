//! A development token issuer: it publishes a fresh signing key as JWKS and mints access
//! tokens for whatever subject, tenant and scopes you ask. It exists to try a secured
//! server on one machine (the book's "Securing a server" walks through it); it checks
//! nobody's identity, so never put it in front of anything real.
//!
//! ```text
//! cargo run -p mcp-examples --bin dev-issuer -- --http 127.0.0.1:9000
//! curl -s http://127.0.0.1:9000/token -H 'content-type: application/json' \
//!   -d '{"sub":"wile","tenant":"acme","scope":"orders:read","resource":"http://127.0.0.1:8080/mcp"}'
//! ```
//!
//! Endpoints: `GET /.well-known/jwks.json` (the public key), `GET
//! /.well-known/oauth-authorization-server` (RFC 8414 metadata) and `POST /token`, which
//! takes `{sub, tenant?, scope?, resource, expires_in?}` and answers
//! `{access_token, token_type, expires_in, scope}`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use mcp_runtime::testing::TestIssuer;
use serde::Deserialize;
use serde_json::{json, Value};

/// What `POST /token` takes.
#[derive(Deserialize)]
struct TokenRequest {
    /// The subject (who the token speaks for).
    sub: String,
    /// The tenant claim.
    tenant: Option<String>,
    /// Space-separated scopes.
    #[serde(default)]
    scope: String,
    /// The MCP server's resource URI: the token's audience.
    resource: String,
    /// Lifetime in seconds (default 3600).
    expires_in: Option<u64>,
}

async fn token(
    State(issuer): State<Arc<TestIssuer>>,
    Json(request): Json<TokenRequest>,
) -> (StatusCode, Json<Value>) {
    if request.sub.is_empty() || request.resource.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            Json(
                json!({"error": "invalid_request", "error_description": "sub and resource are required"}),
            ),
        );
    }
    let lifetime = request.expires_in.unwrap_or(3600).min(86_400);
    let mut builder = issuer
        .token(&request.resource)
        .subject(&request.sub)
        .scopes(request.scope.split_ascii_whitespace())
        .expires_in(Duration::from_secs(lifetime));
    if let Some(tenant) = &request.tenant {
        builder = builder.tenant(tenant);
    }
    (
        StatusCode::OK,
        Json(json!({
            "access_token": builder.mint(),
            "token_type": "Bearer",
            "expires_in": lifetime,
            "scope": request.scope,
        })),
    )
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let addr: SocketAddr = match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => addr.parse().map_err(|e| format!("{addr}: {e}"))?,
        _ => return Err("usage: dev-issuer --http 127.0.0.1:9000".into()),
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| e.to_string())?;
    let base = format!(
        "http://{}",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    let issuer = Arc::new(TestIssuer::new(&base)?);
    let jwks = issuer.jwks();
    let metadata = json!({
        "issuer": base,
        "token_endpoint": format!("{base}/token"),
        "jwks_uri": format!("{base}/.well-known/jwks.json"),
        "response_types_supported": [],
        "grant_types_supported": ["client_credentials"],
    });
    let app = Router::new()
        .route(
            "/.well-known/jwks.json",
            get(move || async move { Json(jwks) }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { Json(metadata) }),
        )
        .route("/token", post(token))
        .with_state(issuer);
    eprintln!("development issuer at {base} (tokens for anyone: never use it for real)");
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}
