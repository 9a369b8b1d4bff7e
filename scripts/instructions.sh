#!/usr/bin/env bash
# Instructions per `tools/call` of a server, counted by valgrind's callgrind: unlike
# requests per second, the count does not move with the machine's load, so a change to the
# hot path can be compared before and after on any machine.
#
#   scripts/instructions.sh SERVER_BINARY [CALLS]      (default: 20000 calls)
#
# SERVER_BINARY takes `--stdio` and `--http ADDR` and serves `add {a, b}`, like
# `target/production/bench-server`. Prints instructions per call for stdio (the calls as
# lines of one input file) and HTTP, each in both protocol eras (one keep-alive connection
# from a Python client), each minus a run that serves nothing; for stdio, also the
# first-level cache misses per call in cachegrind's model. Needs valgrind and
# python3. Not part of the test command: it takes a few minutes.
set -euo pipefail
server=$1
calls=${2:-20000}
http_calls=$((calls / 5))
lib=$(cd "$(dirname "$0")" && pwd)/lib
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=18767

total() { grep -m1 'Collected' "$1" | awk '{print $4}'; }

python3 "$lib/calls.py" stdio "$work/calls.jsonl" "$calls"
: >"$work/none.jsonl"
# The handshake era: an `initialize` and its notification, then the same calls.
python3 "$lib/calls.py" stdio "$work/legacy-calls.jsonl" "$calls" legacy
python3 "$lib/calls.py" stdio "$work/legacy-none.jsonl" 0 legacy

stdio() {
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$server" --stdio \
    <"$work/$1.jsonl" >"$work/$1.out" 2>"$work/$1.err"
  total "$work/$1.err"
}
for era in modern legacy; do
  case $era in
    modern) none=none all=calls ;;
    legacy) none=legacy-none all=legacy-calls ;;
  esac
  base=$(stdio "$none")
  full=$(stdio "$all")
  # The handshake era's `initialize` is answered in both runs.
  answered=$(($(grep -c '"result"' "$work/$all.out" || true) - $(grep -c '"result"' "$work/$none.out" || true)))
  [ "$answered" -eq "$calls" ] || { echo "stdio $era: $answered of $calls calls answered" >&2; exit 1; }
  echo "stdio $era: $(((full - base) / calls)) instructions per call"
done

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
  python3 "$lib/calls.py" http "$port" "$era" "$n"
  kill -INT "$pid"
  wait "$pid" || true
  total "$work/http.err"
}
for era in modern legacy; do
  base=$(http "$era" 0)
  full=$(http "$era" "$http_calls")
  echo "http $era: $(((full - base) / http_calls)) instructions per call"
done
