#!/usr/bin/env bash
# Instructions per `tools/call` of a server, counted by valgrind's callgrind: unlike
# requests per second, the count does not move with the machine's load, so a change to the
# hot path can be compared before and after on any machine.
#
#   scripts/instructions.sh SERVER_BINARY [CALLS]      (default: 20000 calls)
#
# SERVER_BINARY takes `--stdio` and `--http ADDR` and serves `add {a, b}`, like
# `target/production/bench-server`. Prints instructions per call for stdio (the calls as
# lines of one input file) and for HTTP in both protocol eras (one keep-alive connection
# from a Python client), each minus a run that serves nothing; for stdio, also the
# first-level cache misses per call in cachegrind's model. Needs valgrind and
# python3. Not part of the test command: it takes a few minutes.
set -euo pipefail
server=$1
calls=${2:-20000}
http_calls=$((calls / 5))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=18767

total() { grep -m1 'Collected' "$1" | awk '{print $4}'; }

python3 - "$work" "$calls" <<'PY'
import json, sys
work, calls = sys.argv[1], int(sys.argv[2])
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
with open(f"{work}/calls.jsonl", "w") as f:
    for i in range(calls):
        f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                            "params": {"name": "add", "arguments": {"a": i, "b": 3}, "_meta": meta}},
                           separators=(",", ":")) + "\n")
open(f"{work}/none.jsonl", "w").close()
PY

stdio() {
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$server" --stdio \
    <"$work/$1.jsonl" >"$work/$1.out" 2>"$work/$1.err"
  total "$work/$1.err"
}
base=$(stdio none)
full=$(stdio calls)
answered=$(grep -c '"result"' "$work/calls.out" || true)
[ "$answered" -eq "$calls" ] || { echo "stdio: $answered of $calls calls answered" >&2; exit 1; }
echo "stdio: $(((full - base) / calls)) instructions per call"

# The same run under cachegrind's cache model (32 KiB first-level instruction and data
# caches): how often each call misses them. Two servers that execute about as many
# instructions can differ in time mostly by these misses, for example when one's
# per-request code no longer fits in the instruction cache.
misses() {
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
    --I1=32768,8,64 --D1=32768,8,64 "$server" --stdio \
    <"$work/$1.jsonl" >/dev/null 2>"$work/$1.cache"
  local i d
  i=$(grep -m1 'I1  misses' "$work/$1.cache" | awk '{gsub(",", "", $4); print $4}')
  d=$(grep -m1 'D1  misses' "$work/$1.cache" | awk '{gsub(",", "", $4); print $4}')
  echo "$i $d"
}
read -r i0 d0 < <(misses none)
read -r i1 d1 < <(misses calls)
echo "stdio: $(((i1 - i0) / calls)) instruction-cache and $(((d1 - d0) / calls)) data-cache misses per call"

# One HTTP client on a keep-alive connection; `era` picks the 2026-07-28 _meta or an
# initialize handshake and its session.
http() {
  local era=$1 n=$2
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$server" \
    --http "127.0.0.1:$port" >/dev/null 2>"$work/http.err" &
  local pid=$!
  python3 - "$port" "$era" "$n" <<'PY'
import http.client, json, sys, time
port, era, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for _ in range(300):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/healthz"); conn.getresponse().read()
        break
    except OSError:
        time.sleep(0.1)
headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
if era == "legacy":
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "instructions", "version": "1"}}}
    conn.request("POST", "/mcp", json.dumps(init), headers)
    answer = conn.getresponse(); answer.read()
    headers["mcp-session-id"] = answer.getheader("mcp-session-id")
    headers["mcp-protocol-version"] = "2025-11-25"
else:
    headers.update({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add"})
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
for i in range(1, n + 1):
    params = {"name": "add", "arguments": {"a": i, "b": 3}}
    if era == "modern":
        params["_meta"] = meta
    conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}), headers)
    answer = conn.getresponse()
    body = json.loads(answer.read())
    if body.get("result", {}).get("structuredContent") != {"sum": i + 3}:
        sys.exit(f"call {i}: {body}")
PY
  kill -INT "$pid"
  wait "$pid" || true
  total "$work/http.err"
}
for era in modern legacy; do
  base=$(http "$era" 0)
  full=$(http "$era" "$http_calls")
  echo "http $era: $(((full - base) / http_calls)) instructions per call"
done
