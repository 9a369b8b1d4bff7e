//! The server as a resource server on Streamable HTTP: a [`TokenVerifier`] turns the
//! bearer token of every request into a [`Principal`], and failures are answered with the
//! challenges the specification asks for. With OAuth ([`ProtectedResource`] given to
//! `Server::oauth`), the protected-resource metadata document (RFC 9728) tells clients
//! where to get tokens and every challenge names it in `resource_metadata`; with tokens no
//! authorization server issues (API keys, given to `Server::verify_tokens`), there is no
//! document and the challenges are plain `Bearer` ones.
//!
//! - no token, or one that does not verify: `401` with `WWW-Authenticate: Bearer` (plus
//!   `resource_metadata="…"` and `scope="…"` with OAuth, and `error="invalid_token"` and a
//!   description when a token was sent);
//! - a caller without a scope the operation needs: `403` with
//!   `error="insufficient_scope"` and every scope the operation needs (the rule of
//!   [`Denied::insufficient_scope`](crate::Denied::insufficient_scope), whatever made the
//!   principal);
//! - a malformed request (two `Authorization` headers, a token in the query string): `400`
//!   with `error="invalid_request"`.
//!
//! Each refusal also has a JSON-RPC error body (-31401 for 401, -31403 for 403, -32600 for
//! 400) that says what happened, for clients that do not run the OAuth flow.
//!
//! Tokens are checked before anything else is read, never logged, and never handed to
//! handlers: they see the principal only. With OAuth the principal keeps the token for one
//! use, as the subject token of a token exchange (`RequestContext::downstream`).
//!
//! This module decides; it builds no HTTP response. A refusal is an `AuthRefusal`
//! (status, challenge parameters, JSON-RPC body) that the HTTP transport renders, so the
//! policy knows nothing of the web framework serving it.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::host::host_of;
use super::principal::Principal;
use crate::protocol::jsonrpc::error_response;
use crate::protocol::{codes, RpcError};

/// Why a token was refused. The description is sent to the client in
/// `error_description`, so it says what is wrong without repeating the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    description: String,
}

impl TokenError {
    /// A refusal with this description.
    pub fn new(description: impl Into<String>) -> Self {
        TokenError {
            description: description.into(),
        }
    }

    /// What is wrong with the token.
    pub fn description(&self) -> &str {
        &self.description
    }
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description)
    }
}

impl std::error::Error for TokenError {}

/// Checks an access token and says who it speaks for.
///
/// A verifier MUST check that the token was issued for this server (its audience is the
/// server's resource URI), that it is unexpired and that it comes from a trusted issuer.
/// [`JwtVerifier`](crate::policy::jwt::JwtVerifier) (feature `oauth`) does this for JWTs,
/// [`ApiKeys`](crate::policy::api_keys::ApiKeys) for API keys; implement the trait yourself
/// for other opaque tokens (checked by introspection, or looked up in your database).
///
/// ```
/// use mcp_runtime::Principal;
/// use mcp_runtime::policy::oauth::{TokenError, TokenVerifier};
///
/// /// Accepts one fixed token (a test double; use a real verifier in production).
/// struct Fixed;
///
/// impl TokenVerifier for Fixed {
///     async fn verify(&self, token: &str) -> Result<Principal, TokenError> {
///         if token == "let-me-in" {
///             Ok(Principal::new("tester").with_scopes(["orders:read"]))
///         } else {
///             Err(TokenError::new("unknown token"))
///         }
///     }
/// }
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal the token speaks for, or why it is refused.
    fn verify(&self, token: &str) -> impl Future<Output = Result<Principal, TokenError>> + Send;
}

/// Object-safe form stored by the server.
pub(crate) trait DynVerifier: Send + Sync {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>>;
}

impl<V: TokenVerifier> DynVerifier for V {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(TokenVerifier::verify(self, token))
    }
}

/// This server as an OAuth protected resource: its canonical URI (the audience tokens
/// must name) and the authorization servers that issue them. Served as the RFC 9728
/// metadata document at `/.well-known/oauth-protected-resource/<endpoint path>` (and at
/// `/.well-known/oauth-protected-resource`), and named in every challenge, so clients can
/// find where to get a token.
///
/// It is needed only when an OAuth flow exists: its one purpose is to point clients at
/// an authorization server, so one naming none stops the server at start. For API keys and
/// other tokens no authorization server issues, give the verifier alone to
/// [`Server::verify_tokens`](crate::Server::verify_tokens).
///
/// ```
/// use mcp_runtime::policy::oauth::ProtectedResource;
///
/// let resource = ProtectedResource::new("https://mcp.example.com/mcp")
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["orders:read", "orders:write"]);
/// assert_eq!(
///     resource.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    name: Option<String>,
    documentation: Option<String>,
}

