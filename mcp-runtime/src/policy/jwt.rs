//! [`JwtVerifier`]: access tokens as signed JWTs (RFC 9068 style), checked for signature,
//! issuer, audience, expiry and not-before, with keys given up front or fetched from the
//! issuer's JWKS URL (cached, refreshed when a token names a key not seen yet, so the
//! issuer can rotate keys). Feature `oauth`.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
pub use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{decode, decode_header, Validation};
pub use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};

use super::oauth::{canonical_uri, TokenError, TokenVerifier};
use super::principal::Principal;

/// Where the verifier finds the issuer's public keys.
pub struct KeySource(Source);

enum Source {
    Fixed(Vec<Key>),
    Jwks(Box<JwksCache>),
}

impl KeySource {
    /// The issuer's JWKS document, fetched when first needed, again after `max_age`
    /// (default 10 minutes), and whenever a token names a key id not in the cached set
    /// (at most every 2 seconds). HTTPS is verified against the system's roots; a plain
    /// `http://` URL is fetched only from a loopback address.
    pub fn jwks_url(url: impl Into<String>) -> KeySource {
        KeySource(Source::Jwks(Box::new(JwksCache::new(url.into()))))
    }

    /// A fixed set of public keys (a JWKS document you hold).
    pub fn jwk_set(set: &JwkSet) -> Result<KeySource, String> {
        Ok(KeySource(Source::Fixed(keys_of(set)?)))
    }

    /// One public key in PEM form, for algorithm `alg` (RS*, PS*, ES*, EdDSA).
    pub fn public_key_pem(alg: Algorithm, pem: &[u8]) -> Result<KeySource, String> {
        let key = match family(alg) {
            Some(Family::Rsa) => DecodingKey::from_rsa_pem(pem),
            Some(Family::Ec) => DecodingKey::from_ec_pem(pem),
            Some(Family::Ed) => DecodingKey::from_ed_pem(pem),
            Some(Family::Hmac) => return Err("an HMAC algorithm takes a shared secret, not a PEM key: use KeySource::shared_secret".into()),
            None => return Err(format!("{alg:?} is not a supported signature algorithm")),
        }
        .map_err(|e| format!("the {alg:?} public key is not valid PEM: {e}"))?;
        Ok(KeySource(Source::Fixed(vec![Key {
            kid: None,
            key,
            algs: vec![alg],
        }])))
    }

    /// A secret shared with the issuer, for HS256 (the issuer and this server must keep it
    /// equally safe; prefer public keys).
    pub fn shared_secret(secret: &[u8]) -> Result<KeySource, String> {
        if secret.len() < 32 {
            return Err("an HS256 secret needs at least 32 bytes".into());
        }
        let key = DecodingKey::from_secret(secret).map_err(|e| e.to_string())?;
        Ok(KeySource(Source::Fixed(vec![Key {
            kid: None,
            key,
            algs: vec![Algorithm::HS256],
        }])))
    }
}

/// Checks JWT access tokens for one resource server.
///
/// ```no_run
/// use mcp_runtime::policy::jwt::{JwtVerifier, KeySource};
///
/// let verifier = JwtVerifier::new(
///     "https://auth.example.com",
///     "https://mcp.example.com/mcp",
///     KeySource::jwks_url("https://auth.example.com/.well-known/jwks.json"),
/// )
/// .tenant_claim("org_id");
/// # let _ = verifier;
/// ```
///
/// A token is accepted when its signature verifies with one of the issuer's keys (never
/// with an algorithm the key is not for, never unsigned), `iss` is the issuer, `aud`
/// names the resource URI (scheme and host compared without case), `exp` is in the future
/// and `nbf`, when present, in the past (60 s of clock skew allowed), and it has a `sub`.
/// The principal gets `sub` as subject, the scopes of `scope` (space-separated) or `scp`,
/// the tenant of the tenant claim (default `tenant`), and all claims.
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    keys: KeySource,
    leeway: Duration,
    tenant_claim: String,
}

