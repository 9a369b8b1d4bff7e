//! Connected accounts: a caller's own credentials at a third-party API with no token
//! exchange, obtained once by the authorization-code flow with PKCE through this server's
//! routes, and kept in the server's store, encrypted, per caller and provider.
//!
//! - A handler asks with [`Downstream::account`](crate::downstream::Downstream::account).
//!   Connected: the access token (refreshed with the refresh token when it expires; a
//!   rotated refresh token replaces the old one). Not connected: the call asks the client
//!   to open the provider's sign-in page (a URL elicitation) and goes on once answered.
//! - The sign-in's `state` is sealed with the vault key: it names the caller, the
//!   provider and the PKCE verifier, and opens on any instance with the key. The provider sends the browser back to `/oauth/callback`, which trades
//!   the code for tokens and stores them.
//! - A record holds only ciphertext: XChaCha20-Poly1305 under the deployment's key, bound
//!   to the record's provider and caller, so a row copied to another caller's key does not
//!   open. Earlier keys may be given to read records written before a rotation; every
//!   write uses the current key.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::answer::{DownstreamError, DownstreamToken};
use crate::clock::now_ms;
use crate::core::input::Elicitation;
use crate::core::RequestContext;
use crate::policy::principal::Principal;
use crate::policy::seal::{SealKey, Sealer};
use crate::policy::token_endpoint::{ClientAuth, EndpointError, TokenEndpoint};
use crate::protocol::{codes, RpcError};
use crate::store::Records;

mod sign_in;

pub(crate) use sign_in::Finished;

/// The path of the route the provider sends the browser back to.
pub(crate) const CALLBACK_PATH: &str = "/oauth/callback";

/// The path a sign-in link leads to when the browser's user is checked first.
pub(crate) const CONNECT_PATH: &str = "/oauth/connect";

/// The path this server's own authorization server sends the browser back to, with who
/// signed in.
pub(crate) const VERIFIED_PATH: &str = "/oauth/verified";

/// How long a sign-in link stays good.
const SIGN_IN_TTL_MS: u64 = 10 * 60 * 1000;

/// How long before its expiry an access token is refreshed.
const MARGIN_MS: u64 = 30_000;

/// How long a connection is kept without use (its refresh token's life is the provider's
/// to say; an unused connection goes after this).
const CONNECTION_TTL_MS: u64 = 90 * 24 * 3600 * 1000;

/// The connected accounts a server offers: the vault's key and the providers callers
/// connect to. Given to [`Server::accounts`](crate::Server::accounts).
///
/// ```
/// use mcp_runtime::downstream::{AccountProvider, Accounts, ClientAuth};
/// use mcp_runtime::SealKey;
///
/// let vault_key = SealKey::parse(&"1f".repeat(32)).unwrap(); // from your secret store
/// let accounts = Accounts::new(vault_key, "https://mcp.example.com").provider(
///     AccountProvider::new(
///         "calendar",
///         "https://accounts.example.com/authorize",
///         "https://accounts.example.com/token",
///         ClientAuth::secret_basic("mcp-calendar", "the client secret"),
///     )
///     .scopes(["offline_access", "calendar:read"]),
/// );
/// ```
#[derive(Debug, Clone)]
pub struct Accounts {
    key: SealKey,
    previous: Vec<SealKey>,
    public_url: String,
    providers: Vec<AccountProvider>,
    user_check: Option<UserCheck>,
}

/// The check that the person who opens a sign-in link is the caller it was made for: before
/// the provider's sign-in, the browser signs in with OpenID Connect at the authorization
/// server that issues this server's tokens, and the ID token's subject must be the
/// caller's. Given to [`Accounts::check_user`].
///
/// The ID token comes straight from the token endpoint over the connection this server
/// opened, so its issuer, audience, expiry and nonce are checked, not its signature
/// (OpenID Connect Core 3.1.3.7).
#[derive(Debug, Clone)]
pub struct UserCheck {
    issuer: String,
    authorize_url: String,
    token_url: String,
    auth: ClientAuth,
}