impl ProtectedResource {
    /// The canonical URI of the MCP endpoint, e.g. `https://mcp.example.com/mcp`.
    pub fn new(resource: impl Into<String>) -> Self {
        ProtectedResource {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            name: None,
            documentation: None,
        }
    }

    /// An authorization server (its issuer URL) whose tokens this server accepts.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Scopes a client may request for this server (published in the metadata, and named
    /// in the `scope` of the 401 challenge).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A human-readable name for the metadata (`resource_name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// A page documenting the server for developers (`resource_documentation`).
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.documentation = Some(url.into());
        self
    }

    /// The resource URI as configured.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// `scheme://authority` and the path of the resource URI.
    fn split(&self) -> (&str, &str) {
        let after_scheme = self.resource.find("://").map_or(0, |i| i + 3);
        let rest = self.resource.get(after_scheme..).unwrap_or_default();
        match rest.find('/') {
            Some(slash) => self
                .resource
                .split_at_checked(after_scheme + slash)
                .unwrap_or((self.resource.as_str(), "")),
            None => (self.resource.as_str(), ""),
        }
    }

    /// The path of the metadata document: `/.well-known/oauth-protected-resource` followed
    /// by the resource URI's path.
    pub fn metadata_path(&self) -> String {
        let (_, path) = self.split();
        format!(
            "/.well-known/oauth-protected-resource{}",
            path.trim_end_matches('/')
        )
    }

    /// The URL of the metadata document, named in every challenge.
    pub fn metadata_url(&self) -> String {
        let (origin, _) = self.split();
        format!("{origin}{}", self.metadata_path())
    }

    /// The host of the resource URI (without port), lower-cased.
    pub(crate) fn host(&self) -> String {
        let (origin, _) = self.split();
        let authority = origin.split_once("://").map_or(origin, |(_, a)| a);
        host_of(authority)
    }

    /// The metadata document (RFC 9728 section 2).
    pub fn document(&self) -> Value {
        let mut doc = serde_json::Map::new();
        doc.insert("resource".into(), json!(self.resource));
        doc.insert(
            "authorization_servers".into(),
            json!(self.authorization_servers),
        );
        doc.insert("bearer_methods_supported".into(), json!(["header"]));
        if !self.scopes_supported.is_empty() {
            doc.insert("scopes_supported".into(), json!(self.scopes_supported));
        }
        if let Some(name) = &self.name {
            doc.insert("resource_name".into(), json!(name));
        }
        if let Some(url) = &self.documentation {
            doc.insert("resource_documentation".into(), json!(url));
        }
        Value::Object(doc)
    }

    /// Problems that would make the document wrong, found at start.
    pub(crate) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let lower = self.resource.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("http://"))
            || self.resource.contains('#')
            || self.split().0.len() <= "http://".len()
        {
            problems.push(format!(
                "the protected resource {:?} must be an absolute http(s) URI without a fragment, such as https://mcp.example.com/mcp",
                self.resource
            ));
        }
        if lower.starts_with("http://") && !secure_or_local(&self.resource) {
            problems.push(format!(
                "the protected resource {:?} is reached over the network, so its URI is https:// (TLS may end at a proxy in front of this server); plain http is for loopback addresses only",
                self.resource
            ));
        }
        if self.authorization_servers.is_empty() {
            problems.push(
                "the protected resource names no authorization server: add .authorization_server(\"https://issuer\"); for API keys and other tokens no authorization server issues, use Server::verify_tokens(verifier) without a ProtectedResource".into(),
            );
        }
        for issuer in &self.authorization_servers {
            if !secure_or_local(issuer) {
                problems.push(format!(
                    "the authorization server {issuer:?} is reached over the network, so its URL is https://; plain http is for loopback addresses only"
                ));
            }
        }
        if let Some(bad) = self
            .scopes_supported
            .iter()
            .find(|s| !super::principal::is_scope_token(s))
        {
            problems.push(format!("{bad:?} is not an OAuth scope"));
        }
        if self.scopes_supported.iter().any(|s| s == "offline_access") {
            problems.push(
                "offline_access is a scope of the authorization server, not of this resource: leave it out of scopes_supported".into(),
            );
        }
        problems
    }
}

/// HTTP statuses of the refusals (the transport turns them into its own type).
const BAD_REQUEST: u16 = 400;
const UNAUTHORIZED: u16 = 401;
const FORBIDDEN: u16 = 403;

