#!/usr/bin/env bash
# Packages mcp-runtime-macros, mcp-runtime and mcp-openapi (the document mapping behind
# the runtime's `openapi` feature) as `cargo publish` would upload them, then
# builds a server against the two tarballs alone (not the workspace's folders) and calls
# it: a file left out of a package, a path dependency, or code reading outside its crate
# fails here. The server is the example of mcp-runtime's README (its page on crates.io),
# taken from the packaged README, with the dependencies that README tells users to add;
# it turns on every feature of mcp-runtime so that every module of the tarball compiles,
# and it is built with the toolchain `rust-version` names (rustup installs it when
# missing), so the declared minimum is one the tests build with. Where rustup cannot
# fetch it, the machine's own toolchain builds it and a warning says the minimum went
# unchecked. On Linux with glibc it is linked as the book's deployment build links a
# server, the C library statically, and must then need no shared library.
#
# Usage: scripts/packaged-server.sh MCP_CLI_BINARY      package, build, call
#        scripts/packaged-server.sh build               package and build only
#        scripts/packaged-server.sh call MCP_CLI_BINARY call the server built before
# (The test command builds while other steps run, and calls once the workspace's `mcp`
# exists.)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$root/target/packaged
version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"])')

# It serves: a call over stdio with the mcp command-line client.
call() {
  local got
  got=$("$1" call add '{"a": 2, "b": 3}' -- "$work/packaged-server")
  if [ "$got" != 5 ]; then
    echo "the packaged server answered add(2, 3) with: $got" >&2
    exit 1
  fi
  echo "packaged mcp-runtime-macros, mcp-runtime and mcp-openapi $version: a server built from the tarballs with Rust $(cat "$work/toolchain")$(cat "$work/linked") answers"
}
case ${1:?usage: $0 MCP_CLI_BINARY | build | call MCP_CLI_BINARY} in
  call)
    call "${2:?usage: $0 call MCP_CLI_BINARY}"
    exit
    ;;
  build) mcp="" ;;
  *) mcp=$1 ;;
esac
msrv=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["rust-version"])')

# The tarballs, with the workspace's lock file (`--locked`: packaging never updates it), of
# the files as they are (`--allow-dirty`: a change is checked before it is committed).
# Not verified here: the build below is the stricter check (every feature, the oldest
# supported toolchain), and neither crate has a build script that could write into its
# sources, the one thing the verification adds. Packaged in a target directory of its
# own, so that this can run while other cargo commands hold the workspace's.
rm -rf "$work/crates" "$work/server" "$work/package"
mkdir -p "$work/crates" "$work/server/src"
cargo package --locked --no-verify --allow-dirty -p mcp-runtime-macros -p mcp-runtime -p mcp-openapi --target-dir "$work/package"
for crate in mcp-runtime-macros mcp-runtime mcp-openapi; do
  tar -xzf "$work/package/package/$crate-$version.crate" -C "$work/crates"
done
runtime=$work/crates/mcp-runtime-$version

# The runtime pins its macros to exactly its own version: the generated code calls
# `mcp_runtime::__private`, which is outside the semver promise.
python3 - "$runtime/Cargo.toml" "$version" <<'EOF'
import sys, tomllib
manifest = tomllib.load(open(sys.argv[1], "rb"))
got = manifest["dependencies"]["mcp-runtime-macros"]["version"]
if got != "=" + sys.argv[2]:
    sys.exit(f"packaged mcp-runtime requires mcp-runtime-macros {got!r}, not '={sys.argv[2]}'")
EOF

# The README's first Rust block is the server.
python3 - "$runtime/README.md" >"$work/server/src/main.rs" <<'EOF'
import re, sys
blocks = re.findall(r"^```rust[^\n]*\n(.*?)^```", open(sys.argv[1]).read(), re.S | re.M)
if not blocks:
    sys.exit(f"{sys.argv[1]}: no Rust example")
print(blocks[0], end="")
EOF

features=$(python3 -c 'import sys, tomllib, json; print(json.dumps(sorted(tomllib.load(open(sys.argv[1], "rb"))["features"])))' "$runtime/Cargo.toml")
cat >"$work/server/Cargo.toml" <<EOF
[package]
name = "packaged-server"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
mcp-runtime = { version = "=$version", features = $features }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

# The crates from their tarballs; nothing of the workspace is reachable from here.
[patch.crates-io]
mcp-runtime = { path = "../crates/mcp-runtime-$version" }
mcp-runtime-macros = { path = "../crates/mcp-runtime-macros-$version" }
mcp-openapi = { path = "../crates/mcp-openapi-$version" }

[profile.dev]
debug = false

[workspace]
EOF
# The workspace's lock file as the starting point, so that the server builds the versions
# of every dependency the workspace tests ran with (cargo drops the entries it does not
# need; the check below shows no version moved). A user's project resolves its own.
cp Cargo.lock "$work/server/Cargo.lock"

# A machine that cannot fetch toolchains (rustup reaches no server) builds with its own
# and says so loudly: the package is still checked, the minimum is not.
toolchain=$msrv
plus=("+$msrv")
if ! rustup run "$msrv" rustc --version >/dev/null 2>&1 &&
  ! rustup toolchain install "$msrv" --profile minimal; then
  toolchain=$(rustc --version | awk '{print $2}')
  plus=()
  echo "WARNING: Rust $msrv (rust-version) could not be installed here; the packaged server is built with $toolchain, so the minimum is NOT verified on this run" >&2
fi
# On Linux with glibc, linked as the book's deployment build links a server ("Running in
# production"): the C library into the binary (`crt-static`), with `--target` so that the
# flag does not reach the procedural macros. The binary must then need no shared library.
host=$(rustc -vV | sed -n 's/^host: //p')
if [[ $host == *-linux-gnu ]]; then
  RUSTFLAGS="-C target-feature=+crt-static" cargo "${plus[@]}" build --manifest-path "$work/server/Cargo.toml" --target-dir "$work/target" --target "$host"
  cp "$work/target/$host/debug/packaged-server" "$work/packaged-server"
  python3 - "$work/packaged-server" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
for i in range(phnum):
    kind, _, offset, _, _, size, _, _ = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
    if kind == 3:  # PT_INTERP: the dynamic loader
        sys.exit(f"{sys.argv[1]}: linked with crt-static, yet it asks for a dynamic loader")
    if kind == 2:  # PT_DYNAMIC: no DT_NEEDED entry (a shared library) may remain
        for at in range(offset, offset + size, 16):
            tag, _ = struct.unpack_from("<qQ", data, at)
            if tag == 1:
                sys.exit(f"{sys.argv[1]}: linked with crt-static, yet it needs a shared library")
EOF
  echo ", glibc linked statically," >"$work/linked"
else
  cargo "${plus[@]}" build --manifest-path "$work/server/Cargo.toml" --target-dir "$work/target"
  cp "$work/target/debug/packaged-server" "$work/packaged-server"
  echo "" >"$work/linked"
fi

python3 - Cargo.lock "$work/server/Cargo.lock" <<'EOF'
import sys, tomllib
def versions(path):
    return {(p["name"], p["version"]) for p in tomllib.load(open(path, "rb"))["package"]}
moved = versions(sys.argv[2]) - versions(sys.argv[1]) - {("packaged-server", "0.0.0")}
if moved:
    sys.exit(f"the packaged server resolved versions the workspace does not use: {sorted(moved)}")
EOF

echo "$toolchain" >"$work/toolchain"
if [ -n "$mcp" ]; then call "$mcp"; fi