impl UserCheck {
    /// Sign-ins at `issuer`, through its authorization and token endpoints, as the client
    /// `auth` names (register `<public URL>/oauth/verified` as its redirect URI).
    pub fn new(
        issuer: impl Into<String>,
        authorize_url: impl Into<String>,
        token_url: impl Into<String>,
        auth: ClientAuth,
    ) -> Self {
        UserCheck {
            issuer: issuer.into(),
            authorize_url: authorize_url.into(),
            token_url: token_url.into(),
            auth,
        }
    }
}

/// A provider callers connect an account at: its authorization and token endpoints, this
/// server's client registration there, and what to ask for.
#[derive(Debug, Clone)]
pub struct AccountProvider {
    name: String,
    authorize_url: String,
    token_url: String,
    auth: ClientAuth,
    scopes: Vec<String>,
    resource: Option<String>,
}

impl AccountProvider {
    /// The provider `name` (what [`Downstream::account`](crate::downstream::Downstream::account)
    /// names), with its authorization endpoint, its token endpoint, and how this server
    /// authenticates at the latter.
    pub fn new(
        name: impl Into<String>,
        authorize_url: impl Into<String>,
        token_url: impl Into<String>,
        auth: ClientAuth,
    ) -> Self {
        AccountProvider {
            name: name.into(),
            authorize_url: authorize_url.into(),
            token_url: token_url.into(),
            auth,
            scopes: Vec::new(),
            resource: None,
        }
    }

    /// The scopes the sign-in asks for (`offline_access` or the provider's equivalent is
    /// what gets a refresh token).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The API the tokens are for, sent as `resource` (RFC 8707) in the sign-in and the
    /// token requests, for providers that issue tokens per API.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }
}

impl Accounts {
    /// Accounts kept in the server's store, encrypted with `vault_key`, at a server whose
    /// routes browsers reach at `public_url` (the provider sends them back to
    /// `<public_url>/oauth/callback`, the redirect URI to register with each provider).
    pub fn new(vault_key: SealKey, public_url: impl Into<String>) -> Self {
        Accounts {
            key: vault_key,
            previous: Vec::new(),
            public_url: public_url.into().trim_end_matches('/').to_owned(),
            providers: Vec::new(),
            user_check: None,
        }
    }

    /// Check that whoever opens a sign-in link is the caller it was made for, as the
    /// specification asks of URL elicitations: they sign in at `check`'s authorization
    /// server first, and a different user is refused before the provider is reached.
    /// Without it, a link works for whoever opens it, so it must reach its caller alone.
    pub fn check_user(mut self, check: UserCheck) -> Self {
        self.user_check = Some(check);
        self
    }

    /// Keys records may have been written with before a rotation: read with them, written
    /// again with the current key on their next change.
    pub fn previous_keys(mut self, keys: impl IntoIterator<Item = SealKey>) -> Self {
        self.previous.extend(keys);
        self
    }

    /// A provider callers may connect to.
    pub fn provider(mut self, provider: AccountProvider) -> Self {
        self.providers.push(provider);
        self
    }

    /// The vault this configuration makes over `records`, or what is wrong with it.
    pub(crate) fn start(self, records: Records) -> Result<Vault, Vec<String>> {
        let mut problems = Vec::new();
        let callback = format!("{}{CALLBACK_PATH}", self.public_url);
        if let Err(problem) = crate::protocol::checks::user_url(&callback) {
            problems.push(format!(
                "Server::accounts: the public URL `{}` cannot be a redirect URI: {problem}",
                self.public_url
            ));
        }
        let mut providers = BTreeMap::new();
        for provider in self.providers {
            let name = provider.name.clone();
            if let Err(problem) = crate::protocol::checks::user_url(&provider.authorize_url) {
                problems.push(format!(
                    "account provider `{name}`: the authorization endpoint is not a page a user can open: {problem}"
                ));
            }
            match TokenEndpoint::new(&provider.token_url, provider.auth.clone()) {
                Ok(endpoint) => {
                    if providers
                        .insert(name.clone(), Configured { provider, endpoint })
                        .is_some()
                    {
                        problems.push(format!("account provider `{name}` is given twice"));
                    }
                }
                Err(problem) => problems.push(format!("account provider `{name}`: {problem}")),
            }
        }
        let user_check = match self.user_check {
            None => None,
            Some(check) => {
                if let Err(problem) = crate::protocol::checks::user_url(&check.authorize_url) {
                    problems.push(format!("Accounts::check_user: the authorization endpoint is not a page a user can open: {problem}"));
                }
                match TokenEndpoint::new(&check.token_url, check.auth.clone()) {
                    Ok(endpoint) => Some((check, endpoint)),
                    Err(problem) => {
                        problems.push(format!("Accounts::check_user: {problem}"));
                        None
                    }
                }
            }
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Vault {
            connect: format!("{}{CONNECT_PATH}", self.public_url),
            verified: format!("{}{VERIFIED_PATH}", self.public_url),
            user_check,
            key: Sealer::new(&self.key),
            previous: self.previous.iter().map(Sealer::new).collect(),
            callback,
            providers,
            records,
        })
    }
}

