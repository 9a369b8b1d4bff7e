//! This server as an OAuth client of an authorization server's token endpoint: how it
//! proves who it is ([`ClientAuth`]), and one token request with its answer read within
//! bounds. Token exchange (RFC 8693) and connected accounts (the authorization-code grant,
//! refresh tokens) both send their requests through here.
//!
//! Every request goes to the one URL the deployment configured: redirects are not
//! followed (a redirect would carry the client's credentials and the grant elsewhere),
//! the answer is read up to 64 KiB, and the whole exchange has a deadline.

use std::time::Duration;

use serde::Deserialize;

use crate::clock::now_ms;

/// The most of a token endpoint's answer read.
const MAX_ANSWER: usize = 64 * 1024;

/// How long one token request may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client assertion (`private_key_jwt`) is valid.
const ASSERTION_TTL_SECS: u64 = 60;

/// How this server authenticates to the authorization server's token endpoint, as the
/// client the authorization server registered.
///
/// The secret and the private key are never printed (`Debug` shows the client id alone).
#[derive(Clone)]
pub struct ClientAuth {
    client_id: String,
    method: Method,
}

#[derive(Clone)]
enum Method {
    /// `client_secret_basic`: the id and secret in the `Authorization` header.
    Basic(String),
    /// `client_secret_post`: the id and secret in the form.
    Post(String),
    /// `private_key_jwt` (RFC 7523): a short-lived JWT signed with the client's key.
    PrivateKeyJwt {
        key: jsonwebtoken::EncodingKey,
        algorithm: jsonwebtoken::Algorithm,
        kid: Option<String>,
    },
}

impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let method = match self.method {
            Method::Basic(_) => "client_secret_basic",
            Method::Post(_) => "client_secret_post",
            Method::PrivateKeyJwt { .. } => "private_key_jwt",
        };
        f.debug_struct("ClientAuth")
            .field("client_id", &self.client_id)
            .field("method", &method)
            .finish_non_exhaustive()
    }
}

impl ClientAuth {
    /// `client_secret_basic`: the client id and secret in an HTTP Basic `Authorization`
    /// header (form-encoded first, as RFC 6749 section 2.3.1 says).
    pub fn secret_basic(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        ClientAuth {
            client_id: client_id.into(),
            method: Method::Basic(secret.into()),
        }
    }

    /// `client_secret_post`: the client id and secret as form fields of each request.
    pub fn secret_post(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        ClientAuth {
            client_id: client_id.into(),
            method: Method::Post(secret.into()),
        }
    }

    /// `private_key_jwt` (RFC 7523): each request carries a JWT the server signs with its
    /// private key (`pem`, PKCS#8; `algorithm` one of `ES256`, `ES384`, `RS256`, `RS384`,
    /// `RS512`, `PS256`, `PS384`, `PS512`, `EdDSA`), naming the key `kid` when given. The
    /// assertion's audience is the token endpoint's URL, and it is valid for one minute.
    ///
    /// Fails when the algorithm is unknown or the key does not parse as one for it.
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        algorithm: &str,
        pem: &[u8],
        kid: Option<&str>,
    ) -> Result<Self, String> {
        use jsonwebtoken::{Algorithm, EncodingKey};
        let algorithm: Algorithm = algorithm
            .parse()
            .map_err(|_| format!("`{algorithm}` is not a JWT signing algorithm"))?;
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            _ => {
                return Err(format!(
                    "{algorithm:?} signs with a shared secret, not a private key"
                ))
            }
        }
        .map_err(|e| format!("the private key does not parse for {algorithm:?}: {e}"))?;
        Ok(ClientAuth {
            client_id: client_id.into(),
            method: Method::PrivateKeyJwt {
                key,
                algorithm,
                kid: kid.map(str::to_owned),
            },
        })
    }

    /// The client id the authorization server knows this server by.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }
}

/// One token endpoint, and this server's credentials for it.
#[derive(Debug, Clone)]
pub(crate) struct TokenEndpoint {
    url: String,
    auth: ClientAuth,
    http: reqwest::Client,
}