impl JwtVerifier {
    /// Tokens of `issuer` minted for `audience` (this server's resource URI), signed with
    /// keys from `keys`.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>, keys: KeySource) -> Self {
        // The process-wide crypto backend of jsonwebtoken; a second install is harmless.
        let _ = jsonwebtoken::crypto::aws_lc::DEFAULT_PROVIDER.install_default();
        JwtVerifier {
            issuer: issuer.into(),
            audience: canonical_uri(&audience.into()),
            keys,
            leeway: Duration::from_secs(60),
            tenant_claim: "tenant".into(),
        }
    }

    /// Clock skew tolerated on `exp` and `nbf` (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The claim naming the caller's tenant (default `tenant`).
    pub fn tenant_claim(mut self, claim: impl Into<String>) -> Self {
        self.tenant_claim = claim.into();
        self
    }

    async fn key_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
        match &self.keys.0 {
            Source::Fixed(keys) => pick(keys, kid, alg),
            Source::Jwks(cache) => cache.key_for(kid, alg).await,
        }
    }

    fn principal(&self, claims: Map<String, Value>) -> Result<Principal, TokenError> {
        let audience_ok = match claims.get("aud") {
            Some(Value::String(aud)) => canonical_uri(aud) == self.audience,
            Some(Value::Array(auds)) => auds
                .iter()
                .filter_map(Value::as_str)
                .any(|aud| canonical_uri(aud) == self.audience),
            _ => false,
        };
        if !audience_ok {
            return Err(TokenError::new(format!(
                "the token was not issued for this server: its audience does not name {}",
                self.audience
            )));
        }
        let subject = match claims.get("sub") {
            Some(Value::String(sub)) if !sub.is_empty() => sub.clone(),
            _ => return Err(TokenError::new("the token has no subject (sub)")),
        };
        let mut scopes: Vec<String> = Vec::new();
        for claim in ["scope", "scp"] {
            match claims.get(claim) {
                Some(Value::String(text)) => {
                    scopes.extend(text.split_ascii_whitespace().map(str::to_owned))
                }
                Some(Value::Array(items)) => {
                    scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_owned))
                }
                _ => {}
            }
        }
        let mut principal = Principal::new(subject).with_scopes(scopes);
        if let Some(tenant) = claims.get(&self.tenant_claim).and_then(Value::as_str) {
            principal = principal.with_tenant(tenant);
        }
        Ok(principal.with_claims(claims))
    }
}

impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str) -> Result<Principal, TokenError> {
        // An unsigned token (`alg: none`) or any algorithm jsonwebtoken does not know fails
        // here: there is no such Algorithm.
        let header =
            decode_header(token).map_err(|_| TokenError::new("the token is not a signed JWT"))?;
        let key = self.key_for(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        // The audience is compared below, without case on scheme and host.
        validation.validate_aud = false;
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
        let data = decode::<Map<String, Value>>(token, &key, &validation).map_err(|e| {
            TokenError::new(match e.kind() {
                ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
                ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
                ErrorKind::InvalidIssuer => format!(
                    "the token was not issued by {}, the issuer this server trusts",
                    self.issuer
                ),
                ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
                ErrorKind::MissingRequiredClaim(claim) => {
                    format!("the token has no {claim} claim")
                }
                ErrorKind::InvalidAlgorithm => format!(
                    "the token's algorithm {:?} does not match the issuer's key",
                    header.alg
                ),
                _ => "the token is not a valid JWT".to_owned(),
            })
        })?;
        self.principal(data.claims)
    }
}

/// One usable key: its id and the algorithms it may verify.
#[derive(Clone)]
struct Key {
    kid: Option<String>,
    key: DecodingKey,
    algs: Vec<Algorithm>,
}

#[derive(Debug, PartialEq, Eq)]
enum Family {
    Hmac,
    Rsa,
    Ec,
    Ed,
}

fn family(alg: Algorithm) -> Option<Family> {
    use Algorithm::*;
    Some(match alg {
        HS256 | HS384 | HS512 => Family::Hmac,
        RS256 | RS384 | RS512 | PS256 | PS384 | PS512 => Family::Rsa,
        ES256 | ES384 => Family::Ec,
        EdDSA => Family::Ed,
        _ => return None,
    })
}

/// The keys of a JWKS document that can verify signatures. Symmetric (`oct`) keys are
/// skipped: a published key is public, so it must never verify an HMAC.
fn keys_of(set: &JwkSet) -> Result<Vec<Key>, String> {
    use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve};
    use Algorithm::*;
    let mut keys = Vec::new();
    for jwk in &set.keys {
        let algs = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => vec![RS256, RS384, RS512, PS256, PS384, PS512],
            AlgorithmParameters::EllipticCurve(p) => match p.curve {
                EllipticCurve::P256 => vec![ES256],
                EllipticCurve::P384 => vec![ES384],
                _ => continue,
            },
            AlgorithmParameters::OctetKeyPair(_) => vec![EdDSA],
            _ => continue,
        };
        // A key that names its algorithm verifies only that one.
        let algs: Vec<Algorithm> = match jwk
            .common
            .key_algorithm
            .and_then(|a| a.to_string().parse::<Algorithm>().ok())
        {
            Some(named) if algs.contains(&named) => vec![named],
            Some(_) => continue,
            None => algs,
        };
        let Ok(key) = DecodingKey::from_jwk(jwk) else {
            continue;
        };
        keys.push(Key {
            kid: jwk.common.key_id.clone(),
            key,
            algs,
        });
    }
    if keys.is_empty() {
        return Err("the key set has no key that can verify signatures".into());
    }
    Ok(keys)
}