struct Configured {
    provider: AccountProvider,
    endpoint: TokenEndpoint,
}

/// The running connected accounts of a server.
pub(crate) struct Vault {
    /// The key records are written with.
    key: Sealer,
    /// Earlier keys, to read records written before a rotation.
    previous: Vec<Sealer>,
    callback: String,
    /// `<public URL>/oauth/connect` and `/oauth/verified`.
    connect: String,
    verified: String,
    /// The check of the browser's user, with its token endpoint.
    user_check: Option<(UserCheck, TokenEndpoint)>,
    providers: BTreeMap<String, Configured>,
    records: Records,
}

/// What the `state` of a user check carries, sealed: the sign-in it leads to.
#[derive(Serialize, Deserialize)]
struct Check {
    /// The sign-in's own sealed state.
    sign_in: String,
    nonce: String,
    verifier: String,
}

/// What is kept of one connection, encrypted.
#[derive(Serialize, Deserialize)]
struct Connection {
    access_token: String,
    /// When the access token expires, when the provider said.
    expires_at_ms: Option<u64>,
    refresh_token: Option<String>,
    scope: Option<String>,
    connected_at_ms: u64,
}

/// A stored record: the ciphertext, nothing else.
#[derive(Serialize, Deserialize)]
struct Sealed {
    sealed: String,
}

/// What the `state` of a sign-in carries, sealed.
#[derive(Serialize, Deserialize)]
struct SignIn {
    provider: String,
    subject: String,
    tenant: Option<String>,
    verifier: String,
    expires_at_ms: u64,
}

/// A connection of a caller, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ConnectedAccount {
    /// The provider's name.
    pub provider: String,
    /// The scopes the provider granted, when it said.
    pub scope: Option<String>,
    /// When the account was connected (milliseconds since the Unix epoch).
    pub connected_at_ms: u64,
}

impl Vault {
    /// Every key a record may open with, the current one first.
    fn keys(&self) -> impl Iterator<Item = &Sealer> {
        std::iter::once(&self.key).chain(&self.previous)
    }

    /// The store key of `who`'s connection at `provider`: the caller's names are hashed.
    fn key(provider: &str, who: &Principal) -> String {
        let mut hash = Sha256::new();
        hash.update(who.tenant().unwrap_or("").as_bytes());
        hash.update([0]);
        hash.update(who.subject.as_bytes());
        let digest = hash.finalize();
        let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("acct:{provider}:{hex}")
    }

    /// What a record is bound to: it opens for this provider and caller alone.
    fn binding(provider: &str, who: &Principal) -> Vec<u8> {
        format!(
            "mcp-vault-v1\0{provider}\0{}\0{}",
            who.tenant().unwrap_or(""),
            who.subject
        )
        .into_bytes()
    }

    fn seal(
        &self,
        provider: &str,
        who: &Principal,
        connection: &Connection,
    ) -> Result<Sealed, String> {
        let plain = serde_json::to_vec(connection).map_err(|e| e.to_string())?;
        let sealed = self.key.seal_with(&Self::binding(provider, who), &plain)?;
        Ok(Sealed { sealed })
    }

