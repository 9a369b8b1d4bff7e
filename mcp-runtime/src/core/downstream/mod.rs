//! Calling other APIs as the caller: a handler asks for a token for a downstream API with
//! [`RequestContext::downstream`], and gets one issued for that API in the caller's name,
//! by token exchange ([`Downstream::exchange`]) or from the caller's connected account
//! ([`Downstream::account`]). The caller's own token never leaves for the API: its
//! audience is this server.
//!
//! Failures answer as the model can act on them: a refusal by the authorization server
//! (no consent, a scope the caller may not have) is a business error naming what was
//! refused; an authorization server that cannot be reached is a protocol error that says
//! so, since no retry of the model can fix it; a caller with no token to exchange is
//! refused as unauthorized.
//!
//! `answer` holds what a handler gets (the token, or the error); `accounts` the connected
//! accounts' vault and sign-in flow.

use std::sync::Arc;

use serde_json::json;

pub(crate) mod accounts;
mod answer;

pub(crate) use accounts::Vault;
pub use accounts::{AccountProvider, Accounts, ConnectedAccount, UserCheck};
pub use answer::{DownstreamError, DownstreamToken};

use crate::core::RequestContext;
use crate::policy::exchange::Exchanger;
use crate::policy::principal::Principal;
use crate::policy::token_endpoint::EndpointError;
use crate::protocol::{codes, RpcError};

/// A downstream API a handler calls as the caller, and how its token is obtained.
///
/// ```
/// use mcp_runtime::downstream::Downstream;
///
/// // Token exchange (RFC 8693): the caller's token traded for one for this audience.
/// let orders = Downstream::exchange("https://orders.example.com").scopes(["orders:read"]);
/// // The account the caller connected (the authorization-code flow, done once).
/// let calendar = Downstream::account("calendar");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downstream {
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Exchange {
        audience: String,
        scopes: Vec<String>,
    },
    Account {
        provider: String,
    },
}

impl Downstream {
    /// The API whose tokens name `audience` (an absolute URI is sent as the exchange's
    /// `resource`, any other name as its `audience`), reached by token exchange
    /// ([`Server::exchange_tokens`](crate::Server::exchange_tokens)).
    pub fn exchange(audience: impl Into<String>) -> Self {
        Downstream {
            kind: Kind::Exchange {
                audience: audience.into(),
                scopes: Vec::new(),
            },
        }
    }

    /// The same API, asking for these scopes (none: what the authorization server grants
    /// by default). Ignored for a connected account, whose scopes are its provider's.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        if let Kind::Exchange { scopes: asked, .. } = &mut self.kind {
            asked.extend(scopes.into_iter().map(Into::into));
        }
        self
    }

    /// The account the caller connected at `provider`, one of the providers given to
    /// [`Server::accounts`](crate::Server::accounts). A caller who has not connected it is
    /// asked to, with a URL the client opens.
    pub fn account(provider: impl Into<String>) -> Self {
        Downstream {
            kind: Kind::Account {
                provider: provider.into(),
            },
        }
    }

    /// What the token is for, as errors and logs name it.
    fn describe(&self) -> String {
        match &self.kind {
            Kind::Exchange { audience, .. } => audience.clone(),
            Kind::Account { provider } => format!("the account at {provider}"),
        }
    }
}

/// What a server calls downstream APIs with: its token exchange and its connected
/// accounts, as configured. Kept in the server's state, where contexts find it.
pub(crate) struct Downstreams {
    pub(crate) exchange: Option<Exchanger>,
    pub(crate) accounts: Option<Arc<Vault>>,
}

impl RequestContext {
    /// A token for `target`, issued in this call's caller's name:
    ///
    /// - [`Downstream::exchange`]: the caller's access token (the one this request came
    ///   with, an authorization server's token for this server) traded at the server's
    ///   [`TokenExchange`](crate::downstream::TokenExchange) for one for the target's
    ///   audience. Kept and reused per caller's token, audience and scopes until shortly
    ///   before it expires.
    /// - [`Downstream::account`]: the caller's connected account at that provider,
    ///   refreshed when it expires; when the caller has not connected it, the call asks
    ///   the client to open the provider's sign-in (a URL elicitation), and the call
    ///   goes on once the account is connected.
    ///
    /// ```
    /// use mcp_runtime::downstream::Downstream;
    /// use mcp_runtime::prelude::*;
    ///
    /// /// The caller's open orders.
    /// #[tool(read_only)]
    /// async fn my_orders(ctx: RequestContext) -> Result<String, ToolError> {
    ///     let orders = Downstream::exchange("https://orders.example.com").scopes(["orders:read"]);
    ///     let token = ctx.downstream(&orders).await?;
    ///     // Send `token.secret()` as the bearer token of a request to the orders API.
    ///     Ok(format!("a token valid until {:?}", token.expires_at_ms()))
    /// }
    /// ```
    pub async fn downstream(
        &self,
        target: &Downstream,
    ) -> Result<DownstreamToken, DownstreamError> {
        let configured = self.state::<Downstreams>();
        match &target.kind {
            Kind::Exchange { audience, scopes } => {
                let Some(exchanger) = configured.as_deref().and_then(|d| d.exchange.as_ref())
                else {
                    return Err(not_configured(target, "Server::exchange_tokens"));
                };
                self.exchanged(exchanger, audience, scopes).await
            }
            Kind::Account { provider } => {
                let Some(accounts) = configured.as_deref().and_then(|d| d.accounts.clone()) else {
                    return Err(not_configured(target, "Server::accounts"));
                };
                accounts.token(self, provider).await
            }
        }
    }