/// What the token endpoint answered with success (RFC 6749 section 5.1).
#[derive(Deserialize)]
pub(crate) struct Issued {
    pub(crate) access_token: String,
    #[serde(default)]
    pub(crate) expires_in: Option<u64>,
    #[serde(default)]
    pub(crate) refresh_token: Option<String>,
    #[serde(default)]
    pub(crate) scope: Option<String>,
    #[serde(default)]
    pub(crate) token_type: Option<String>,
    /// The OpenID Connect ID token, when `openid` was asked for.
    #[serde(default)]
    pub(crate) id_token: Option<String>,
}

impl std::fmt::Debug for Issued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issued")
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Why a token request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EndpointError {
    /// The authorization server answered with an OAuth error (RFC 6749 section 5.2):
    /// it understood the request and refused it.
    Refused {
        /// The `error` code (`invalid_grant`, `invalid_scope`, ..).
        error: String,
        /// Its `error_description`, when it gave one.
        description: Option<String>,
    },
    /// It could not be reached, did not answer in time, failed (5xx), or answered
    /// something that is no token response.
    Unavailable(String),
}

impl std::fmt::Display for EndpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EndpointError::Refused {
                error,
                description: Some(description),
            } => write!(f, "{error}: {description}"),
            EndpointError::Refused { error, .. } => f.write_str(error),
            EndpointError::Unavailable(why) => f.write_str(why),
        }
    }
}

/// An OAuth error answer.
#[derive(Deserialize)]
struct OAuthError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

