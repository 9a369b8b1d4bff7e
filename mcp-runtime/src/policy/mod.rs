//! Policies applied around handlers: who calls (principal, token verification, API
//! keys), what they may do (authorization, scopes), how much (limits, rate), and the
//! sealing and paging of results.

pub mod api_keys;
pub mod auth;
#[cfg(feature = "oauth")]
pub(crate) mod exchange;
pub(crate) mod host;
#[cfg(feature = "oauth")]
pub mod jwt;
pub mod limits;
pub mod oauth;
pub mod paging;
pub mod principal;
pub mod seal;
#[cfg(feature = "oauth")]
pub(crate) mod token_endpoint;
