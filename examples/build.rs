//! With the `link-order` feature, links `bench-server` for a small resident footprint:
//! its functions in the order of `bench-server.order` (those that run at start and per
//! call, together at the front of the code), and relative relocations packed (`DT_RELR`),
//! so start-up writes a few KiB of relocation data instead of about 400 KiB.
//! `scripts/link-order.sh` writes the order file; the book's "Performance" chapter has the
//! figures. Both are linker options of LLD (Rust's default linker on x86-64 Linux) and
//! mold; packed relocations need glibc 2.36 or newer at run time.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=bench-server.order");
    if std::env::var_os("CARGO_FEATURE_LINK_ORDER").is_none() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    for arg in [
        format!("-Wl,--symbol-ordering-file={dir}/bench-server.order"),
        // A name the file lists but this build lacks (another toolchain, a renamed
        // function) only loses its place; it is not worth a warning per name.
        "-Wl,--no-warn-symbol-ordering".to_owned(),
        "-Wl,-z,pack-relative-relocs".to_owned(),
    ] {
        println!("cargo::rustc-link-arg-bin=bench-server={arg}");
    }
}
