//! A connected account's sign-in, in the browser: the link a caller is asked to open (the
//! provider's authorization request, or this server's `/oauth/connect` when the browser's
//! user is checked first), the check of who signed in (`/oauth/verified`), and the end of
//! the flow (`/oauth/callback`), which trades the code for tokens and stores them. Each
//! step answers with a redirect or a page ([`Finished`]).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::{Check, Configured, Connection, SignIn, UserCheck, Vault, SIGN_IN_TTL_MS};
use crate::clock::now_ms;
use crate::policy::principal::Principal;
use crate::policy::seal::random_token;
use crate::policy::token_endpoint::printable;

impl Vault {
    /// The link a caller opens to connect: the provider's sign-in with a sealed `state`
    /// and a PKCE challenge, or this server's `/oauth/connect` when the browser's user is
    /// checked first.
    pub(super) fn sign_in_url(
        &self,
        configured: &Configured,
        who: &Principal,
    ) -> Result<String, String> {
        let sign_in = SignIn {
            provider: configured.provider.name.clone(),
            subject: who.subject.clone(),
            tenant: who.tenant().map(str::to_owned),
            verifier: random_token(48)?,
            expires_at_ms: now_ms().saturating_add(SIGN_IN_TTL_MS),
        };
        let plain = serde_json::to_vec(&sign_in).map_err(|e| e.to_string())?;
        let state = self.key.seal("oauth-state", &plain)?;
        if self.user_check.is_some() {
            let mut url = url::Url::parse(&self.connect).map_err(|e| e.to_string())?;
            url.query_pairs_mut().append_pair("state", &state);
            return Ok(url.into());
        }
        self.provider_url(configured, &sign_in, &state)
    }