/// A request the bearer-token check refuses, as the transport sends it: the HTTP status,
/// the parameters of the `WWW-Authenticate: Bearer` challenge (in order, values already
/// safe inside a quoted-string) and the JSON-RPC error body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AuthRefusal {
    /// 400 (malformed request), 401 (no valid token) or 403 (insufficient scope).
    pub(crate) status: u16,
    /// The challenge's `name="value"` parameters, in the order they are written.
    pub(crate) challenge: Vec<(&'static str, String)>,
    /// The JSON-RPC error response that says what happened.
    pub(crate) body: Value,
}

impl AuthRefusal {
    /// The `WWW-Authenticate` value: `Bearer name="value", ...`, or `Bearer` alone.
    pub(crate) fn www_authenticate(&self) -> String {
        let parameters: Vec<String> = self
            .challenge
            .iter()
            .map(|(name, value)| format!("{name}=\"{value}\""))
            .collect();
        if parameters.is_empty() {
            "Bearer".to_owned()
        } else {
            format!("Bearer {}", parameters.join(", "))
        }
    }
}

/// 403 for a caller without some of the scopes an operation needs; `needed` lists every
/// scope of the operation, so the client asks for all of them at once (S-334), and `body`
/// is the JSON-RPC error already made for the refusal. The challenge names the metadata
/// document when there is one.
pub(crate) fn insufficient_scope<S: AsRef<str>>(
    needed: &[S],
    metadata_url: Option<&str>,
    body: Value,
) -> AuthRefusal {
    let scope = needed
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(" ");
    let mut challenge = vec![
        ("error", "insufficient_scope".to_owned()),
        ("scope", quoted(&scope)),
    ];
    if let Some(url) = metadata_url {
        challenge.push(("resource_metadata", quoted(url)));
    }
    challenge.push((
        "error_description",
        quoted(&format!("this operation needs the scope(s) {scope}")),
    ));
    AuthRefusal {
        status: FORBIDDEN,
        challenge,
        body,
    }
}

/// The bearer-token check of the HTTP endpoint, with the protected-resource metadata when
/// an OAuth flow exists.
#[derive(Clone)]
pub(crate) struct HttpAuth {
    verifier: Arc<dyn DynVerifier>,
    resource: Option<ProtectedResource>,
    metadata_url: Option<String>,
}

/// Longest accepted token: real ones are a few kilobytes at most.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

impl HttpAuth {
    /// An OAuth resource server: tokens checked by `verifier`, `resource` published.
    pub(crate) fn oauth<V: TokenVerifier>(resource: ProtectedResource, verifier: V) -> HttpAuth {
        HttpAuth {
            verifier: Arc::new(verifier),
            metadata_url: Some(resource.metadata_url()),
            resource: Some(resource),
        }
    }

    /// Tokens checked by `verifier`, with no metadata to publish (API keys).
    pub(crate) fn tokens<V: TokenVerifier>(verifier: V) -> HttpAuth {
        HttpAuth {
            verifier: Arc::new(verifier),
            resource: None,
            metadata_url: None,
        }
    }

    /// The protected-resource metadata, when an OAuth flow exists.
    pub(crate) fn resource(&self) -> Option<&ProtectedResource> {
        self.resource.as_ref()
    }

    /// The URL of the metadata document, named in challenges.
    pub(crate) fn metadata_url(&self) -> Option<&str> {
        self.metadata_url.as_deref()
    }

    /// The caller `token` speaks for (from HTTP, or the stdio host's `MCP_ACCESS_TOKEN`).
    /// With OAuth the principal keeps the token, to exchange it for a downstream one;
    /// tokens no authorization server issued (API keys) are never kept, so never sent
    /// anywhere.
    pub(crate) async fn verify(&self, token: &str) -> Result<Principal, TokenError> {
        let principal = self.verifier.verify(token).await?;
        #[cfg(feature = "oauth")]
        if self.resource.is_some() {
            return Ok(principal.with_subject_token(token));
        }
        Ok(principal)
    }

