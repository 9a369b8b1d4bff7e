//! Token exchange (RFC 8693): the caller's access token, issued for this server, traded at
//! the authorization server for one issued for a downstream API, so the API sees the
//! caller and not this server, and the caller's own token never leaves for it.
//!
//! Exchanged tokens are kept in memory, per caller's token, audience and scopes, until
//! shortly before they expire: a cache, not state. Each instance of a deployment exchanges
//! on its own, and no exchanged token is ever written to the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::principal::SubjectToken;
use super::token_endpoint::{ClientAuth, EndpointError, TokenEndpoint};
use crate::clock::now_ms;

/// The grant type of a token exchange.
const GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The token type of an access token, as subject and as what is asked for.
const ACCESS_TOKEN: &str = "urn:ietf:params:oauth:token-type:access_token";

/// How long before its expiry an exchanged token is no longer handed out: at most this,
/// and at most a fifth of its lifetime (a token living 3 s is reused for 2.4 s).
const MARGIN_MS: u64 = 30_000;

/// The authorization server's token endpoint, where this server trades callers' tokens
/// for downstream ones, and how it authenticates there. Given to
/// [`Server::exchange_tokens`](crate::Server::exchange_tokens); handlers then ask with
/// [`RequestContext::downstream`](crate::RequestContext::downstream).
///
/// ```
/// use mcp_runtime::downstream::{ClientAuth, TokenExchange};
///
/// let exchange = TokenExchange::new(
///     "https://auth.example.com/oauth/token",
///     ClientAuth::secret_basic("mcp-server", "the client secret"),
/// )
/// .max_cached(50_000);
/// ```
#[derive(Debug, Clone)]
pub struct TokenExchange {
    url: String,
    auth: ClientAuth,
    max_cached: usize,
}

impl TokenExchange {
    /// Exchange at `token_endpoint` (https, or plain http to this machine; checked when
    /// the server is built), authenticating as `auth`.
    pub fn new(token_endpoint: impl Into<String>, auth: ClientAuth) -> Self {
        TokenExchange {
            url: token_endpoint.into(),
            auth,
            max_cached: 10_000,
        }
    }

    /// Keep at most `n` exchanged tokens in memory (10,000 by default); past it the one
    /// nearest its expiry goes first.
    pub fn max_cached(mut self, n: usize) -> Self {
        self.max_cached = n;
        self
    }

    /// The exchanger this configuration makes, or why it cannot be made.
    pub(crate) fn start(self) -> Result<Exchanger, String> {
        Ok(Exchanger {
            endpoint: TokenEndpoint::new(&self.url, self.auth)?,
            cache: Mutex::new(HashMap::new()),
            max_cached: self.max_cached,
        })
    }
}

/// The running token exchange of a server.
pub(crate) struct Exchanger {
    endpoint: TokenEndpoint,
    cache: Mutex<HashMap<Key, Exchanged>>,
    max_cached: usize,
}

/// What a cached token was asked for: whose token, for which audience and scopes.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    /// SHA-256 of the caller's token: the cache holds no caller's token.
    subject: [u8; 32],
    audience: String,
    scopes: String,
}

/// A token the authorization server issued for a downstream audience.
#[derive(Clone)]
pub(crate) struct Exchanged {
    pub(crate) token: Arc<str>,
    /// When it expires, when the authorization server said.
    pub(crate) expires_at_ms: Option<u64>,
    /// Until when it is handed out from the cache.
    fresh_until_ms: u64,
    /// The scopes granted, when the authorization server said.
    pub(crate) scope: Option<String>,
}

impl Exchanger {
    /// The token endpoint's URL.
    pub(crate) fn url(&self) -> &str {
        self.endpoint.url()
    }