    fn open(&self, provider: &str, who: &Principal, sealed: &Sealed) -> Option<Connection> {
        let binding = Self::binding(provider, who);
        self.keys()
            .find_map(|key| key.open_with(&binding, &sealed.sealed, 64 * 1024).ok())
            .and_then(|plain| serde_json::from_slice(&plain).ok())
    }

    fn configured(&self, provider: &str) -> Result<&Configured, DownstreamError> {
        self.providers.get(provider).ok_or_else(|| {
            DownstreamError::protocol(RpcError::internal(format!(
                "Internal error: a handler asked for the account at `{provider}`, which is not among the server's account providers"
            )))
        })
    }

    /// The caller's token at `provider`; asks the caller to connect when there is none.
    pub(crate) async fn token(
        &self,
        ctx: &RequestContext,
        provider: &str,
    ) -> Result<DownstreamToken, DownstreamError> {
        let configured = self.configured(provider)?;
        let Some(who) = ctx.principal() else {
            return Err(DownstreamError::protocol(
                RpcError::new(
                    codes::UNAUTHORIZED,
                    format!("The account at {provider} belongs to a caller, and this call has none: authenticate first."),
                )
                .with_data(json!({"reason": "anonymous"})),
            ));
        };
        if let Some(token) = self.stored_token(configured, who).await? {
            return Ok(token);
        }
        let question = format!("connect:{provider}");
        let url = self.sign_in_url(configured, who).map_err(store_failed)?;
        let message = format!(
            "This needs your {provider} account. Open the link to sign in there and allow access, then come back and accept."
        );
        match ctx.elicit_url(&question, &message, &url) {
            Err(input) => Err(DownstreamError::protocol(input.to_rpc_error())),
            Ok(Elicitation::Accepted(())) => match self.stored_token(configured, who).await? {
                Some(token) => Ok(token),
                None => Err(DownstreamError::refused(
                    format!("The {provider} account is not connected yet: the sign-in did not finish. Call again to get a new link."),
                    json!({"provider": provider, "connected": false}),
                )),
            },
            Ok(_) => Err(DownstreamError::refused(
                format!("The user did not connect their {provider} account, so this could not be done."),
                json!({"provider": provider, "connected": false}),
            )),
        }
    }