    /// The principal of a request, or why it is refused. `authorization` holds the
    /// request's `Authorization` header values (a value that is not text as `""`), `query`
    /// its query string.
    pub(crate) async fn authenticate(
        &self,
        authorization: &[&str],
        query: Option<&str>,
    ) -> Result<Principal, AuthRefusal> {
        if query.is_some_and(|q| {
            q.split('&')
                .any(|pair| pair.split('=').next() == Some("access_token"))
        }) {
            return Err(self.refuse(
                BAD_REQUEST,
                Some("invalid_request"),
                "access tokens are not accepted in the query string; send them in the Authorization header",
            ));
        }
        let mut values = authorization.iter();
        let Some(text) = values.next() else {
            return Err(self.refuse(
                UNAUTHORIZED,
                None,
                "this server needs an access token: send Authorization: Bearer <token>",
            ));
        };
        if values.next().is_some() {
            return Err(self.refuse(
                BAD_REQUEST,
                Some("invalid_request"),
                "the request carries more than one Authorization header",
            ));
        }
        let token = match text.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => {
                return Err(self.refuse(
                    UNAUTHORIZED,
                    None,
                    "this server accepts only Bearer access tokens",
                ))
            }
        };
        if token.is_empty() || token.len() > MAX_TOKEN_BYTES || !is_b64token(token) {
            return Err(self.refuse(
                UNAUTHORIZED,
                Some("invalid_token"),
                "the access token is malformed",
            ));
        }
        match self.verify(token).await {
            Ok(principal) => Ok(principal),
            Err(error) => {
                tracing::info!(reason = %error, "refused an access token");
                Err(self.refuse(UNAUTHORIZED, Some("invalid_token"), error.description()))
            }
        }
    }

    fn refuse(&self, status: u16, error: Option<&'static str>, description: &str) -> AuthRefusal {
        let mut challenge = Vec::new();
        if let Some(url) = &self.metadata_url {
            challenge.push(("resource_metadata", quoted(url)));
        }
        if let Some(resource) = self.resource.as_ref() {
            if !resource.scopes_supported.is_empty() {
                challenge.push(("scope", quoted(&resource.scopes_supported.join(" "))));
            }
        }
        if let Some(error) = error {
            challenge.push(("error", error.to_owned()));
            challenge.push(("error_description", quoted(description)));
        }
        // A JSON-RPC error (without id: the body was not read) that says what happened to
        // clients that do not run the OAuth flow; the OAuth fields are in `data`.
        let code = if status == UNAUTHORIZED {
            codes::UNAUTHORIZED
        } else {
            codes::INVALID_REQUEST
        };
        let mut data = json!({
            "error": error.unwrap_or("unauthorized"),
            "error_description": description,
        });
        if let (Some(url), Value::Object(data)) = (&self.metadata_url, &mut data) {
            data.insert("resource_metadata".into(), json!(url));
        }
        let error = RpcError::new(code, format!("Unauthorized: {description}")).with_data(data);
        AuthRefusal {
            status,
            challenge,
            body: error_response(None, &error),
        }
    }
}

/// Text safe inside a quoted-string of a challenge: visible ASCII and spaces, without `"`
/// and `\` (RFC 6750 section 3 forbids them in these attributes).
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if c == ' ' || c.is_ascii_graphic() => c,
            _ => '?',
        })
        .collect()
}

