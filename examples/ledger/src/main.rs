//! The ledger server: over stdio, or over HTTP inside an axum app that also serves a health
//! page from the same database pool.
//!
//! ```text
//! cargo run -p ledger                                   # stdio, ledger.db in the current folder
//! cargo run -p ledger -- --http 127.0.0.1:8080          # http://127.0.0.1:8080/mcp
//! ```
//!
//! Settings (environment): `LEDGER_DATABASE` (an SQLite file, default `ledger.db`, or a
//! `postgres://` URL), `MCP_STORE` (where the framework keeps used confirmations and
//! idempotency records; give several instances one PostgreSQL), `MCP_SEAL_KEY`,
//! `MCP_ISSUER` (bearer tokens from this issuer; then `MCP_RESOURCE` and `MCP_JWKS_URL` as
//! in the `tenants` example). Without an issuer, HTTP is served without tokens, on loopback
//! only; on stdio the caller is `MCP_PRINCIPAL`, `MCP_TENANT`, `MCP_SCOPES`.

// ANCHOR: uses
use axum::extract::State;
use axum::routing::get;
use ledger::Ledger;
use mcp_runtime::policy::jwt::{JwtVerifier, KeySource};
use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::process::{self, Mode};
// ANCHOR_END: uses

// ANCHOR: health
/// A page of the team's own app, from the same pool the tools use.
async fn health(State(ledger): State<Ledger>) -> Result<String, axum::http::StatusCode> {
    match ledger.transfer_count().await {
        Ok(transfers) => Ok(format!("ok: {transfers} transfers booked\n")),
        Err(_) => Err(axum::http::StatusCode::SERVICE_UNAVAILABLE),
    }
}
// ANCHOR_END: health

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = process::parse_args(std::env::args().skip(1))?;
    process::init_logging();
    let database = std::env::var("LEDGER_DATABASE").unwrap_or_else(|_| "ledger.db".into());
    let ledger = Ledger::open(&database)
        .await
        .map_err(|e| mcp_runtime::Error::Args(format!("LEDGER_DATABASE {database:?}: {e}")))?;
    let mut server = ledger::server(ledger.clone());
    if let Ok(issuer) = std::env::var("MCP_ISSUER") {
        let resource = match (std::env::var("MCP_RESOURCE"), &mode) {
            (Ok(resource), _) => resource,
            (Err(_), Mode::Http(addr)) => format!("http://{addr}/mcp"),
            (Err(_), _) => "http://127.0.0.1/mcp".to_owned(),
        };
        let jwks = std::env::var("MCP_JWKS_URL")
            .unwrap_or_else(|_| format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')));
        let verifier = JwtVerifier::new(&issuer, &resource, KeySource::jwks_url(jwks));
        let metadata = ProtectedResource::new(&resource)
            .authorization_server(&issuer)
            .scopes_supported(["ledger:read", "ledger:write"])
            .name("Ledger");
        server = server.oauth(metadata, verifier);
    }
    let app = server.build()?;
    let Mode::Http(addr) = mode else {
        return app.serve(mode).await;
    };
    if !addr.ip().is_loopback() && std::env::var("MCP_ISSUER").is_err() {
        return Err(mcp_runtime::Error::Args(format!(
            "refusing to serve {addr} without tokens: set MCP_ISSUER, or bind to 127.0.0.1"
        )));
    }
    // The MCP endpoint is one route of the team's app; both share the ledger's pool.
    let router = axum::Router::new()
        .route("/health", get(health))
        .with_state(ledger)
        .merge(app.router());
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(mcp_runtime::Error::Io)?;
    let local = listener.local_addr().map_err(mcp_runtime::Error::Io)?;
    tracing::info!("serving MCP over Streamable HTTP at http://{local}/mcp");
    let drained = app.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            process::shutdown_signal().await;
            // Beside axum's own wait for open connections: calls in flight get the grace
            // period, then stop; open streams end.
            tokio::spawn(async move { drained.shutdown().await });
        })
        .await
        .map_err(mcp_runtime::Error::Io)
}
// ANCHOR_END: main
