#!/usr/bin/env bash
# The servers `mcp openapi` generates, called by a client we did not write while a server
# we did not write validates every request: for each document listed, Prism (a validating
# mock) serves it, and `tests/openapi/prism.py` (the official Python SDK) calls every tool
# of the generated server with arguments made from the tool's input schema. Fails on a
# request Prism refuses (422), a credential not sent, or a result its output schema does
# not describe. The inventory example's committed server is called the same way.
#
#   scripts/openapi-prism.sh LIST CORPUS_DIR OUT_DIR PYTHON
#
# Needs `npm ci` in tests/openapi, target/debug/mcp and target/debug/inventory-mcp built,
# and PYTHON with the SDK and jsonschema (tests/clients/py's venv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=$1
corpus=$(cd "$2" && pwd)
out=$3
python=$4
prism=$root/tests/openapi/node_modules/.bin/prism
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# Generated and checked as the corpus step does, then built.
"$root/scripts/openapi-corpus.sh" "$list" "$corpus" "$out" >/dev/null
out=$(cd "$out" && pwd)
(cd "$out" && CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} cargo build -q --workspace)
bins=${CARGO_TARGET_DIR:-$root/target}/debug

port=4310
# Serve DOC with Prism on the next port; the port is in $port.
serve() {
  port=$((port + 1))
  "$prism" mock --errors -p "$port" "$1" >"$out/prism-$port.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "Prism did not start for $1:" >&2
  cat "$out/prism-$port.log" >&2
  exit 1
}

# Every scope a document's security schemes name, for the stdio caller (MCP_SCOPES).
scopes() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
found = set()
for scheme in (d.get("components", {}).get("securitySchemes") or {}).values():
    for flow in (scheme.get("flows") or {}).values():
        found.update((flow.get("scopes") or {}).keys())
print(" ".join(sorted(found)))' "$1"
}

failed=0
total=0
run() {
  local label=$1 doc=$2 binary=$3 prefix=$4
  serve "$doc"
  # The base URL, and a credential for every scheme (whatever its kind, every variable
  # `Api::from_env` reads is set).
  local env=("${prefix}_BASE_URL=http://127.0.0.1:$port" "MCP_PRINCIPAL=prism" "MCP_SCOPES=$(scopes "$doc")")
  local vars
  vars=$(grep -rho "\"${prefix}_[A-Z0-9_]*\"" "$5" | tr -d '"' | sort -u)
  for var in $vars; do
    case $var in *_BASE_URL) ;; *) env+=("$var=test-credential") ;; esac
  done
  if ! env "${env[@]}" "$python" "$root/tests/openapi/prism.py" "$label" "$binary" | tee "$out/$label.result"; then
    failed=1
  fi
  total=$((total + $(grep -o 'called [0-9]*' "$out/$label.result" | awk '{print $2}')))
}

while read -r doc _; do
  [ -z "$doc" ] && continue
  case $doc in \#*) continue ;; esac
  name=$(echo "$doc" | sed 's/\.json$//; s/[^A-Za-z0-9]/-/g' | tr 'A-Z' 'a-z')
  prefix=$(echo "$name" | tr 'a-z-' 'A-Z_')
  run "$name" "$corpus/$doc" "$bins/$name" "$prefix" "$out/crates/$name/src/api/mod.rs"
done <"$list"
run inventory "$root/examples/inventory-api/openapi.json" "$bins/inventory-mcp" INVENTORY_MCP \
  "$root/examples/inventory-mcp/src/api/mod.rs"

echo "$total tools called"
[ "$total" -ge 50 ] || { echo "only $total tools called; the check asks for at least 50" >&2; exit 1; }
[ "$failed" -eq 0 ] || { echo "a request was refused, a credential missing or a result undescribed (above)" >&2; exit 1; }
