//! The routes of a connected account's sign-in: where the provider sends the browser back
//! (`/oauth/callback`), and, when the browser's user is checked first, where a sign-in
//! link leads (`/oauth/connect`) and where this server's own authorization server sends
//! the browser back (`/oauth/verified`). The vault decides; this answers with a redirect or
//! a page that says how it went, in plain words, with nothing a peer sent echoed as markup.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::Shared;
use crate::core::downstream::accounts::{Finished, Vault};
use crate::core::downstream::Downstreams;

/// The most of a query string read.
const MAX_QUERY: usize = 16 * 1024;

/// `GET /oauth/callback?code=..&state=..` (or `?error=..&state=..`): the provider's
/// answer.
pub(super) async fn callback(State(shared): State<Shared>, request: Request) -> Response {
    match vault_and_params(&shared, &request) {
        Ok((vault, params)) => answer(vault.complete(&params).await),
        Err((status, message)) => page(status, message),
    }
}

/// `GET /oauth/connect?state=..`: a sign-in link, when the browser's user is checked
/// first.
pub(super) async fn connect(State(shared): State<Shared>, request: Request) -> Response {
    match vault_and_params(&shared, &request) {
        Ok((vault, params)) => answer(vault.connect(&params)),
        Err((status, message)) => page(status, message),
    }
}

/// `GET /oauth/verified?code=..&state=..`: who signed in, from this server's own
/// authorization server.
pub(super) async fn verified(State(shared): State<Shared>, request: Request) -> Response {
    match vault_and_params(&shared, &request) {
        Ok((vault, params)) => answer(vault.verified(&params).await),
        Err((status, message)) => page(status, message),
    }
}

/// A query string's parameters.
type Query = BTreeMap<String, String>;

/// The server's vault and the request's query, or what the page refusing it says.
fn vault_and_params(
    shared: &Shared,
    request: &Request,
) -> Result<(Arc<Vault>, Query), (StatusCode, &'static str)> {
    let Some(vault) = shared
        .core
        .states
        .get::<Downstreams>()
        .and_then(|d| d.accounts.clone())
    else {
        return Err((StatusCode::NOT_FOUND, "Not found."));
    };
    let query = request.uri().query().unwrap_or("");
    if query.len() > MAX_QUERY {
        return Err((
            StatusCode::BAD_REQUEST,
            "This link is too long to be a sign-in's.",
        ));
    }
    let params = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    Ok((vault, params))
}

/// What the vault decided, as a page or a redirect.
fn answer(finished: Finished) -> Response {
    if let Some(location) = &finished.redirect {
        let mut response = page(StatusCode::FOUND, &finished.message);
        if let Ok(value) = HeaderValue::from_str(location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
        return response;
    }
    let status = StatusCode::from_u16(finished.status).unwrap_or(StatusCode::BAD_REQUEST);
    page(status, &finished.message)
}

/// A page with one sentence, escaped, that no other page may frame and no cache keeps
/// (its URL held a one-time code).
fn page(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Account connection</title></head>\n<body><p id=\"outcome\">{}</p></body></html>\n",
        escape(message)
    );
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn pages_escape_what_they_say() {
        assert_eq!(
            super::escape("<script>alert('x')</script> & \"y\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;"
        );
    }
}