    /// The provider's authorization request for `sign_in`, sealed as `state`.
    fn provider_url(
        &self,
        configured: &Configured,
        sign_in: &SignIn,
        state: &str,
    ) -> Result<String, String> {
        let provider = &configured.provider;
        let mut url = url::Url::parse(&provider.authorize_url).map_err(|e| e.to_string())?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", provider.auth.client_id())
                .append_pair("redirect_uri", &self.callback)
                .append_pair("state", state)
                .append_pair("code_challenge", &challenge(&sign_in.verifier))
                .append_pair("code_challenge_method", "S256");
            if !provider.scopes.is_empty() {
                query.append_pair("scope", &provider.scopes.join(" "));
            }
            if let Some(resource) = &provider.resource {
                query.append_pair("resource", resource);
            }
        }
        Ok(url.into())
    }

    /// The sign-in sealed in `state`, if it is one of this server's and has not expired.
    fn open_sign_in(&self, state: Option<&String>) -> Result<SignIn, Finished> {
        let Some(state) = state else {
            return Err(Finished::bad(
                "This page needs the link the sign-in sends you back with.",
            ));
        };
        let Some(sign_in) = self.keys().find_map(|key| {
            key.open("oauth-state", state)
                .ok()
                .and_then(|plain| serde_json::from_slice::<SignIn>(&plain).ok())
        }) else {
            return Err(Finished::bad(
                "This sign-in link is not valid. Start again from your assistant.",
            ));
        };
        if now_ms() >= sign_in.expires_at_ms {
            return Err(Finished::bad(
                "This sign-in link has expired. Start again from your assistant.",
            ));
        }
        Ok(sign_in)
    }

    /// `/oauth/connect?state=..`: the browser is sent to sign in at this server's own
    /// authorization server first, to show who it is.
    pub(crate) fn connect(&self, params: &BTreeMap<String, String>) -> Finished {
        let Some((check, _)) = &self.user_check else {
            return Finished::bad("This server does not check sign-ins this way.");
        };
        let Some(state) = params.get("state") else {
            return Finished::bad("This page needs the link your assistant gave you.");
        };
        if let Err(finished) = self.open_sign_in(Some(state)) {
            return finished;
        }
        let request = || -> Result<String, String> {
            let pending = Check {
                sign_in: state.clone(),
                nonce: random_token(24)?,
                verifier: random_token(48)?,
            };
            let plain = serde_json::to_vec(&pending).map_err(|e| e.to_string())?;
            let sealed = self.key.seal("oauth-check", &plain)?;
            let mut url = url::Url::parse(&check.authorize_url).map_err(|e| e.to_string())?;
            url.query_pairs_mut()
                .append_pair("response_type", "code")
                .append_pair("client_id", check.auth.client_id())
                .append_pair("redirect_uri", &self.verified)
                .append_pair("scope", "openid")
                .append_pair("state", &sealed)
                .append_pair("nonce", &pending.nonce)
                .append_pair("code_challenge", &challenge(&pending.verifier))
                .append_pair("code_challenge_method", "S256");
            Ok(url.into())
        };
        match request() {
            Ok(url) => Finished::redirect(url),
            Err(why) => {
                tracing::error!(why, "a user check could not be started");
                Finished::failed(
                    "The sign-in could not be started. Start again from your assistant.",
                )
            }
        }
    }

    /// `/oauth/verified?code=..&state=..`: who signed in at this server's authorization
    /// server; the provider's sign-in when it is the caller the link was made for.
    pub(crate) async fn verified(&self, params: &BTreeMap<String, String>) -> Finished {
        let Some((check, endpoint)) = &self.user_check else {
            return Finished::bad("This server does not check sign-ins this way.");
        };
        let Some(pending) = params.get("state").and_then(|state| {
            self.keys().find_map(|key| {
                key.open("oauth-check", state)
                    .ok()
                    .and_then(|plain| serde_json::from_slice::<Check>(&plain).ok())
            })
        }) else {
            return Finished::bad(
                "This sign-in link is not valid. Start again from your assistant.",
            );
        };
        let sign_in = match self.open_sign_in(Some(&pending.sign_in)) {
            Ok(sign_in) => sign_in,
            Err(finished) => return finished,
        };
        let Ok(configured) = self.configured(&sign_in.provider) else {
            return Finished::bad("This sign-in is for a provider this server no longer offers.");
        };
        let Some(code) = params.get("code") else {
            return Finished::bad("You did not sign in, so nothing was connected.");
        };
        let fields = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", self.verified.as_str()),
            ("code_verifier", pending.verifier.as_str()),
        ];
        let subject = match endpoint.request(&fields).await {
            Ok(issued) => id_token_subject(issued.id_token.as_deref(), check, &pending.nonce),
            Err(error) => Err(error.to_string()),
        };
        match subject {
            Ok(subject) if subject == sign_in.subject => {
                match self.provider_url(configured, &sign_in, &pending.sign_in) {
                    Ok(url) => Finished::redirect(url),
                    Err(why) => {
                        tracing::error!(why, "a provider's sign-in could not be built");
                        Finished::failed(
                            "The sign-in could not be started. Start again from your assistant.",
                        )
                    }
                }
            }
            Ok(_) => {
                tracing::warn!(
                    provider = sign_in.provider,
                    "a sign-in link was opened by another user than the caller it was made for"
                );
                Finished {
                    status: 403,
                    message: "You signed in as a different user than the one who asked to connect this account. Nothing was connected.".into(),
                    redirect: None,
                }
            }
            Err(why) => {
                tracing::info!(why, "a user check failed");
                Finished::bad(
                    "Your sign-in could not be confirmed, so nothing was connected. Start again from your assistant.",
                )
            }
        }
    }

    /// The end of a sign-in: the provider sent the browser back with `code` (or `error`)
    /// and `state`. Trades the code for tokens and stores them; the page to show.
    pub(crate) async fn complete(&self, params: &BTreeMap<String, String>) -> Finished {
        let sign_in = match self.open_sign_in(params.get("state")) {
            Ok(sign_in) => sign_in,
            Err(finished) => return finished,
        };
        let Ok(configured) = self.configured(&sign_in.provider) else {
            return Finished::bad("This sign-in is for a provider this server no longer offers.");
        };
        let provider = sign_in.provider.as_str();
        if let Some(error) = params.get("error") {
            let why = printable(error, 64);
            return Finished::bad(&format!(
                "{provider} did not grant access ({why}). Nothing was connected."
            ));
        }
        let Some(code) = params.get("code") else {
            return Finished::bad(
                "The provider sent no authorization code. Nothing was connected.",
            );
        };
        let mut fields = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", self.callback.as_str()),
            ("code_verifier", sign_in.verifier.as_str()),
        ];
        if let Some(resource) = &configured.provider.resource {
            fields.push(("resource", resource));
        }
        let issued = match configured.endpoint.request(&fields).await {
            Ok(issued) => issued,
            Err(error) => {
                tracing::info!(provider, %error, "a sign-in's code was not exchanged");
                return Finished::bad(&format!(
                    "{provider} did not issue a token ({}). Nothing was connected; start again from your assistant.",
                    printable(&error.to_string(), 200)
                ));
            }
        };
        let mut who = Principal::new(sign_in.subject);
        if let Some(tenant) = sign_in.tenant {
            who = who.with_tenant(tenant);
        }
        let now = now_ms();
        let connection = Connection {
            expires_at_ms: issued
                .expires_in
                .map(|s| now.saturating_add(s.saturating_mul(1000))),
            access_token: issued.access_token,
            refresh_token: issued.refresh_token,
            scope: issued.scope,
            connected_at_ms: now,
        };
        match self.put(provider, &who, &connection).await {
            Ok(()) => {
                tracing::info!(provider, "an account was connected");
                Finished::ok(provider)
            }
            Err(why) => {
                tracing::error!(provider, why, "a connected account could not be stored");
                Finished::failed("The account could not be saved. Start again from your assistant.")
            }
        }
    }
}

