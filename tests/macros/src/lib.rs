//! Tests of `#[tool]`, `#[resource]`, `#[prompt]` and `#[view]` from a crate that uses
//! them as a user's does: `tests/pass` must compile, and `tests/ui` pins each diagnostic.
//! The library itself is empty; a package needs one target besides its tests.
