#!/usr/bin/env bash
# The tool contract, checked in CI: the catalog a server offers now against the one kept in
# the repository. A change that breaks callers fails the build (`mcp catalog diff` exits 1
# and lists it); any other change fails too, until the new snapshot is committed with it.
# The test command runs this on the inventory example.
#
#   catalog.sh KEPT -- SERVER COMMAND...     (MCP names the `mcp` program; default: mcp)
set -euo pipefail
kept=$1
shift
if [ "${1:-}" = "--" ]; then shift; fi
mcp=${MCP:-mcp}
now=$(mktemp)
trap 'rm -f "$now"' EXIT
# ANCHOR: check
"$mcp" catalog --out "$now" -- "$@"  # what the server offers now
"$mcp" catalog diff "$kept" "$now"   # what changed, and whether it breaks callers
diff -u "$kept" "$now"               # a change is committed with its snapshot
# ANCHOR_END: check
