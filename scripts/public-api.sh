#!/usr/bin/env bash
# Lists every public item of the published crates with its full signature (functions and
# methods, fields, variants, trait implementations, auto traits such as Send and Sync),
# from rustdoc's JSON output read by cargo-public-api: mcp-runtime with every feature,
# and mcp-runtime-macros (its attribute macros). Compares each listing with the one
# checked in beside the crate (tests/public-api.txt), so any change to the surface is a
# diff in review. (mcp-runtime's tests/public-surface.txt, checked by `cargo test`, adds
# the feature each path needs.)
#
# After an intended change: PUBLIC_API=overwrite scripts/public-api.sh, then review the
# diff. Needs target/tools/bin/cargo-public-api (scripts/test-all.sh installs it).
#
#   scripts/public-api.sh [json | compare]
# `json` only writes rustdoc's JSON, `compare` only reads it (the test command writes it
# while the tool is still being installed); with neither, both.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=target/tools/bin/cargo-public-api
phase=${1:-both}
case $phase in
  both | json | compare) ;;
  *)
    echo "usage: $0 [json | compare]" >&2
    exit 2
    ;;
esac
status=0
for crate in mcp-runtime:mcp-runtime mcp-runtime-macros:mcp-macros; do
  name=${crate%%:*}
  list=${crate#*:}/tests/public-api.txt
  # rustdoc's JSON output is unstable: RUSTC_BOOTSTRAP lets the installed toolchain write
  # it (the format cargo-public-api reads is that toolchain's), in the target directory
  # of the docs.rs-style build, whose dependency build it shares.
  if [ "$phase" != compare ]; then
    RUSTC_BOOTSTRAP=1 cargo rustdoc --locked --quiet -p "$name" --lib --all-features --target-dir target/docsrs \
      -- -Z unstable-options --output-format json
  fi
  if [ "$phase" = json ]; then continue; fi
  # Blanket implementations (`impl<T> From<T> for T` and the like) follow from the rest.
  "$tool" --rustdoc-json "target/docsrs/doc/${name//-/_}.json" --omit blanket-impls >"target/docsrs/$name.api.txt"
  if [ "${PUBLIC_API:-}" = overwrite ]; then
    cp "target/docsrs/$name.api.txt" "$list"
  elif ! diff -u "$list" "target/docsrs/$name.api.txt"; then
    echo "the public API of $name differs from $list (above); if intended: PUBLIC_API=overwrite $0" >&2
    status=1
  fi
done
exit $status
