//! Test support (feature `testing`): everything a test of your server needs, in process.
//!
//! - [`TestClient`] calls a built server as a 2026-07-28 client, or (feature `legacy`) as
//!   a handshake-era one, with the same methods; given [`Answers`] (or `on_elicit`,
//!   `on_sample` and `on_roots` handlers), it answers the server's questions as a host
//!   would. The same `Answers` work with [`HttpTestClient`] and with the network
//!   `client::Client`: one model of answering, shared from `protocol` (the test kit and
//!   the client may not depend on each other).
//! - [`HttpTestClient`] sends real Streamable HTTP requests, headers included, to a
//!   router (yours, or [`App::router`](crate::App::router)) without a socket.
//! - [`Transcript`] replays a recorded exchange over both transports.
//! - With the `oauth` feature, [`TestIssuer`] mints access tokens for tests of secured
//!   servers.
//! - [`assert_catalog`] pins what a server offers in a file, as `mcp catalog` writes it.
//! - [`check_store`] checks a [`Store`](crate::store::Store) of your own against the
//!   contract the server relies on.
//!
//! ```no_run
//! # async fn demo(app: mcp_runtime::App) {
//! use mcp_runtime::testing::TestClient;
//! let client = TestClient::new(app);
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await;
//! assert_eq!(result["structuredContent"], 5);
//! # }
//! ```

use serde_json::{json, Value};

use crate::protocol::answers::Bounds;
use crate::protocol::{exchange, meta, version};

mod catalog;
mod client;
mod http;
#[cfg(feature = "oauth")]
mod issuer;
#[cfg(feature = "legacy")]
mod legacy;
mod store;
mod transcript;

/// The notification stream [`TestClient::listen`] opens.
pub use crate::core::Subscription;
pub use crate::protocol::answers::Answers;
pub use catalog::{assert_catalog, CATALOG_ENV};
pub use client::TestClient;
pub use http::{http_request, http_request_for, HttpResponse, HttpTestClient};
#[cfg(feature = "oauth")]
pub use issuer::{TestIssuer, TokenBuilder};
pub use store::check_store;
pub use transcript::{Step, Transcript};

/// The `_meta` a modern client sends when it declares no optional capability.
pub fn default_meta() -> Value {
    exchange::modern_meta(
        version::MODERN,
        json!({}),
        json!({"name": "mcp-runtime-test-client", "version": "0"}),
    )
}
/// How far a test client answers one request: a client without answers answers no round,
/// handing every `input_required` result back as it is (for tests of the rounds
/// themselves); one with answers answers up to 32 rounds, so a server that keeps asking
/// cannot hold a test forever, and any number of questions in each.
fn bounds(answers: &Answers) -> Bounds {
    Bounds {
        rounds: if answers.is_empty() { 0 } else { 32 },
        questions: usize::MAX,
    }
}

/// `params` (an object) with a 2026-07-28 client's `_meta` fields added where the caller
/// put none (say, next to its own `progressToken`): the caller's win.
fn with_meta(params: Value, capabilities: impl FnOnce() -> Value) -> Value {
    let mut defaults = default_meta();
    if let Some(declared) = defaults.get_mut(meta::CLIENT_CAPABILITIES) {
        *declared = capabilities();
    }
    exchange::with_meta(params, defaults)
}

/// Whether `actual` matches the pattern `expect` (`"<any>"` matches anything).
pub fn matches(expect: &Value, actual: &Value) -> bool {
    match (expect, actual) {
        (Value::String(s), _) if s == "<any>" => true,
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len()
                && e.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av)))
        }
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| matches(x, y))
        }
        (Value::Number(e), Value::Number(a)) => e.as_f64() == a.as_f64(),
        _ => expect == actual,
    }
}