impl TokenEndpoint {
    /// The endpoint at `url` (https, or plain http to this machine), reached as `auth`.
    pub(crate) fn new(url: &str, auth: ClientAuth) -> Result<TokenEndpoint, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        if !super::oauth::secure_or_local(url) || parsed.host_str().is_none() {
            return Err(format!(
                "`{url}`: a token endpoint is reached over https:// (plain http only on this machine), since every request carries this server's credentials"
            ));
        }
        if parsed.username() != "" || parsed.password().is_some() || parsed.fragment().is_some() {
            return Err(format!(
                "`{url}`: a token endpoint's URL carries no credentials and no fragment"
            ));
        }
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("no HTTP client: {e}"))?;
        Ok(TokenEndpoint {
            url: url.to_owned(),
            auth,
            http,
        })
    }

    /// The endpoint's URL.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Send one token request with the form `fields` (and this server's credentials).
    pub(crate) async fn request(&self, fields: &[(&str, &str)]) -> Result<Issued, EndpointError> {
        let mut form: Vec<(&str, String)> = fields
            .iter()
            .map(|(name, value)| (*name, (*value).to_owned()))
            .collect();
        let mut builder = self
            .http
            .post(&self.url)
            .header(reqwest::header::ACCEPT, "application/json");
        match &self.auth.method {
            Method::Basic(secret) => {
                builder = builder
                    .basic_auth(form_encode(&self.auth.client_id), Some(form_encode(secret)));
            }
            Method::Post(secret) => {
                form.push(("client_id", self.auth.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            Method::PrivateKeyJwt {
                key,
                algorithm,
                kid,
            } => {
                form.push(("client_id", self.auth.client_id.clone()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                ));
                form.push(("client_assertion", self.assertion(key, *algorithm, kid)?));
            }
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter().map(|(name, value)| (*name, value.as_str())))
            .finish();
        let response = builder
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body)
            .send()
            .await
            .map_err(|error| {
                EndpointError::Unavailable(if error.is_timeout() {
                    format!("{} did not answer within {}s", self.url, TIMEOUT.as_secs())
                } else {
                    format!("{} could not be reached", self.url)
                })
            })?;
        let status = response.status();
        let body = read_bounded(response).await.map_err(|why| {
            EndpointError::Unavailable(format!("the answer of {} {why}", self.url))
        })?;
        if status.is_success() {
            let issued: Issued = serde_json::from_slice(&body).map_err(|_| {
                EndpointError::Unavailable(format!(
                    "{} answered HTTP {status} without a token response",
                    self.url
                ))
            })?;
            if issued.access_token.is_empty() {
                return Err(EndpointError::Unavailable(format!(
                    "{} issued an empty access token",
                    self.url
                )));
            }
            if let Some(kind) = &issued.token_type {
                if !kind.eq_ignore_ascii_case("bearer") && !kind.eq_ignore_ascii_case("N_A") {
                    return Err(EndpointError::Unavailable(format!(
                        "{} issued a token of type `{kind}`, not a Bearer token",
                        self.url
                    )));
                }
            }
            return Ok(issued);
        }
        if status.is_client_error() {
            if let Ok(refusal) = serde_json::from_slice::<OAuthError>(&body) {
                return Err(EndpointError::Refused {
                    error: printable(&refusal.error, 64),
                    description: refusal.error_description.map(|d| printable(&d, 300)),
                });
            }
        }
        Err(EndpointError::Unavailable(format!(
            "{} answered HTTP {status}",
            self.url
        )))
    }

    /// A client assertion for one request (RFC 7523 section 3).
    fn assertion(
        &self,
        key: &jsonwebtoken::EncodingKey,
        algorithm: jsonwebtoken::Algorithm,
        kid: &Option<String>,
    ) -> Result<String, EndpointError> {
        let now = now_ms() / 1000;
        let jti = super::seal::random_token(16).map_err(EndpointError::Unavailable)?;
        let claims = serde_json::json!({
            "iss": self.auth.client_id,
            "sub": self.auth.client_id,
            "aud": self.url,
            "jti": jti,
            "iat": now,
            "exp": now + ASSERTION_TTL_SECS,
        });
        let mut header = jsonwebtoken::Header::new(algorithm);
        header.kid = kid.clone();
        jsonwebtoken::encode(&header, &claims, key).map_err(|e| {
            EndpointError::Unavailable(format!("the client assertion could not be signed: {e}"))
        })
    }
}

/// `application/x-www-form-urlencoded`, as the Basic credentials of a client are encoded
/// before they are joined (RFC 6749 section 2.3.1).
fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// At most `limit` characters of what a peer sent, with anything a terminal would act on
/// (control characters) replaced: it ends up in logs and in what the model reads.
pub(crate) fn printable(text: &str, limit: usize) -> String {
    text.chars()
        .take(limit)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The body of `response`, up to [`MAX_ANSWER`] bytes.
async fn read_bounded(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|_| "broke off".to_owned())? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(format!("exceeds {MAX_ANSWER} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_never_printed() {
        let auth = ClientAuth::secret_basic("mcp-server", "hunter2");
        let printed = format!("{auth:?}");
        assert!(printed.contains("mcp-server"), "{printed}");
        assert!(!printed.contains("hunter2"), "{printed}");
    }

    #[test]
    fn token_endpoints_are_https_or_local() {
        let auth = || ClientAuth::secret_post("c", "s");
        assert!(TokenEndpoint::new("https://as.example.com/token", auth()).is_ok());
        assert!(TokenEndpoint::new("http://127.0.0.1:9/token", auth()).is_ok());
        let remote = TokenEndpoint::new("http://as.example.com/token", auth()).unwrap_err();
        assert!(remote.contains("https://"), "{remote}");
        let inline = TokenEndpoint::new("https://u:p@as.example.com/token", auth()).unwrap_err();
        assert!(inline.contains("no credentials"), "{inline}");
    }

    #[test]
    fn private_keys_must_parse_for_their_algorithm() {
        let wrong = ClientAuth::private_key_jwt("c", "ES256", b"not a key", None).unwrap_err();
        assert!(wrong.contains("does not parse"), "{wrong}");
        let shared = ClientAuth::private_key_jwt("c", "HS256", b"k", None).unwrap_err();
        assert!(shared.contains("shared secret"), "{shared}");
        let unknown = ClientAuth::private_key_jwt("c", "XX1", b"k", None).unwrap_err();
        assert!(unknown.contains("not a JWT signing algorithm"), "{unknown}");
    }

    #[test]
    fn what_a_peer_says_is_printable() {
        assert_eq!(printable("bad\u{1b}[2Jscope\n", 100), "bad [2Jscope ");
        assert_eq!(printable("abcdef", 3), "abc");
    }
}
