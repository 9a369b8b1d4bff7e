//! API keys: long-lived secrets handed to a program (a dashboard, a CI job, a partner's
//! integration), each standing for one [`Principal`] with its scopes and tenant. Sent as
//! bearer tokens (`Authorization: Bearer <key>`) and checked by [`ApiKeys`], a
//! [`TokenVerifier`] that needs no authorization server: give it to
//! [`Server::verify_tokens`](crate::Server::verify_tokens).
//!
//! Only the SHA-256 digest of each key is kept. A presented token is hashed and its digest
//! compared with every known digest in constant time, so how long a comparison takes says
//! nothing about how much of a key was right.

use ctutils::CtEq as _;
use sha2::{Digest as _, Sha256};

use super::oauth::{TokenError, TokenVerifier};
use super::principal::Principal;
use crate::registry::BuildError;

/// Shortest API key [`ApiKeys::key`] accepts: a key is a password that is never typed, so
/// it can be long enough not to be guessed.
const MIN_KEY_LEN: usize = 16;

/// A set of API keys, each standing for a principal. A token that matches none is refused
/// with 401, as any token a verifier refuses.
///
/// ```
/// use mcp_runtime::policy::api_keys::ApiKeys;
/// use mcp_runtime::Principal;
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let keys = ApiKeys::new()
///     // A key as it is (read from a secret store, say)...
///     .key(
///         "dash-7Qm2vX9pLk4rT8wZ",
///         Principal::new("dashboard").with_scopes(["orders:read"]),
///     )?
///     // ...or only its SHA-256, so the configuration holds no usable secret:
///     // `printf %s "$KEY" | sha256sum`.
///     .key_sha256(
///         "9f2b4ac1d3e5f7081a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081",
///         Principal::new("billing").with_scopes(["orders:read", "orders:write"]),
///     )?;
/// assert_eq!(keys.len(), 2);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ApiKeys {
    keys: Vec<([u8; 32], Principal)>,
}

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Subjects only: even a digest of a key is nothing to print in a log.
        f.debug_struct("ApiKeys")
            .field(
                "subjects",
                &self
                    .keys
                    .iter()
                    .map(|(_, p)| p.subject.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ApiKeys {
    /// No keys yet.
    pub fn new() -> Self {
        ApiKeys::default()
    }

    /// Accept `key` as `principal`. Only its SHA-256 digest is kept.
    ///
    /// Errors (a [`BuildError::Config`], which `?` turns into [`crate::Error`]): the key is
    /// shorter than 16 characters, holds characters a bearer token cannot carry (it is made
    /// of letters, digits and `-._~+/`, with `=` only at the end: RFC 6750's `b64token`;
    /// `openssl rand -hex 32` makes one), or is already in the set.
    pub fn key(self, key: &str, principal: Principal) -> Result<Self, BuildError> {
        if key.len() < MIN_KEY_LEN {
            return Err(config(format!(
                "the API key of {:?} is {} characters long; use at least {MIN_KEY_LEN} random ones (openssl rand -hex 32)",
                principal.subject,
                key.len()
            )));
        }
        if !super::oauth::is_b64token(key) {
            return Err(config(format!(
                "the API key of {:?} holds characters a bearer token cannot carry: use letters, digits and -._~+/ (openssl rand -hex 32)",
                principal.subject
            )));
        }
        self.with_digest(Sha256::digest(key.as_bytes()).into(), principal)
    }

    /// Accept the key whose SHA-256 digest is `sha256_hex` (64 hexadecimal digits, either
    /// case) as `principal`, so the configuration holds no usable secret.
    ///
    /// Errors: the digest is not 64 hexadecimal digits, or is already in the set.
    pub fn key_sha256(self, sha256_hex: &str, principal: Principal) -> Result<Self, BuildError> {
        let digest = parse_hex_digest(sha256_hex.trim()).ok_or_else(|| {
            config(format!(
                "the API key digest of {:?} must be the SHA-256 of the key as 64 hexadecimal digits (printf %s \"$KEY\" | sha256sum)",
                principal.subject
            ))
        })?;
        self.with_digest(digest, principal)
    }

    /// How many keys the set holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the set holds no key (then every token is refused).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn with_digest(mut self, digest: [u8; 32], principal: Principal) -> Result<Self, BuildError> {
        if let Some((_, holder)) = self.keys.iter().find(|(d, _)| same_digest(d, &digest)) {
            return Err(config(format!(
                "the API key of {:?} is also the key of {:?}: give every principal its own key",
                principal.subject, holder.subject
            )));
        }
        self.keys.push((digest, principal));
        Ok(self)
    }

    /// The principal of `token`: every known digest is compared, whichever matches.
    fn find(&self, token: &str) -> Option<&Principal> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let mut found = None;
        for (known, principal) in &self.keys {
            if same_digest(known, &digest) {
                found = Some(principal);
            }
        }
        found
    }
}

