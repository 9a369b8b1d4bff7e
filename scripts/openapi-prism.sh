#!/usr/bin/env bash
# The servers `mcp openapi` generates, called by a client we did not write while a server
# we did not write validates every request. For each document listed (and the inventory
# example's), Prism (a validating mock, `--errors`) serves the document and
# `tests/openapi/prism.py` calls every tool of the server through the official Python SDK
# with arguments made from the tool's input schema, then reads Prism's log to see what
# each call sent. Fails on a request Prism finds invalid (a 422, usually), a credential not
# sent (401/403), a result its output schema does not describe, an answer the server could
# not read, or when the calls together cover too little (see prism.py's summary).
#
#   scripts/openapi-prism.sh [--server TEMPLATE] [--modes MODES] LIST CORPUS_DIR OUT_DIR PYTHON
#
# LIST and CORPUS_DIR are as for openapi-corpus.sh (the crates are generated and checked
# by it, into OUT_DIR, then built). PYTHON has the SDK and jsonschema (tests/clients/py's
# venv). MODES is any of `static` (Prism answers with the document's examples) and
# `dynamic` (answers made from the response schemas, seeded so every run is the same);
# both by default. TEMPLATE is the server's stdio command, split on spaces after these are
# replaced: {bin} the generated server's binary, {doc} the document, {name} the crate's
# name, {url} Prism's base URL, {prefix} the generated crate's environment prefix in
# lower case with hyphens (`lyft-com` for LYFT_COM_*: the name under which the `gateway`
# example reads the same variables). By default `{bin} --stdio`. The server's environment has
# `{PREFIX}_BASE_URL` set to Prism, a dummy credential in every `{PREFIX}_*` variable the
# generated `Api::from_env` reads, and MCP_SCOPES granting every OAuth scope the document
# names. Needs `npm ci` in tests/openapi.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
template='{bin} --stdio'
modes='static dynamic'
while [ $# -gt 0 ]; do
  case $1 in
    --server) template=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "openapi-prism.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 4 ]; then
  echo "usage: scripts/openapi-prism.sh [--server TEMPLATE] [--modes MODES] LIST CORPUS_DIR OUT_DIR PYTHON" >&2
  exit 2
fi
list=$1
corpus=$(cd "$2" && pwd)
out=$3
python=$4
prism=$root/tests/openapi/node_modules/.bin/prism
[ -x "$prism" ] || { echo "Prism is not installed: run 'npm ci' in tests/openapi" >&2; exit 1; }
"$python" -c 'import mcp, jsonschema' 2>/dev/null ||
  { echo "$python lacks the MCP SDK or jsonschema (tests/clients/py/requirements.lock.txt)" >&2; exit 1; }
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
bins=$CARGO_TARGET_DIR/debug

prism_pid=
stop_prism() {
  if [ -n "$prism_pid" ]; then
    kill "$prism_pid" 2>/dev/null || true
    wait "$prism_pid" 2>/dev/null || true
    prism_pid=
  fi
}
trap stop_prism EXIT
trap 'stop_prism; exit 130' INT TERM

# The generator and the inventory example's server, then the crates of the documents
# (generated and checked as the corpus step does), built.
(cd "$root" && cargo build -q -p mcp-cli -p inventory-mcp)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ! "$root/scripts/openapi-corpus.sh" "$list" "$corpus" "$out" >"$out/corpus.txt" 2>&1; then
  echo "generating or checking the crates failed:" >&2
  cat "$out/corpus.txt" >&2
  exit 1
fi
(cd "$out" && cargo build -q --workspace)
rm -rf "$out/results"
mkdir -p "$out/results"

