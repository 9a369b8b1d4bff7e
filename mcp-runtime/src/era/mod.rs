//! Era adapters: between wire messages and the core's `Call`/`Reply`.
//!
//! `modern` serves the stateless 2026-07-28 revision: every request carries its version and
//! client capabilities in `_meta`, results carry `resultType`, cache hints and `serverInfo`.

pub mod modern;
