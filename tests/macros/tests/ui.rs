//! Every diagnostic of `#[tool]`, `#[resource]`, `#[prompt]` and `#[view]`, pinned as
//! `.stderr` beside its case (rustc 1.95). The declarations that must keep compiling
//! (`tests/pass`) are test targets of their own (Cargo.toml), so trybuild only checks.
//! Regenerate after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p mcp-macro-tests --test ui`.

#[test]
fn diagnostics() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
