#!/usr/bin/env bash
# Lists every public item of the published crates with its full signature (functions and
# methods, fields, variants, trait implementations, auto traits such as Send and Sync),
# from rustdoc's JSON output read by the `public-api` library (scripts/public-api, built
# into target/tools/bin/public-api-list): mcp-runtime with every feature,
# mcp-runtime-macros (its attribute macros) and mcp-openapi (the document mapping). Compares each listing with the one checked in
# beside the crate (tests/public-api.txt), so any change to the surface is a diff in
# review. (mcp-runtime's tests/public-surface.txt, checked by `cargo test`, adds
# the feature each path needs.)
#
# After an intended change: PUBLIC_API=overwrite scripts/public-api.sh, then review the
# diff. Needs target/tools/bin/public-api-list (scripts/test-all.sh installs it:
# cargo install --locked --path scripts/public-api --root target/tools
# --target-dir target/tools/build).
#
#   scripts/public-api.sh [json | compare]
# `json` only writes rustdoc's JSON, `compare` only reads it (the test command writes it
# while the tool is still being installed); with neither, both.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=target/tools/bin/public-api-list
phase=${1:-both}
case $phase in
  both | json | compare) ;;
  *)
    echo "usage: $0 [json | compare]" >&2
    exit 2
    ;;
esac
status=0
# rustdoc's JSON output is unstable: rustdoc-unstable lets the installed toolchain write it
# (the format the lister reads is that toolchain's). The crates with every feature, as
# the test command's `cargo doc` step documents them, so that its check of their
# dependencies serves here too.
if [ "$phase" != compare ]; then
  RUSTDOC="$(pwd)/scripts/lib/rustdoc-unstable" RUSTDOCFLAGS="--cfg docsrs -Z unstable-options --output-format json" \
    cargo doc --locked --quiet -p mcp-runtime -p mcp-runtime-macros -p mcp-openapi --all-features --no-deps
  if [ "$phase" = json ]; then exit 0; fi
fi
for crate in mcp-runtime:mcp-runtime mcp-runtime-macros:mcp-macros mcp-openapi:mcp-openapi; do
  name=${crate%%:*}
  list=${crate#*:}/tests/public-api.txt
  # Blanket implementations (`impl<T> From<T> for T` and the like) are left out: they
  # follow from the rest.
  "$tool" "target/doc/${name//-/_}.json" >"target/$name.api.txt"
  if [ "${PUBLIC_API:-}" = overwrite ]; then
    cp "target/$name.api.txt" "$list"
  elif ! diff -u "$list" "target/$name.api.txt"; then
    echo "the public API of $name differs from $list (above); if intended: PUBLIC_API=overwrite $0" >&2
    status=1
  fi
done
exit $status
