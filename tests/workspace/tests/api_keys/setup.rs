//! What the book's "API keys and other opaque tokens" shows: a set of API keys, and a
//! verifier of one's own for opaque tokens, each given to `Server::verify_tokens`.

// ANCHOR: uses
use std::collections::HashMap;
use std::time::SystemTime;

use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::policy::oauth::{TokenError, TokenVerifier};
use mcp_runtime::prelude::*;
use sha2::{Digest as _, Sha256};
// ANCHOR_END: uses

// ANCHOR: api_keys
/// The programs allowed to call, each with its own key and scopes.
pub fn api_keys(
    dashboard_key: &str,
    billing_key_sha256: &str,
) -> Result<ApiKeys, mcp_runtime::Error> {
    let keys = ApiKeys::new()
        .key(
            dashboard_key,
            Principal::new("dashboard")
                .with_scopes(["orders:read"])
                .with_tenant("acme"),
        )?
        // Only the key's SHA-256 (`printf %s "$KEY" | sha256sum`): the configuration
        // holds no usable secret.
        .key_sha256(
            billing_key_sha256,
            Principal::new("billing")
                .with_scopes(["orders:read", "orders:write"])
                .with_tenant("acme"),
        )?;
    Ok(keys)
}

/// The open orders of the caller's tenant.
#[tool(read_only, scopes("orders:read"))]
pub async fn open_orders(tenant: Tenant) -> String {
    format!("No open orders for {tenant}.")
}

/// The server checks every request's key.
pub fn server(keys: ApiKeys) -> Server {
    Server::new("orders", "1.0.0")
        // The tools of this module only (a test binary links others too).
        .only_module(module_path!())
        .verify_tokens(keys)
}
// ANCHOR_END: api_keys

/// The tests' secured fixtures, served behind `keys`.
pub fn secured(keys: ApiKeys) -> Server {
    mcp_workspace_tests::secured::server().verify_tokens(keys)
}

// ANCHOR: verifier
/// Tokens of the team's own login service, kept in its database by their SHA-256 with
/// whom they stand for and until when (a map here; a query in real code).
pub struct LoginTokens {
    pub by_digest: HashMap<Vec<u8>, (Principal, SystemTime)>,
}

impl TokenVerifier for LoginTokens {
    async fn verify(&self, token: &str) -> Result<Principal, TokenError> {
        let digest = Sha256::digest(token.as_bytes());
        match self.by_digest.get(digest.as_slice()) {
            Some((principal, until)) if *until > SystemTime::now() => Ok(principal.clone()),
            Some(_) => Err(TokenError::new("the token expired; log in again")),
            None => Err(TokenError::new("unknown token")),
        }
    }
}
// ANCHOR_END: verifier
