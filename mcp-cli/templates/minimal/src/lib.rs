//! {{name}}: an MCP server with one tool and one resource.
//!
//! `cargo run` serves it over stdio; `cargo run -- --http 127.0.0.1:8080` over Streamable
//! HTTP at `http://127.0.0.1:8080/mcp`.

use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::prelude::*;

/// Adds two integers.
#[tool(read_only, idempotent)]
pub async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// A note, by its number.
#[resource("notes://<id>", mime = "text/plain")]
pub async fn note(id: u32) -> Option<String> {
    (id == 1).then(|| "The first note of {{name}}.".to_owned())
}

/// The server, its tools and resources. With `API_KEY` set, every HTTP request must
/// carry it as a bearer token, and the server may listen on an address other than
/// loopback (a container's `0.0.0.0`); without it, only on loopback.
pub fn server() -> Result<Server, mcp_runtime::Error> {
    let server = Server::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    match std::env::var("API_KEY") {
        Ok(key) => {
            let keys = ApiKeys::new().key(&key, Principal::new("client"))?;
            Ok(server.verify_tokens(keys))
        }
        Err(_) => Ok(server),
    }
}
