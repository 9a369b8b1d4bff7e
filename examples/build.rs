//! Links the example servers with their relative relocations packed (`DT_RELR`,
//! `-z pack-relative-relocs`): a position-independent executable lists every pointer in
//! its read-only data for the loader to adjust at start, about 400 KiB for `bench-server`
//! read in full at each start and kept resident; packed, the list takes a few KiB. It is
//! one line any server's `build.rs` can carry (see the book's "Performance" chapter, with
//! the figures). It needs LLD (Rust's default linker on x86-64 Linux), mold or GNU ld 2.38
//! or newer, and glibc 2.36 or newer where the binary runs.
//!
//! With the `link-order` feature, `bench-server` is also linked with its functions in the
//! order of `bench-server.order` (those that run at start and per call, together at the
//! front of the code), which `scripts/link-order.sh` writes. LLD and mold only.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=bench-server.order");
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if std::env::var_os("CARGO_FEATURE_LINK_ORDER").is_none() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    for arg in [
        format!("-Wl,--symbol-ordering-file={dir}/bench-server.order"),
        // A name the file lists but this build lacks (another toolchain, a renamed
        // function) only loses its place; it is not worth a warning per name.
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ] {
        println!("cargo::rustc-link-arg-bin=bench-server={arg}");
    }
}
