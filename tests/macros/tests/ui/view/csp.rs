use mcp_runtime::prelude::*;

/// An unknown CSP key, with a hint.
#[view("ui://a", csp(conect("https://api.example.com")))]
fn misspelled() -> &'static str {
    ""
}

/// An unknown CSP key without a near one.
#[view("ui://b", csp(script("https://cdn.example.com")))]
fn unknown() -> &'static str {
    ""
}

/// Origins that are not origins: no scheme, a path, a scheme CSP sources here do not take.
#[view(
    "ui://c",
    csp(
        connect("api.example.com"),
        resource("https://cdn.example.com/lib.js"),
        frame("ftp://files.example.com"),
        base_uri("https://exa mple.com")
    )
)]
fn malformed() -> &'static str {
    ""
}

/// A key given twice, and one without origins.
#[view("ui://d", csp(connect("https://a.example.com"), connect("https://b.example.com"), frame))]
fn twice() -> &'static str {
    ""
}

/// `csp` lists keys.
#[view("ui://e", csp = "connect-src https://api.example.com")]
fn raw() -> &'static str {
    ""
}

/// A tool naming a view whose options have errors: those errors are reported at the
/// options only, not a second time here as "no `#[view]` declares the URI".
#[tool(ui = "ui://c")]
async fn shows_malformed() -> &'static str {
    "ok"
}

fn main() {}