    /// The stored access token, refreshed when it is about to expire; `None` when not
    /// connected (or the connection died: a refresh token the provider no longer takes).
    async fn stored_token(
        &self,
        configured: &Configured,
        who: &Principal,
    ) -> Result<Option<DownstreamToken>, DownstreamError> {
        let provider = configured.provider.name.as_str();
        let key = Self::key(provider, who);
        for _ in 0..4 {
            let Some(loaded) = self
                .records
                .load::<Sealed>(&key)
                .await
                .map_err(store_failed)?
            else {
                return Ok(None);
            };
            let Some(connection) = self.open(provider, who, &loaded.value) else {
                // Sealed with a key no longer given, or not for this caller: unusable.
                tracing::warn!(
                    provider,
                    "a stored connection does not open with the vault's keys; it is dropped"
                );
                let _ = self.records.remove(&key, loaded.version).await;
                return Ok(None);
            };
            let now = now_ms();
            let fresh = connection
                .expires_at_ms
                .is_none_or(|at| now + MARGIN_MS < at);
            if fresh {
                return Ok(Some(DownstreamToken::new(
                    connection.access_token.into(),
                    connection.expires_at_ms,
                )));
            }
            let Some(refresh) = connection.refresh_token.as_deref() else {
                let _ = self.records.remove(&key, loaded.version).await;
                return Ok(None);
            };
            let mut fields = vec![("grant_type", "refresh_token"), ("refresh_token", refresh)];
            if let Some(resource) = &configured.provider.resource {
                fields.push(("resource", resource));
            }
            match configured.endpoint.request(&fields).await {
                Ok(issued) => {
                    let renewed = Connection {
                        expires_at_ms: issued.expires_in.map(|s| now.saturating_add(s.saturating_mul(1000))),
                        access_token: issued.access_token,
                        // Rotated when the provider issued a new one; else the old one stays.
                        refresh_token: issued.refresh_token.or(connection.refresh_token.clone()),
                        scope: issued.scope.or(connection.scope.clone()),
                        connected_at_ms: connection.connected_at_ms,
                    };
                    let sealed = self.seal(provider, who, &renewed).map_err(store_failed)?;
                    let stored = self
                        .records
                        .replace(&key, loaded.version, &sealed, now.saturating_add(CONNECTION_TTL_MS))
                        .await
                        .map_err(store_failed)?;
                    if stored {
                        tracing::debug!(provider, "refreshed a connected account's token");
                        return Ok(Some(DownstreamToken::new(
                            renewed.access_token.into(),
                            renewed.expires_at_ms,
                        )));
                    }
                    // Another instance changed the record first (its own refresh): read
                    // what it stored.
                }
                Err(EndpointError::Refused { error, .. }) => {
                    // The provider no longer takes the refresh token (revoked, expired, or
                    // already rotated by a refresh whose answer was lost): connect again.
                    // A record another instance replaced meanwhile is kept.
                    tracing::info!(provider, error, "a connected account's refresh token was refused");
                    if self.records.remove(&key, loaded.version).await.map_err(store_failed)? {
                        return Ok(None);
                    }
                }
                Err(EndpointError::Unavailable(why)) => {
                    return Err(DownstreamError::protocol(
                        RpcError::internal(format!(
                            "Could not refresh the {provider} account's token: the provider failed (transport error: {why}). Trying again later may work."
                        ))
                        .with_data(json!({"reason": "authorization_server_unavailable", "layer": "transport"})),
                    ))
                }
            }
        }
        Err(store_failed(
            "the connection kept changing under this refresh",
        ))
    }
    /// Store `connection` as `who`'s at `provider`, replacing any earlier one.
    async fn put(
        &self,
        provider: &str,
        who: &Principal,
        connection: &Connection,
    ) -> Result<(), String> {
        let key = Self::key(provider, who);
        let sealed = self.seal(provider, who, connection)?;
        let expires = now_ms().saturating_add(CONNECTION_TTL_MS);
        for _ in 0..8 {
            if self
                .records
                .insert(&key, &sealed, expires)
                .await
                .map_err(|e| e.to_string())?
            {
                return Ok(());
            }
            if let Some(loaded) = self
                .records
                .load::<Sealed>(&key)
                .await
                .map_err(|e| e.to_string())?
            {
                if self
                    .records
                    .replace(&key, loaded.version, &sealed, expires)
                    .await
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
            }
        }
        Err("the record kept changing".into())
    }

    /// The providers `who` has connected.
    pub(crate) async fn list(&self, who: &Principal) -> Result<Vec<ConnectedAccount>, RpcError> {
        let mut found = Vec::new();
        for name in self.providers.keys() {
            let key = Self::key(name, who);
            let loaded = self
                .records
                .load::<Sealed>(&key)
                .await
                .map_err(|e| RpcError::from(store_failed(e)))?;
            if let Some(connection) = loaded.and_then(|l| self.open(name, who, &l.value)) {
                found.push(ConnectedAccount {
                    provider: name.clone(),
                    scope: connection.scope,
                    connected_at_ms: connection.connected_at_ms,
                });
            }
        }
        Ok(found)
    }

    /// Forget `who`'s connection at `provider`: `true` when there was one.
    pub(crate) async fn revoke(&self, who: &Principal, provider: &str) -> Result<bool, RpcError> {
        self.configured(provider).map_err(RpcError::from)?;
        let key = Self::key(provider, who);
        for _ in 0..8 {
            let Some(loaded) = self
                .records
                .load::<Sealed>(&key)
                .await
                .map_err(|e| RpcError::from(store_failed(e)))?
            else {
                return Ok(false);
            };
            if self
                .records
                .remove(&key, loaded.version)
                .await
                .map_err(|e| RpcError::from(store_failed(e)))?
            {
                tracing::info!(provider, "a connected account was revoked");
                return Ok(true);
            }
        }
        Err(RpcError::internal(
            "Internal error: the connection kept changing",
        ))
    }
}

fn store_failed(error: impl std::fmt::Display) -> DownstreamError {
    tracing::error!(%error, "the connected accounts' store failed");
    DownstreamError::protocol(RpcError::internal(
        "Internal error: the connected accounts could not be read or written",
    ))
}
