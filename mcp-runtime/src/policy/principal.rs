//! Who is calling: the verified principal with its scopes, tenant and claims.
//!
//! On HTTP a [`TokenVerifier`](crate::policy::oauth::TokenVerifier) makes one from the
//! bearer token of every request (or your own layer inserts one into the request's
//! extensions). On stdio the host that started the process vouches for the caller through
//! the environment ([`Principal::from_env`]). Handlers take it as a parameter
//! (`who: Principal`, which refuses anonymous calls), or read
//! [`RequestContext::principal`](crate::RequestContext::principal) when anonymous calls
//! are fine.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Environment variable naming the stdio caller's subject.
pub const SUBJECT_ENV: &str = "MCP_PRINCIPAL";
/// Environment variable with the stdio caller's scopes, separated by spaces.
pub const SCOPES_ENV: &str = "MCP_SCOPES";
/// Environment variable with the stdio caller's tenant.
pub const TENANT_ENV: &str = "MCP_TENANT";
/// Environment variable with an access token for the stdio caller, checked by the server's
/// token verifier when one is configured.
pub const TOKEN_ENV: &str = "MCP_ACCESS_TOKEN";

/// Who is calling, as established by the transport.
///
/// Sealed state handed to a client (`requestState`, handshake-era sessions) is bound to
/// the principal's subject, so another caller cannot continue someone else's call.
///
/// ```
/// use mcp_runtime::Principal;
///
/// let who = Principal::new("alice")
///     .with_scopes(["orders:read", "orders:write"])
///     .with_tenant("acme");
/// assert!(who.has_scope("orders:write"));
/// assert_eq!(who.tenant(), Some("acme"));
/// ```
///
/// Two principals are equal when they name the same caller (subject, scopes, tenant and
/// claims), whatever token proved it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Principal {
    /// Stable identifier of the caller (a token's `sub`).
    pub subject: String,
    scopes: BTreeSet<String>,
    tenant: Option<String>,
    claims: Map<String, Value>,
    /// The access token that proved who the caller is, when an authorization server issued
    /// it: the subject token of a token exchange, and nothing else.
    #[cfg(feature = "oauth")]
    credential: Option<SubjectToken>,
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.subject == other.subject
            && self.scopes == other.scopes
            && self.tenant == other.tenant
            && self.claims == other.claims
    }
}

impl Eq for Principal {}

/// A caller's access token, kept only to be exchanged for a downstream one
/// (`RequestContext::downstream`). Never printed, never serialized, never handed to a
/// handler.
#[cfg(feature = "oauth")]
#[derive(Clone)]
pub(crate) struct SubjectToken(std::sync::Arc<str>);

#[cfg(feature = "oauth")]
impl SubjectToken {
    /// The token, for the one request that sends it: the exchange with the authorization
    /// server.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

#[cfg(feature = "oauth")]
impl std::fmt::Debug for SubjectToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SubjectToken(..)")
    }
}

impl Principal {
    /// A caller identified by `subject`, with no scopes, tenant or claims.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal {
            subject: subject.into(),
            scopes: BTreeSet::new(),
            tenant: None,
            claims: Map::new(),
            #[cfg(feature = "oauth")]
            credential: None,
        }
    }

    /// The same caller with these scopes granted (added to any it had).
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(
            scopes
                .into_iter()
                .map(Into::into)
                .filter(|s: &String| !s.is_empty()),
        );
        self
    }

    /// The same caller, belonging to `tenant`.
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// The same caller with these claims (a verified token's payload, say).
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The same caller, proven by `token`, an access token an authorization server issued
    /// for this server (the subject token a token exchange sends).
    #[cfg(feature = "oauth")]
    pub(crate) fn with_subject_token(mut self, token: &str) -> Self {
        self.credential = Some(SubjectToken(token.into()));
        self
    }

    /// The access token that proved the caller, when an authorization server issued it.
    #[cfg(feature = "oauth")]
    pub(crate) fn subject_token(&self) -> Option<&SubjectToken> {
        self.credential.as_ref()
    }

    /// The scopes granted, sorted.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(String::as_str)
    }

    /// The tenant the caller belongs to, when the credentials name one.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// All claims of the credentials (empty for principals not made from a token).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// One claim.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// Whether the caller holds `needed`, directly or through a broader scope: a scope
    /// covers the scopes that extend it after a `:` (`orders` covers `orders:read` and
    /// `orders:read:archive`).
    pub fn has_scope(&self, needed: &str) -> bool {
        covers_any(self.scopes.iter().map(String::as_str), needed)
    }

    /// The scopes of `needed` this caller lacks, in the order given.
    pub fn missing_scopes<'a>(&self, needed: &[&'a str]) -> Vec<&'a str> {
        needed
            .iter()
            .copied()
            .filter(|s| !self.has_scope(s))
            .collect()
    }

    /// The caller the host that started this process names in the environment:
    /// `MCP_PRINCIPAL` (subject), `MCP_SCOPES` (space-separated) and `MCP_TENANT`. `None`
    /// when `MCP_PRINCIPAL` is unset or empty.
    pub fn from_env() -> Option<Principal> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// Why the environment names no caller though it says what the caller holds: scopes or
    /// a tenant without `MCP_PRINCIPAL`, which would leave the caller anonymous with none
    /// of them.
    pub(crate) fn missing_subject(var: impl Fn(&str) -> Option<String>) -> Option<String> {
        let set = |name: &str| var(name).is_some_and(|v| !v.trim().is_empty());
        if set(SUBJECT_ENV) {
            return None;
        }
        let named: Vec<&str> = [SCOPES_ENV, TENANT_ENV]
            .into_iter()
            .filter(|name| set(name))
            .collect();
        (!named.is_empty()).then(|| {
            format!(
                "{} names what the stdio caller holds, but {SUBJECT_ENV}, who the caller is, is not set, so the caller would be anonymous and hold none of it: set {SUBJECT_ENV} too (such as {SUBJECT_ENV}=agent)",
                named.join(" and ")
            )
        })
    }

    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<Principal> {
        let subject = var(SUBJECT_ENV).filter(|s| !s.trim().is_empty())?;
        let mut principal = Principal::new(subject.trim());
        if let Some(scopes) = var(SCOPES_ENV) {
            principal = principal.with_scopes(scopes.split_ascii_whitespace());
        }
        if let Some(tenant) = var(TENANT_ENV).filter(|t| !t.trim().is_empty()) {
            principal = principal.with_tenant(tenant.trim());
        }
        Some(principal)
    }
}

