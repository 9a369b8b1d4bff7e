//! Every diagnostic of `#[tool]`, `#[resource]`, `#[prompt]` and `#[view]`, pinned as
//! `.stderr` beside its case (rustc 1.95). The declarations that must keep compiling
//! (`tests/pass`) are test targets of their own (Cargo.toml), so trybuild only checks.
//! Regenerate after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p mcp-macro-tests --test ui`.

/// The rustc flags trybuild 1.0.122 gives its project: first to check the dependencies,
/// then, with `--diagnostic-width=140` added, to check the cases. Flags that differ make
/// cargo check every dependency twice (about 100 CPU-seconds here); cargo takes
/// `CARGO_ENCODED_RUSTFLAGS` before trybuild's `--config`, so both runs get these.
const TRYBUILD_RUSTFLAGS: &[&str] = &[
    "--cfg",
    "trybuild",
    "--verbose",
    "-A",
    "dead_code",
    "--diagnostic-width=140",
];

#[test]
fn diagnostics() {
    // Flags of the caller's own (coverage, say) are left as they are.
    if std::env::var_os("CARGO_ENCODED_RUSTFLAGS").is_none() {
        // The only test of this binary: no other thread reads the environment.
        std::env::set_var("CARGO_ENCODED_RUSTFLAGS", TRYBUILD_RUSTFLAGS.join("\x1f"));
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