impl TokenVerifier for ApiKeys {
    async fn verify(&self, token: &str) -> Result<Principal, TokenError> {
        self.find(token)
            .cloned()
            .ok_or_else(|| TokenError::new("unknown API key"))
    }
}

/// Whether two digests are equal, in time that depends only on their lengths (never on
/// where they first differ).
pub(crate) fn same_digest(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).to_bool()
}

fn parse_hex_digest(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut digest = [0u8; 32];
    for (i, byte) in digest.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(digest)
}

fn config(message: String) -> BuildError {
    BuildError::Config(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DASHBOARD: &str = "dash-7Qm2vX9pLk4rT8wZ";

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn digests_compare_equal_unequal_and_of_other_lengths() {
        let a = [7u8; 32];
        let mut b = a;
        assert!(same_digest(&a, &b));
        b[31] ^= 1;
        assert!(!same_digest(&a, &b), "last byte differs");
        b = a;
        b[0] ^= 0x80;
        assert!(!same_digest(&a, &b), "first byte differs");
        assert!(!same_digest(&a, &a[..31]), "a prefix is not equal");
        assert!(!same_digest(&a[..31], &a), "nor the other way round");
        assert!(same_digest(&[], &[]));
    }

    #[tokio::test]
    async fn keys_and_digests_name_their_principals() {
        let billing_key = "bill-Zk3Q9mW7xR2pL8vT";
        let keys = ApiKeys::new()
            .key(
                DASHBOARD,
                Principal::new("dashboard").with_scopes(["orders:read"]),
            )
            .unwrap()
            .key_sha256(
                &hex(&Sha256::digest(billing_key.as_bytes())).to_uppercase(),
                Principal::new("billing").with_tenant("acme"),
            )
            .unwrap();
        let dashboard = keys.verify(DASHBOARD).await.unwrap();
        assert_eq!(dashboard.subject, "dashboard");
        assert!(dashboard.has_scope("orders:read"));
        assert_eq!(
            keys.verify(billing_key).await.unwrap().tenant(),
            Some("acme")
        );
        for wrong in ["", "dash-7Qm2vX9pLk4rT8w", "dash-7Qm2vX9pLk4rT8wZ ", "x"] {
            let refused = keys.verify(wrong).await.unwrap_err();
            assert_eq!(refused.description(), "unknown API key", "{wrong:?}");
        }
        assert!(!format!("{keys:?}").contains(&hex(&Sha256::digest(DASHBOARD.as_bytes()))));
    }

    #[test]
    fn bad_keys_and_digests_are_refused_when_configured() {
        let message = |r: Result<ApiKeys, BuildError>| r.unwrap_err().to_string();
        let short = message(ApiKeys::new().key("secret", Principal::new("a")));
        assert!(short.contains("at least 16"), "{short}");
        let spaced = message(ApiKeys::new().key("a key with spaces in it", Principal::new("a")));
        assert!(spaced.contains("cannot carry"), "{spaced}");
        let digest = message(ApiKeys::new().key_sha256("abc", Principal::new("a")));
        assert!(digest.contains("64 hexadecimal digits"), "{digest}");
        let twice = message(
            ApiKeys::new()
                .key(DASHBOARD, Principal::new("a"))
                .unwrap()
                .key_sha256(
                    &hex(&Sha256::digest(DASHBOARD.as_bytes())),
                    Principal::new("b"),
                ),
        );
        assert!(twice.contains("\"b\" is also the key of \"a\""), "{twice}");
        assert!(ApiKeys::new().is_empty());
    }
}
