//! Transports: bytes and framing only. Each hands JSON-RPC messages to the era adapter and
//! writes back what it answers.

pub mod http;
pub(crate) mod in_flight;
pub mod stdio;