fn pick(keys: &[Key], kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
    let mut fitting = keys.iter().filter(|k| k.algs.contains(&alg));
    let found = match kid {
        Some(kid) => fitting.find(|k| k.kid.as_deref() == Some(kid)),
        None => {
            let first = fitting.next();
            if fitting.next().is_some() {
                return Err(TokenError::new(
                    "the token names no key id (kid), and the issuer has several keys",
                ));
            }
            first
        }
    };
    found.map(|k| k.key.clone()).ok_or_else(|| {
        TokenError::new(match kid {
            Some(kid) => format!("the token's key {kid:?} is not a key of the issuer for {alg:?}"),
            None => format!("the issuer has no key for the token's algorithm {alg:?}"),
        })
    })
}

/// Largest JWKS document accepted.
const MAX_JWKS_BYTES: usize = 256 * 1024;

struct Fetched {
    keys: Arc<Vec<Key>>,
    /// When the keys were fetched (`None`: never).
    at: Option<Instant>,
    /// When a fetch was last tried, successful or not.
    tried: Option<Instant>,
}

struct JwksCache {
    url: String,
    client: reqwest::Client,
    fetched: RwLock<Fetched>,
    refreshing: tokio::sync::Mutex<()>,
    max_age: Duration,
    min_interval: Duration,
}

impl JwksCache {
    fn new(url: String) -> JwksCache {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .unwrap_or_default();
        JwksCache {
            url,
            client,
            fetched: RwLock::new(Fetched {
                keys: Arc::new(Vec::new()),
                at: None,
                tried: None,
            }),
            refreshing: tokio::sync::Mutex::new(()),
            max_age: Duration::from_secs(600),
            min_interval: Duration::from_secs(2),
        }
    }

    fn snapshot(&self) -> (Arc<Vec<Key>>, Option<Instant>, Option<Instant>) {
        let f = self.fetched.read().unwrap_or_else(|p| p.into_inner());
        (f.keys.clone(), f.at, f.tried)
    }

    async fn key_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
        let (keys, at, tried) = self.snapshot();
        let stale = at.is_none_or(|at| at.elapsed() >= self.max_age);
        if !stale {
            if let Ok(key) = pick(&keys, kid, alg) {
                return Ok(key);
            }
        }
        // Stale, or a key not seen yet (the issuer may have rotated): fetch again, unless
        // a fetch was tried moments ago (a flood of tokens naming unknown keys must not
        // become a flood of requests to the issuer).
        // An issuer that is down is asked again only after the same pause.
        let recently = tried.is_some_and(|t| t.elapsed() < self.min_interval);
        if !recently {
            self.refresh(tried).await;
        }
        let (keys, at, _) = self.snapshot();
        if at.is_none() {
            return Err(TokenError::new(
                "the issuer's signing keys could not be fetched; try again shortly",
            ));
        }
        pick(&keys, kid, alg)
    }

    /// Fetch the document once, however many requests wait for it.
    async fn refresh(&self, seen: Option<Instant>) {
        let _one = self.refreshing.lock().await;
        if self.snapshot().2 != seen {
            return; // another request refreshed while this one waited
        }
        let result = self.fetch().await;
        let mut f = self.fetched.write().unwrap_or_else(|p| p.into_inner());
        f.tried = Some(Instant::now());
        match result {
            Ok(keys) => {
                f.keys = Arc::new(keys);
                f.at = f.tried;
            }
            // Keep serving with the keys we have; the next miss tries again.
            Err(e) => {
                tracing::warn!(url = %self.url, error = %e, "could not fetch the issuer's JWKS")
            }
        }
    }

    async fn fetch(&self) -> Result<Vec<Key>, String> {
        if !super::oauth::secure_or_local(&self.url) {
            return Err(format!(
                "{} is not fetched: signing keys from beyond this machine come over https://",
                self.url
            ));
        }
        let mut response = self
            .client
            .get(&self.url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(format!("the document exceeds {MAX_JWKS_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        let set: JwkSet = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        keys_of(&set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn signing_keys_from_beyond_this_machine_come_over_https() {
        // S-342: refused before any connection is made.
        let cache = JwksCache::new("http://auth.example.com/jwks.json".into());
        let Err(error) = cache.fetch().await else {
            panic!("fetched over plain http");
        };
        assert!(error.contains("come over https://"), "{error}");
    }
}
