//! A local token issuer for tests and development (features `testing` and `oauth`): it
//! makes a fresh Ed25519 key, publishes it as a JWKS document and mints access tokens
//! with whatever claims a test needs, including broken ones.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair as _};
use base64::Engine as _;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Map, Value};

use crate::policy::jwt::{JwkSet, JwtVerifier, KeySource};

/// Mints signed access tokens for tests. Never use it to secure a real deployment: its
/// tokens are whatever the test asks for.
///
/// ```
/// use mcp_runtime::testing::TestIssuer;
///
/// let issuer = TestIssuer::new("https://issuer.test").unwrap();
/// let token = issuer
///     .token("http://127.0.0.1:8080/mcp")
///     .subject("alice")
///     .tenant("acme")
///     .scopes(["orders:read"])
///     .mint();
/// assert_eq!(token.split('.').count(), 3);
/// ```
pub struct TestIssuer {
    issuer: String,
    kid: String,
    key: EncodingKey,
    public: Vec<u8>,
}

impl TestIssuer {
    /// An issuer named `issuer` (its URL) with a fresh signing key.
    pub fn new(issuer: impl Into<String>) -> Result<TestIssuer, String> {
        let _ = jsonwebtoken::crypto::aws_lc::DEFAULT_PROVIDER.install_default();
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).map_err(|e| e.to_string())?;
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).map_err(|e| e.to_string())?;
        let public = pair.public_key().as_ref().to_vec();
        let kid = crate::policy::seal::random_token(9)?;
        Ok(TestIssuer {
            issuer: issuer.into(),
            kid,
            key: EncodingKey::from_ed_der(pkcs8.as_ref()),
            public,
        })
    }

    /// The issuer URL (`iss` of its tokens).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The id of its signing key (`kid`).
    pub fn key_id(&self) -> &str {
        &self.kid
    }

    /// Its public key as a JWKS document, as an issuer serves it.
    pub fn jwks(&self) -> Value {
        json!({
            "keys": [{
                "kty": "OKP",
                "crv": "Ed25519",
                "alg": "EdDSA",
                "use": "sig",
                "kid": self.kid,
                "x": base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&self.public),
            }]
        })
    }

    /// A verifier that trusts this issuer's key (given up front, nothing fetched) for
    /// tokens minted for `resource`.
    pub fn verifier(&self, resource: &str) -> Result<JwtVerifier, String> {
        let set: JwkSet = serde_json::from_value(self.jwks()).map_err(|e| e.to_string())?;
        Ok(JwtVerifier::new(
            &self.issuer,
            resource,
            KeySource::jwk_set(&set)?,
        ))
    }

    /// A token for `audience` (a server's resource URI), valid for an hour, with subject
    /// `test-user` until the builder says otherwise.
    pub fn token(&self, audience: &str) -> TokenBuilder<'_> {
        let now = now();
        let mut claims = Map::new();
        claims.insert("iss".into(), json!(self.issuer));
        claims.insert("aud".into(), json!(audience));
        claims.insert("sub".into(), json!("test-user"));
        claims.insert("iat".into(), json!(now));
        claims.insert("exp".into(), json!(now + 3600));
        TokenBuilder {
            issuer: self,
            claims,
            kid: Some(self.kid.clone()),
        }
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Claims of one token being minted.
pub struct TokenBuilder<'a> {
    issuer: &'a TestIssuer,
    claims: Map<String, Value>,
    kid: Option<String>,
}

impl TokenBuilder<'_> {
    /// `sub`.
    pub fn subject(self, subject: &str) -> Self {
        self.claim("sub", json!(subject))
    }

    /// `scope`, space-separated.
    pub fn scopes<'s>(self, scopes: impl IntoIterator<Item = &'s str>) -> Self {
        let scope = scopes.into_iter().collect::<Vec<_>>().join(" ");
        self.claim("scope", json!(scope))
    }

    /// `tenant`.
    pub fn tenant(self, tenant: &str) -> Self {
        self.claim("tenant", json!(tenant))
    }

    /// Expires `after` from now (it expired already when `after` is zero; see
    /// [`TokenBuilder::expired`]).
    pub fn expires_in(self, after: Duration) -> Self {
        self.claim("exp", json!(now() + after.as_secs()))
    }

    /// Expired an hour ago.
    pub fn expired(self) -> Self {
        self.claim("exp", json!(now().saturating_sub(3600)))
    }

    /// Any claim; `Value::Null` removes it.
    pub fn claim(mut self, name: &str, value: Value) -> Self {
        if value.is_null() {
            self.claims.remove(name);
        } else {
            self.claims.insert(name.to_owned(), value);
        }
        self
    }

    /// Sign without naming the key (`kid`).
    pub fn without_key_id(mut self) -> Self {
        self.kid = None;
        self
    }

    /// The signed token.
    pub fn mint(self) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = self.kid;
        encode(&header, &self.claims, &self.issuer.key).unwrap_or_default()
    }

    /// The same claims as an unsigned token (`alg: none`), which every verifier must
    /// refuse.
    pub fn unsigned(self) -> String {
        let b64 = |v: &Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(serde_json::to_vec(v).unwrap_or_default())
        };
        format!(
            "{}.{}.",
            b64(&json!({"alg": "none", "typ": "JWT"})),
            b64(&Value::Object(self.claims))
        )
    }
}