    /// A token for `audience` with `scopes` (none: what the authorization server grants
    /// by default) in the name of the caller who presented `subject`.
    pub(crate) async fn exchange(
        &self,
        subject: &SubjectToken,
        audience: &str,
        scopes: &[String],
    ) -> Result<Exchanged, EndpointError> {
        let mut sorted: Vec<&str> = scopes.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let scope = sorted.join(" ");
        let key = Key {
            subject: Sha256::digest(subject.expose().as_bytes()).into(),
            audience: audience.to_owned(),
            scopes: scope.clone(),
        };
        let now = now_ms();
        if let Some(hit) = self.cached(&key, now) {
            return Ok(hit);
        }
        // RFC 8693 section 2.1: an absolute URI is a `resource`, anything else a logical
        // `audience` name.
        let target = if url::Url::parse(audience).is_ok() {
            "resource"
        } else {
            "audience"
        };
        let mut fields = vec![
            ("grant_type", GRANT),
            ("subject_token", subject.expose()),
            ("subject_token_type", ACCESS_TOKEN),
            ("requested_token_type", ACCESS_TOKEN),
            (target, audience),
        ];
        if !scope.is_empty() {
            fields.push(("scope", &scope));
        }
        let issued = self.endpoint.request(&fields).await?;
        let lifetime_ms = issued.expires_in.map(|s| s.saturating_mul(1000));
        let exchanged = Exchanged {
            token: issued.access_token.into(),
            expires_at_ms: lifetime_ms.map(|ms| now.saturating_add(ms)),
            fresh_until_ms: lifetime_ms
                .map_or(0, |ms| now.saturating_add(ms - MARGIN_MS.min(ms / 5))),
            scope: issued.scope,
        };
        tracing::debug!(
            audience,
            scope = exchanged.scope.as_deref().unwrap_or(""),
            expires_in_s = lifetime_ms.map(|ms| ms / 1000),
            "exchanged the caller's token for a downstream one"
        );
        // A token whose lifetime the authorization server did not say is used once.
        if lifetime_ms.is_some() {
            self.keep(key, exchanged.clone(), now);
        }
        Ok(exchanged)
    }

    fn cached(&self, key: &Key, now: u64) -> Option<Exchanged> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .get(key)
            .filter(|hit| now < hit.fresh_until_ms)
            .cloned()
    }

    fn keep(&self, key: Key, exchanged: Exchanged, now: u64) {
        if self.max_cached == 0 {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= self.max_cached && !cache.contains_key(&key) {
            cache.retain(|_, entry| now < entry.fresh_until_ms);
            if cache.len() >= self.max_cached {
                let nearest = cache
                    .iter()
                    .min_by_key(|(_, entry)| entry.fresh_until_ms)
                    .map(|(key, _)| key.clone());
                if let Some(nearest) = nearest {
                    cache.remove(&nearest);
                }
            }
        }
        cache.insert(key, exchanged);
    }

    #[cfg(test)]
    fn cached_len(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchanger(max: usize) -> Exchanger {
        TokenExchange::new(
            "http://127.0.0.1:9/token",
            ClientAuth::secret_basic("c", "s"),
        )
        .max_cached(max)
        .start()
        .unwrap()
    }

    fn key(n: u8) -> Key {
        Key {
            subject: [n; 32],
            audience: "https://api.example.com".into(),
            scopes: String::new(),
        }
    }

    fn token(fresh_until_ms: u64) -> Exchanged {
        Exchanged {
            token: "t".into(),
            expires_at_ms: Some(fresh_until_ms + 1),
            fresh_until_ms,
            scope: None,
        }
    }

    #[test]
    fn the_cache_is_bounded_and_drops_the_nearest_expiry_first() {
        let exchanger = exchanger(2);
        exchanger.keep(key(1), token(5_000), 0);
        exchanger.keep(key(2), token(9_000), 0);
        exchanger.keep(key(3), token(7_000), 0);
        assert_eq!(exchanger.cached_len(), 2);
        assert!(exchanger.cached(&key(1), 0).is_none());
        assert!(exchanger.cached(&key(2), 0).is_some());
        assert!(exchanger.cached(&key(3), 0).is_some());
        // Expired entries go before any live one.
        exchanger.keep(key(4), token(20_000), 8_000);
        assert!(exchanger.cached(&key(2), 8_000).is_some());
        assert!(exchanger.cached(&key(3), 8_000).is_none());
    }

    #[test]
    fn a_token_is_not_handed_out_past_its_margin() {
        let exchanger = exchanger(10);
        exchanger.keep(key(1), token(2_400), 0);
        assert!(exchanger.cached(&key(1), 2_399).is_some());
        assert!(exchanger.cached(&key(1), 2_400).is_none());
    }

    #[test]
    fn nothing_is_cached_when_told_to_keep_none() {
        let exchanger = exchanger(0);
        exchanger.keep(key(1), token(5_000), 0);
        assert_eq!(exchanger.cached_len(), 0);
    }

    #[tokio::test]
    async fn an_unreachable_authorization_server_is_unavailable_not_refused() {
        // Port 9 (discard) on this machine: nothing listens.
        let exchanger = exchanger(10);
        let subject = crate::Principal::new("a").with_subject_token("caller-token");
        let Some(subject) = subject.subject_token() else {
            panic!("no token kept");
        };
        let error = exchanger
            .exchange(subject, "https://api.example.com", &[])
            .await
            .err();
        assert!(
            matches!(&error, Some(EndpointError::Unavailable(why)) if why.contains("could not be reached")),
            "{error:?}"
        );
    }
}
