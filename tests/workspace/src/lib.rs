//! Fixture tools, resources and prompts for the workspace tests, and the server that
//! serves them.

use mcp_runtime::prelude::*;

// The repository README's example is compiled with this crate's doc tests, so it cannot
// drift from the API (the crate README's, by mcp-runtime's).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExample;

/// Tools used by the transcripts and behaviour tests.
pub mod large;

/// Tools whose input and output schemas the Tools chapter explains.
pub mod schemas;

/// A resource that tries to take the server's own scheme: refused at start.
pub mod artifact_clash {
    use mcp_runtime::prelude::*;

    /// Not allowed.
    #[resource("artifact://<id>")]
    async fn fake(id: String) -> String {
        id
    }
}

pub mod fixtures;

/// Resources and prompts used by the transcripts and behaviour tests: a small library.
pub mod library;

/// Two templates that can match the same URI (`shop://items/new`): refused at start.
pub mod overlapping {
    use super::*;

    /// An item by id.
    #[resource("shop://items/<id>")]
    pub async fn item(id: String) -> String {
        id
    }

    /// Anything under shop://.
    #[resource("shop://<section>/new")]
    pub async fn newest(section: String) -> String {
        section
    }
}

/// Handlers that ask the client for input, report progress, log, wait for cancellation,
/// and change the catalog while the server runs.
pub mod interactive;

/// A secured service: scoped tools, resources and prompts over per-tenant data, with a
/// tenant check on concrete resource URIs.
pub mod secured;

/// Long-running tools (the Tasks extension).
pub mod long;

/// A catalog shaped per caller: versions, tags, visibility and search.
pub mod catalogs;

/// Versions of one name that cannot be served together: refused at start.
pub mod version_clash {
    use mcp_runtime::prelude::*;

    /// Version 2.
    #[tool(name = "quote", version = "2")]
    pub async fn quote_two() -> &'static str {
        "2"
    }

    /// Version 2.0: the same version, once numbers are compared.
    #[tool(name = "quote", version = "2.0")]
    pub async fn quote_two_again() -> &'static str {
        "2.0"
    }

    /// No version, beside versioned definitions of its name.
    #[tool(name = "quote")]
    pub async fn quote_plain() -> &'static str {
        "plain"
    }
}

/// Tools whose arguments gateways see in `Mcp-Param-*` headers, declared with
/// `#[header("..")]` and, in an `Args` struct, with schemars' `extend`.
pub mod gateway;

/// A type for tests whose JSON Schema is written by hand, as given, and which takes any
/// JSON as its value: for schemas no derive would write (another dialect, a typo, an
/// annotation in the wrong place).
#[macro_export]
macro_rules! schema_type {
    ($name:ident, $schema:tt) => {
        struct $name;

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!($schema)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                ::serde::de::IgnoredAny::deserialize(d).map(|_| $name)
            }
        }
    };
}

/// The gateway fixtures alone, counting calls in `ledger`.
pub fn gateway_server(ledger: std::sync::Arc<gateway::Ledger>) -> Server {
    Server::new("gateway", "1.0.0")
        .only_module(module_path!().to_owned() + "::gateway")
        .state(ledger)
}

/// The interactive fixtures alone; `wait_for_cancel` reports to `probe`.
pub fn interactive_server(probe: std::sync::Arc<interactive::Probe>) -> Server {
    Server::new("interactive", "1.0.0")
        .only_module(module_path!().to_owned() + "::interactive")
        .state(probe)
}

/// A server with exactly the fixture tools, resources and prompts.
pub fn server() -> Server {
    Server::new("fixtures", "1.0.0")
        .only_module(module_path!().to_owned() + "::fixtures")
        .only_module(module_path!().to_owned() + "::library")
        .state(library::Notes {
            items: vec!["loved it", "too long"],
        })
}

/// Tools with side effects that must happen once: single-use confirmations, idempotency
/// keys, typed business errors. Every payment is counted (and, with a journal file,
/// written down, so a test sees the payments of a process it killed).
pub mod side_effects;