/// What the callback shows, or where it sends the browser.
pub(crate) struct Finished {
    /// 200, 302, 400, 403 or 500.
    pub(crate) status: u16,
    /// The page's one sentence (plain text; the transport escapes it).
    pub(crate) message: String,
    /// Where to send the browser (with 302).
    pub(crate) redirect: Option<String>,
}

impl Finished {
    fn ok(provider: &str) -> Self {
        Finished {
            status: 200,
            redirect: None,
            message: format!("Your {provider} account is connected. You can close this page and go back to your assistant."),
        }
    }

    fn bad(message: &str) -> Self {
        Finished {
            status: 400,
            redirect: None,
            message: message.to_owned(),
        }
    }

    fn failed(message: &str) -> Self {
        Finished {
            status: 500,
            redirect: None,
            message: message.to_owned(),
        }
    }
}

impl Finished {
    fn redirect(url: String) -> Self {
        Finished {
            status: 302,
            message: "Redirecting.".into(),
            redirect: Some(url),
        }
    }
}

/// The PKCE challenge of `verifier` (S256).
fn challenge(verifier: &str) -> String {
    base64::Engine::encode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        Sha256::digest(verifier.as_bytes()),
    )
}

/// The subject of an ID token that came straight from `check`'s token endpoint: its
/// issuer, audience, expiry and nonce checked (OpenID Connect Core 3.1.3.7 lets TLS stand
/// for the signature check when the token comes over this server's own connection).
fn id_token_subject(
    id_token: Option<&str>,
    check: &UserCheck,
    nonce: &str,
) -> Result<String, String> {
    use serde_json::Value;
    let token = id_token.ok_or("no ID token was issued")?;
    let payload = token.split('.').nth(1).ok_or("the ID token is not a JWT")?;
    let bytes = base64::Engine::decode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        payload.trim_end_matches('='),
    )
    .map_err(|_| "the ID token's payload is not base64url")?;
    let claims: Value =
        serde_json::from_slice(&bytes).map_err(|_| "the ID token's payload is not JSON")?;
    let claim = |name: &str| claims.get(name).unwrap_or(&Value::Null);
    if claim("iss").as_str() != Some(check.issuer.as_str()) {
        return Err("the ID token names another issuer".into());
    }
    let client = check.auth.client_id();
    let for_this_client = match claim("aud") {
        Value::String(aud) => aud == client,
        Value::Array(auds) => auds.iter().any(|a| a.as_str() == Some(client)),
        _ => false,
    };
    if !for_this_client {
        return Err("the ID token is for another client".into());
    }
    if claim("exp")
        .as_u64()
        .is_none_or(|exp| exp.saturating_mul(1000) <= now_ms())
    {
        return Err("the ID token has expired".into());
    }
    if claim("nonce").as_str() != Some(nonce) {
        return Err("the ID token's nonce is not this sign-in's".into());
    }
    claim("sub")
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "the ID token names no subject".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::token_endpoint::ClientAuth;

    fn check() -> UserCheck {
        UserCheck::new(
            "https://id.example.com",
            "https://id.example.com/auth",
            "https://id.example.com/token",
            ClientAuth::secret_basic("mcp-login", "s"),
        )
    }

    fn token(claims: serde_json::Value) -> String {
        let encode = |bytes: &[u8]| {
            base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, bytes)
        };
        format!(
            "{}.{}.signature",
            encode(br#"{"alg":"RS256"}"#),
            encode(claims.to_string().as_bytes())
        )
    }

    #[test]
    fn an_id_token_names_its_subject_only_when_it_is_for_this_sign_in() {
        let exp = now_ms() / 1000 + 60;
        let good = serde_json::json!({"iss": "https://id.example.com", "aud": "mcp-login", "exp": exp, "nonce": "n1", "sub": "kate"});
        assert_eq!(
            id_token_subject(Some(&token(good.clone())), &check(), "n1").unwrap(),
            "kate"
        );
        let mut listed = good.clone();
        listed["aud"] = serde_json::json!(["other", "mcp-login"]);
        assert!(id_token_subject(Some(&token(listed)), &check(), "n1").is_ok());
        for (field, value, why) in [
            (
                "iss",
                serde_json::json!("https://evil.example.com"),
                "another issuer",
            ),
            ("aud", serde_json::json!("other"), "another client"),
            ("exp", serde_json::json!(1), "expired"),
            ("nonce", serde_json::json!("n2"), "nonce"),
        ] {
            let mut claims = good.clone();
            claims[field] = value;
            let error = id_token_subject(Some(&token(claims)), &check(), "n1").unwrap_err();
            assert!(error.contains(why), "{field}: {error}");
        }
        assert!(id_token_subject(None, &check(), "n1")
            .unwrap_err()
            .contains("no ID token"));
        assert!(id_token_subject(Some("garbage"), &check(), "n1").is_err());
    }
}
