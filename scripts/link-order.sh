#!/usr/bin/env bash
# Writes a symbol-ordering file for the linker: the functions of a server that run at start
# and while it answers `tools/call`, hottest first, as valgrind's callgrind saw them.
#
#   scripts/link-order.sh SERVER_BINARY [CALLS] > examples/bench-server.order
#
# SERVER_BINARY takes `--stdio` and `--http ADDR` and serves `add {a, b}`, like
# `target/production/bench-server` (default: 5000 calls over stdio, the same over HTTP in
# each protocol era on 4 connections).
#
# Why: of the 8 MiB of machine code in a server binary, start-up and a call run a small
# part, scattered over the whole `.text` section. The kernel maps a binary's code in
# blocks around each page first touched, so scattered code keeps several MiB resident.
# Linked in this order (`--features link-order` of mcp-examples), the code that runs sits
# together. The names carry hashes that change with the toolchain, the dependencies and
# the profile: regenerate the file from a binary built the way it will be linked, after
# such a change. Missing names cost nothing but their place.
set -euo pipefail
server=$1
calls=${2:-5000}
lib=$(cd "$(dirname "$0")" && pwd)/lib
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=18768

# Mangled names (the linker's), every string spelled out, so the output parses line by line.
callgrind=(valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no)

python3 "$lib/calls.py" stdio "$work/calls.jsonl" "$calls"
"${callgrind[@]}" --callgrind-out-file="$work/stdio.cg" "$server" --stdio <"$work/calls.jsonl" >"$work/stdio.out" 2>"$work/stdio.err"
answered=$(grep -c '"result"' "$work/stdio.out" || true)
[ "$answered" -eq "$calls" ] || { echo "stdio: $answered of $calls calls answered" >&2; exit 1; }

for era in modern legacy; do
  "${callgrind[@]}" --callgrind-out-file="$work/http-$era.cg" "$server" --http "127.0.0.1:$port" >/dev/null 2>"$work/http.err" &
  pid=$!
  python3 "$lib/calls.py" http "$port" "$era" "$calls" 4
  kill -INT "$pid"
  wait "$pid" || true
done

python3 - "$server" "$work"/*.cg <<'PY'
import collections, os, re, sys

server = os.path.realpath(sys.argv[1])
cost = collections.Counter()
for path in sys.argv[2:]:
    ob = fn = None
    skip = False
    for line in open(path, errors="replace"):
        if skip:  # the inclusive cost of a call, already counted in the callee
            skip = False
            continue
        if line.startswith("ob="):
            ob = os.path.realpath(line[3:].strip())
        elif line.startswith("fn="):
            # `'2` marks a recursive activation of the same function.
            fn = re.sub(r"'\d+$", "", line[3:].strip())
        elif line.startswith("calls="):
            skip = True
        elif fn and ob == server and line[:1].isdigit():
            fields = line.split()
            if len(fields) >= 2:
                cost[fn] += int(fields[1])
print(f"# {len(cost)} functions of {os.path.basename(server)}, hottest first "
      "(scripts/link-order.sh)")
for name, _ in cost.most_common():
    print(name)
PY
