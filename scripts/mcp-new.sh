#!/usr/bin/env bash
# Generates a project with each template of `mcp new` (minimal, business-api, and openapi
# from the inventory example's document), then checks each as its own CI workflow does:
# rustfmt, clippy with warnings as errors, its tests; and serves the minimal one over
# stdio to `mcp call` and over HTTP to its own `--health` probe.
#
#   scripts/mcp-new.sh [MCP]
#   scripts/mcp-new.sh --browser CHROMIUM
#
# The business-api project's view in a browser: with --browser, nothing is made or built;
# the desk-business server an earlier run built is served over HTTP behind an API key, and
# tests/browser/new-project.mjs (`npm ci` in tests/browser first) shows its tickets view
# in headless Chromium through the test host, in both eras. A full run does the same at its
# end when MCP_NEW_CHROMIUM names a Chromium binary.
#
# The projects are made under target/mcp-new/projects (each a workspace of its own, as
# `mcp new` makes a crate inside another workspace's folder), depend on this checkout's
# mcp-runtime by path, take the repository's lock file (so they build the versions the
# workspace was tested with) and share one target directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/target/mcp-new
# The repository's target directory, with its build settings for dependencies (no debug
# information, no incremental files): the dependencies the projects share with the
# workspace, with the same features, are built once.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} CARGO_PROFILE_DEV_DEBUG=false CARGO_INCREMENTAL=0
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Serves BIN over HTTP on a free port, its log in LOG, until the script ends; waits until
# its own --health probe says it answers. Sets `server` (its pid) and `port`.
serve_until_healthy() {
  local bin=$1 log=$2
  port=$(free_port)
  RUST_LOG=info "$bin" --http "127.0.0.1:$port" 2>"$log" &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 100); do
    "$bin" --health "127.0.0.1:$port" 2>/dev/null && return 0
    sleep 0.1
  done
  "$bin" --health "127.0.0.1:$port" || { cat "$log" >&2; exit 1; }
}

# desk-business over HTTP with an API key (random, both scopes: API_KEY_WRITE, as its
# README says) on a free port; then its tickets view in the browser
# (tests/browser/new-project.mjs), the host calling list_tickets and "Load more" as the
# key's holder.
browser_check() {
  local chromium=$1 bin=$CARGO_TARGET_DIR/debug/desk-business key url era
  [ -x "$bin" ] || { echo "desk-business: no $bin (run scripts/mcp-new.sh first)" >&2; exit 1; }
  [ -d "$root/tests/browser/node_modules" ] || { echo "tests/browser: no node_modules (run npm ci there first)" >&2; exit 1; }
  mkdir -p "$work"
  key=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  API_KEY_WRITE=$key serve_until_healthy "$bin" "$work/desk-business.log"
  url=$(sed -n 's/.*serving MCP over Streamable HTTP at \(http:[^ ]*\).*/\1/p' "$work/desk-business.log" | head -n 1)
  [ -n "$url" ] || { echo "desk-business: did not say where it serves MCP" >&2; cat "$work/desk-business.log" >&2; exit 1; }
  for era in 2026-07-28 legacy; do
    node "$root/tests/browser/new-project.mjs" "$era" "$url" "$key" "$chromium"
  done
  kill "$server"
  wait "$server" 2>/dev/null || true
  echo "mcp new: the business-api project's tickets view shows its tickets and loads more through the host, in both eras"
}
if [ "${1:-}" = --browser ]; then
  [ -n "${2:-}" ] || { echo "usage: scripts/mcp-new.sh --browser CHROMIUM" >&2; exit 2; }
  browser_check "$2"
  exit 0
fi

mcp=$(realpath "${1:-$root/target/debug/mcp}")
rm -rf "$work/projects"
mkdir -p "$work/projects"
cd "$work/projects"
"$mcp" new desk-minimal
"$mcp" new desk-business --template business-api
"$mcp" new inventory-tools --template openapi "$root/examples/inventory-api/openapi.json"
for project in desk-minimal desk-business inventory-tools; do
  started=$SECONDS
  cp "$root/Cargo.lock" "$project/Cargo.lock"
  (
    cd "$project"
    grep -q '^\[workspace\]' Cargo.toml ||
      { echo "$project: made inside the repository's workspace, but has no [workspace] table of its own" >&2; exit 1; }
    for file in README.md Dockerfile .github/workflows/ci.yml; do
      [ -s "$file" ] || { echo "$project: no $file" >&2; exit 1; }
    done
    cargo fmt --check
    cargo clippy -q --all-targets -- -D warnings
    cargo test -q 2>&1 | grep -E '^test result' | grep -v ' 0 passed' || { echo "$project: no test ran" >&2; exit 1; }
  )
  echo "$project: fmt, clippy and tests passed in $((SECONDS - started)) s"
done
# The minimal server as a user first meets it: a call over stdio, and the container's
# health check against it over HTTP.
got=$("$mcp" call add '{"a": 2, "b": 3}' -- "$CARGO_TARGET_DIR/debug/desk-minimal")
[ "$got" = 5 ] || { echo "desk-minimal: mcp call add printed $got" >&2; exit 1; }
serve_until_healthy "$CARGO_TARGET_DIR/debug/desk-minimal" "$work/desk-minimal.log"
kill "$server"
wait "$server" 2>/dev/null || true
if "$CARGO_TARGET_DIR/debug/desk-minimal" --health "127.0.0.1:$port" 2>/dev/null; then
  echo "desk-minimal: --health said a stopped server is healthy" >&2
  exit 1
fi
echo "mcp new: every template builds, passes clippy and its tests; the minimal server answers mcp call and its health check"
if [ -n "${MCP_NEW_CHROMIUM:-}" ]; then
  browser_check "$MCP_NEW_CHROMIUM"
fi