/// The caller's tenant, as a handler parameter: `tenant: Tenant`. A call whose principal
/// names no tenant is refused before the handler runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tenant(pub String);

impl std::ops::Deref for Tenant {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Tenant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether any of `granted` covers `needed` (equal, or a prefix ending at a `:`).
pub(crate) fn covers_any<'a>(granted: impl IntoIterator<Item = &'a str>, needed: &str) -> bool {
    granted.into_iter().any(|g| {
        g == needed
            || needed
                .strip_prefix(g)
                .is_some_and(|rest| rest.starts_with(':'))
    })
}

/// Whether `scope` is a valid OAuth scope token (RFC 6749 section 3.3): visible ASCII
/// without space, `"` or `\`.
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broader_scopes_cover_narrower_ones() {
        let p = Principal::new("a").with_scopes(["orders", "billing:read"]);
        assert!(p.has_scope("orders"));
        assert!(p.has_scope("orders:write"));
        assert!(p.has_scope("orders:write:bulk"));
        assert!(!p.has_scope("ordersx"));
        assert!(p.has_scope("billing:read"));
        assert!(!p.has_scope("billing"));
        assert!(!p.has_scope("billing:write"));
        assert_eq!(
            p.missing_scopes(&["orders:read", "billing:write", "admin"]),
            vec!["billing:write", "admin"]
        );
    }

    #[test]
    fn environment_principal() {
        let vars = |name: &str| match name {
            SUBJECT_ENV => Some(" alice ".to_owned()),
            SCOPES_ENV => Some("orders:read  orders:write".to_owned()),
            TENANT_ENV => Some("acme".to_owned()),
            _ => None,
        };
        let p = Principal::from_vars(vars).unwrap();
        assert_eq!(p.subject, "alice");
        assert_eq!(
            p.scopes().collect::<Vec<_>>(),
            ["orders:read", "orders:write"]
        );
        assert_eq!(p.tenant(), Some("acme"));
        assert!(Principal::from_vars(|_| None).is_none());
        assert!(Principal::from_vars(|n| (n == SUBJECT_ENV).then(|| " ".to_owned())).is_none());
        // Scopes or a tenant without a subject are a mistake said at start, not an
        // anonymous caller.
        assert_eq!(Principal::missing_subject(vars), None);
        let scopes_only = |name: &str| (name == SCOPES_ENV).then(|| "orders:read".to_owned());
        let said = Principal::missing_subject(scopes_only).unwrap();
        assert!(
            said.contains("MCP_SCOPES") && said.contains("set MCP_PRINCIPAL too"),
            "{said}"
        );
        assert_eq!(Principal::missing_subject(|_| None), None);
    }

    #[test]
    fn scope_tokens() {
        assert!(is_scope_token("orders:write"));
        assert!(is_scope_token("https://api.example.com/read"));
        assert!(!is_scope_token(""));
        assert!(!is_scope_token("a b"));
        assert!(!is_scope_token("a\"b"));
        assert!(!is_scope_token("a\\b"));
        assert!(!is_scope_token("é"));
    }
}
