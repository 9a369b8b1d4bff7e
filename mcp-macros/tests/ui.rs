//! Every diagnostic of `#[tool]`, `#[resource]` and `#[prompt]`, pinned as `.stderr` beside its case (rustc 1.95),
//! and the declarations that must keep compiling (`tests/pass`).
//! Regenerate after a deliberate change with `TRYBUILD=overwrite cargo test -p mcp-runtime-macros --test ui`.

#[test]
fn diagnostics() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
    t.pass("tests/pass/*.rs");
}
