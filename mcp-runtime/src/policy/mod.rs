//! Policies applied around handlers: authorization, cache hints, pagination, sealing.

pub mod auth;
pub mod cache;
pub mod paging;
pub mod seal;