# A port nothing listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Serve DOC with Prism (MODE static or dynamic) on a free port, logging to LOG; its base
# URL is in $url once it answers. Bounded: 60 s.
serve() {
  local doc=$1 mode=$2 log=$3 port
  port=$(free_port)
  local flags=(mock --errors -v debug -p "$port")
  [ "$mode" = dynamic ] && flags+=(-d --seed 1)
  "$prism" "${flags[@]}" "$doc" >"$log" 2>&1 &
  prism_pid=$!
  for _ in $(seq 1 120); do
    if ! kill -0 "$prism_pid" 2>/dev/null; then
      echo "Prism stopped while starting on $doc:" >&2
      tail -20 "$log" >&2
      prism_pid=
      return 1
    fi
    if grep -q "Prism is listening" "$log" && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      url=http://127.0.0.1:$port
      return 0
    fi
    sleep 0.5
  done
  echo "Prism did not start in 60 s on $doc:" >&2
  tail -20 "$log" >&2
  stop_prism
  return 1
}

# Every scope a document's security schemes name, for the stdio caller (MCP_SCOPES).
scopes() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
found = set()
schemes = d.get("components", {}).get("securitySchemes") or d.get("securityDefinitions") or {}
for scheme in schemes.values():
    for flow in (scheme.get("flows") or {}).values():
        found.update((flow.get("scopes") or {}).keys())
    found.update((scheme.get("scopes") or {}).keys())
print(" ".join(sorted(found)))' "$1"
}

failed=0
# Call every tool of one generated server against Prism serving its document.
run() {
  local name=$1 doc=$2 binary=$3 prefix=$4 api_mod=$5 mode
  for mode in $modes; do
    local label=$name:$mode log=$out/results/$name-$mode.prism.log url=
    if ! serve "$doc" "$mode" "$log"; then failed=1; continue; fi
    # The base URL, and a credential for every scheme (whatever its kind, every variable
    # `Api::from_env` reads is set).
    local env=("${prefix}_BASE_URL=$url" "MCP_PRINCIPAL=prism" "MCP_SCOPES=$(scopes "$doc")") var
    for var in $(grep -ho "\"${prefix}_[A-Z0-9_]*\"" "$api_mod" | tr -d '"' | sort -u); do
      case $var in *_BASE_URL) ;; *) env+=("$var=prism-dummy-credential") ;; esac
    done
    local command=${template//\{bin\}/$binary}
    command=${command//\{doc\}/$doc}
    command=${command//\{name\}/$name}
    command=${command//\{url\}/$url}
    command=${command//\{prefix\}/$(echo "$prefix" | tr 'A-Z_' 'a-z-')}
    local words
    read -ra words <<<"$command"
    if ! env "${env[@]}" "$python" "$root/tests/openapi/prism.py" call --label "$label" --document "$doc" \
      --prism-log "$log" --out "$out/results/$name-$mode.json" -- "${words[@]}" \
      2>"$out/results/$name-$mode.server.log"; then
      failed=1
      echo "  ($label: the server's log is $out/results/$name-$mode.server.log, Prism's $log)" >&2
    fi
    stop_prism
  done
}

started=$(date +%s)
while read -r doc _; do
  [ -z "$doc" ] && continue
  case $doc in \#*) continue ;; esac
  name=$(echo "$doc" | sed 's/\.json$//; s/[^A-Za-z0-9]/-/g' | tr 'A-Z' 'a-z')
  prefix=$(echo "$name" | tr 'a-z-' 'A-Z_')
  run "$name" "$corpus/$doc" "$bins/$name" "$prefix" "$out/crates/$name/src/api/mod.rs"
done <"$list"
run inventory "$root/examples/inventory-api/openapi.json" "$bins/inventory-mcp" INVENTORY_MCP \
  "$root/examples/inventory-mcp/src/api/mod.rs"

echo
echo "Prism check, $(($(date +%s) - started)) s of calls:"
if ! "$python" "$root/tests/openapi/prism.py" summary --min-calls 50 --min-documents 4 "$out"/results/*.json; then
  failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "openapi-prism: FAILED (FAIL lines above; each call's record is in $out/results/*.json)" >&2
  exit 1
fi