    async fn exchanged(
        &self,
        exchanger: &Exchanger,
        audience: &str,
        scopes: &[String],
    ) -> Result<DownstreamToken, DownstreamError> {
        let Some(subject) = self.principal().and_then(|p| p.subject_token()) else {
            return Err(DownstreamError::protocol(
                RpcError::new(
                    codes::UNAUTHORIZED,
                    format!(
                        "This call reaches {audience} as its caller, and the caller presented no access token from an authorization server to exchange (an API key, or stdio without MCP_ACCESS_TOKEN, cannot be)."
                    ),
                )
                .with_data(json!({"reason": "no_subject_token"})),
            ));
        };
        match exchanger.exchange(subject, audience, scopes).await {
            Ok(exchanged) => Ok(DownstreamToken::new(
                exchanged.token,
                exchanged.expires_at_ms,
            )),
            Err(error) => Err(exchange_failed(exchanger.url(), audience, scopes, error)),
        }
    }
}

/// The answer to a failed exchange.
fn exchange_failed(
    url: &str,
    audience: &str,
    scopes: &[String],
    error: EndpointError,
) -> DownstreamError {
    match error {
        // This server's own credentials, or its right to exchange, were refused: a fault
        // of the deployment, which no user consent fixes.
        EndpointError::Refused { error, description }
            if error == "invalid_client" || error == "unauthorized_client" =>
        {
            tracing::error!(token_endpoint = url, error, description = description.as_deref().unwrap_or(""), "the authorization server refused this server's client credentials for a token exchange");
            DownstreamError::protocol(
                RpcError::internal(format!(
                    "Internal error: this server may not exchange tokens for {audience} (the authorization server answered {error}); its operators must fix its client registration"
                ))
                .with_data(json!({"reason": "exchange_not_allowed"})),
            )
        }
        EndpointError::Refused { error, description } => {
            let asked = if scopes.is_empty() {
                String::new()
            } else {
                format!(" with the scopes {}", scopes.join(" "))
            };
            let why = description
                .as_deref()
                .map_or(String::new(), |d| format!(": {d}"));
            tracing::info!(audience, error, "a token exchange was refused");
            DownstreamError::refused(
                format!(
                    "The authorization server would not let this call reach {audience} as the user{asked} ({error}{why}). Nothing was sent to {audience}. The user may need to grant that access, or ask for less."
                ),
                json!({"audience": audience, "scopes": scopes, "error": error, "description": description}),
            )
        }
        EndpointError::Unavailable(why) => {
            tracing::warn!(token_endpoint = url, why, "a token exchange failed");
            DownstreamError::protocol(
                RpcError::internal(format!(
                    "Could not get a token for {audience}: the authorization server failed (transport error: {why}). Nothing was sent to {audience}; trying again later may work."
                ))
                .with_data(json!({"reason": "authorization_server_unavailable", "layer": "transport"})),
            )
        }
    }
}

fn not_configured(target: &Downstream, setter: &str) -> DownstreamError {
    DownstreamError::protocol(RpcError::internal(format!(
        "Internal error: a handler asked for a token for {}, and the server has no {setter} configured",
        target.describe()
    )))
}

impl RequestContext {
    /// The accounts this call's caller has connected ([`Server::accounts`](crate::Server::accounts)),
    /// for a tool that lists them.
    pub async fn connected_accounts(&self) -> Result<Vec<ConnectedAccount>, RpcError> {
        let (vault, who) = self.vault_and_caller()?;
        vault.list(&who).await
    }

    /// Forget this call's caller's connection at `provider`: `true` when there was one.
    /// The tokens are deleted from the store; the next call that needs the account asks
    /// the caller to connect again.
    pub async fn disconnect_account(&self, provider: &str) -> Result<bool, RpcError> {
        let (vault, who) = self.vault_and_caller()?;
        vault.revoke(&who, provider).await
    }

    fn vault_and_caller(&self) -> Result<(Arc<Vault>, Principal), RpcError> {
        let vault = self
            .state::<Downstreams>()
            .and_then(|d| d.accounts.clone())
            .ok_or_else(|| {
                RpcError::internal("Internal error: the server has no Server::accounts configured")
            })?;
        let who = self.principal().cloned().ok_or_else(|| {
            RpcError::new(codes::UNAUTHORIZED, "Connected accounts belong to a caller, and this call has none: authenticate first.")
        })?;
        Ok((vault, who))
    }
}