/// RFC 6750 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
pub(crate) fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// A URI with its scheme and host lower-cased and a trailing `/` dropped, for comparing
/// audiences with the resource URI (upper-case variants name the same server).
pub fn canonical_uri(uri: &str) -> String {
    let trimmed = uri.trim();
    let (scheme, rest) = match trimmed.split_once("://") {
        Some(parts) => parts,
        None => return trimmed.to_owned(),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    format!(
        "{}://{}{}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase(),
        path.trim_end_matches('/')
    )
}

/// Whether `url` is `https`, or plain `http` to a loopback address: OAuth traffic beyond
/// this machine goes over TLS (OAuth 2.1 section 1.5).
pub(crate) fn secure_or_local(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    if lower.starts_with("https://") {
        return true;
    }
    let Some(rest) = lower.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let host = host_of(authority);
    host == "localhost"
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oauth_endpoints_beyond_loopback_are_https() {
        // S-339, S-340, S-342: an endpoint beyond this machine is https (OAuth 2.1 §1.5);
        // loopback may be plain http.
        for url in [
            "https://mcp.example.com/mcp",
            "HTTPS://MCP.EXAMPLE.COM",
            "http://127.0.0.1:8080/mcp",
            "http://localhost:9000",
            "http://[::1]:3000/mcp",
        ] {
            assert!(secure_or_local(url), "{url}");
        }
        for url in [
            "http://mcp.example.com/mcp",
            "http://127.0.0.1.evil.example/mcp",
            "http://localhost@evil.example/mcp",
            "ftp://127.0.0.1/",
        ] {
            assert!(!secure_or_local(url), "{url}");
        }
        let plain = ProtectedResource::new("http://mcp.example.com/mcp")
            .authorization_server("http://auth.example.com")
            .problems();
        assert_eq!(plain.len(), 2, "{plain:?}");
        assert!(plain[0].contains("its URI is https://"), "{plain:?}");
        assert!(
            plain[1].contains("\"http://auth.example.com\""),
            "{plain:?}"
        );
        let local = ProtectedResource::new("http://127.0.0.1:8080/mcp")
            .authorization_server("http://localhost:9000");
        assert!(local.problems().is_empty());
    }

    #[test]
    fn metadata_location_follows_the_resource_path() {
        let r = ProtectedResource::new("https://MCP.example.com:8443/tenants/mcp")
            .authorization_server("https://auth.example.com");
        assert_eq!(
            r.metadata_path(),
            "/.well-known/oauth-protected-resource/tenants/mcp"
        );
        assert_eq!(
            r.metadata_url(),
            "https://MCP.example.com:8443/.well-known/oauth-protected-resource/tenants/mcp"
        );
        assert_eq!(r.host(), "mcp.example.com");
        assert!(r.problems().is_empty());
        let root = ProtectedResource::new("https://mcp.example.com");
        assert_eq!(
            root.metadata_path(),
            "/.well-known/oauth-protected-resource"
        );
        assert_eq!(root.problems().len(), 1, "no authorization server");
        assert_eq!(
            ProtectedResource::new("mcp.example.com/mcp")
                .authorization_server("https://a")
                .scopes_supported(["offline_access"])
                .problems()
                .len(),
            2
        );
    }

    #[test]
    fn canonical_uris_ignore_case_of_scheme_and_host() {
        assert_eq!(
            canonical_uri("HTTPS://MCP.Example.com/Mcp/"),
            "https://mcp.example.com/Mcp"
        );
        assert_eq!(canonical_uri("https://a.b"), "https://a.b");
    }

    #[test]
    fn tokens_and_quoting() {
        assert!(is_b64token("eyJhbGciOi.J9-_~+/=="));
        assert!(!is_b64token("a b"));
        assert!(!is_b64token("==="));
        assert!(!is_b64token("a\"b"));
        assert_eq!(quoted("say \"hi\"\n"), "say 'hi'?");
    }

    #[tokio::test]
    async fn without_metadata_challenges_name_none() {
        // API keys: no authorization server, so nothing to point a client at.
        let keys = crate::policy::api_keys::ApiKeys::new()
            .key("k-0123456789abcdef", Principal::new("bot"))
            .unwrap();
        let auth = HttpAuth::tokens(keys);
        assert!(auth.resource().is_none() && auth.metadata_url().is_none());
        let missing = auth.authenticate(&[], None).await.unwrap_err();
        assert_eq!(missing.status, UNAUTHORIZED);
        assert_eq!(missing.www_authenticate(), "Bearer");
        assert_eq!(missing.body["error"]["code"], codes::UNAUTHORIZED);
        assert!(missing.body["error"]["data"]
            .get("resource_metadata")
            .is_none());
        let wrong = auth
            .authenticate(&["Bearer k-0123456789abcdeX"], None)
            .await
            .unwrap_err();
        assert_eq!(
            wrong.www_authenticate(),
            "Bearer error=\"invalid_token\", error_description=\"unknown API key\""
        );
        let right = auth
            .authenticate(&["Bearer k-0123456789abcdef"], None)
            .await
            .unwrap();
        assert_eq!(right.subject, "bot");

        let plain = insufficient_scope(&["a:read", "b"], None, Value::Null);
        assert_eq!(plain.status, FORBIDDEN);
        assert_eq!(
            plain.www_authenticate(),
            "Bearer error=\"insufficient_scope\", scope=\"a:read b\", error_description=\"this operation needs the scope(s) a:read b\""
        );
        let named = insufficient_scope(
            &["a:read"],
            Some("https://x.test/.well-known/oauth-protected-resource"),
            Value::Null,
        );
        assert!(named
            .www_authenticate()
            .contains("scope=\"a:read\", resource_metadata=\"https://x.test/.well-known/oauth-protected-resource\""));
    }

    #[test]
    fn a_protected_resource_without_an_authorization_server_points_at_verify_tokens() {
        let problems = ProtectedResource::new("https://mcp.example.com/mcp").problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("names no authorization server"));
        assert!(problems[0].contains("Server::verify_tokens"));
    }

    #[test]
    fn a_challenge_is_written_in_its_parameters_order() {
        let refusal = AuthRefusal {
            status: FORBIDDEN,
            challenge: vec![
                ("error", "insufficient_scope".into()),
                ("scope", "a b".into()),
            ],
            body: Value::Null,
        };
        assert_eq!(
            refusal.www_authenticate(),
            "Bearer error=\"insufficient_scope\", scope=\"a b\""
        );
    }
}
