#!/usr/bin/env bash
# Peak resident memory of a server while it stores and serves a 50 MiB artifact in parts
# (issue "Large results": serving a 50 MiB artifact in parts keeps the server's peak RSS
# under 64 MiB). Measured, not asserted: the figures go to stdout.
#
#   scripts/artifact-rss.sh [--no-build] [RUN...]
#
# RUN is one of (default: sqlite memory sqlite-export, plus postgres when
# ARTIFACT_RSS_POSTGRES is set):
#   sqlite          MCP_STORE = a fresh SQLite file in a temporary directory, `export_stream`
#   memory          the default in-memory store, `export_stream`
#   sqlite-export   a fresh SQLite file, `export` (the whole body built in memory first)
#   memory-export   the in-memory store, `export`
#   postgres        MCP_STORE = $ARTIFACT_RSS_POSTGRES (a postgres:// URL), `export_stream`
#
# Each run starts `target/release/large` (tests/workspace/src/bin/large.rs) on stdio, calls
# the tool with size 52428800, reads `artifact://<id>/part/0` .. `/part/<parts-1>` one at a
# time, checks the decoded size and SHA-256 against the link, and prints the server's RSS
# after start (VmRSS once it has answered `tools/list`), after the tool call, and its peak
# (VmHWM from /proc/<pid>/status) after the last part. The server inherits the environment,
# so e.g. `MALLOC_ARENA_MAX=2 scripts/artifact-rss.sh sqlite` compares allocator settings.
# Needs python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=1
if [ "${1:-}" = "--no-build" ]; then
  build=0
  shift
fi
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
  runs=(sqlite memory sqlite-export)
  if [ -n "${ARTIFACT_RSS_POSTGRES:-}" ]; then runs+=(postgres); fi
fi
size=${ARTIFACT_RSS_SIZE:-52428800}

if [ "$build" = 1 ]; then
  (cd "$root" && cargo build --release -p mcp-workspace-tests --bin large >&2)
fi
server=$root/target/release/large
[ -x "$server" ] || { echo "no $server: build it or drop --no-build" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/driver.py" <<'PY'
import base64, hashlib, json, os, subprocess, sys, time

server, store, tool, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ)
env.pop("MCP_STORE", None)
if store:
    env["MCP_STORE"] = store
env.setdefault("RUST_LOG", "warn")
# Buffered pipes: an unbuffered stdout would read each response line a byte at a time.
proc = subprocess.Popen([server, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        env=env)
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
next_id = 0

def status(field):
    with open(f"/proc/{proc.pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # kB -> MiB
    raise RuntimeError(f"no {field}")

def call(method, params):
    global next_id
    next_id += 1
    params = dict(params, _meta=META)
    line = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()
    while True:
        out = proc.stdout.readline()
        if not out:
            raise RuntimeError(f"server exited (status {proc.wait()}) during {method}")
        message = json.loads(out)
        if message.get("id") != next_id:
            continue  # a notification
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message["result"]

try:
    call("tools/list", {})
    start_rss = status("VmRSS")
    start_hwm = status("VmHWM")
    t0 = time.monotonic()
    result = call("tools/call", {"name": tool, "arguments": {"size": size}})
    if result.get("isError"):
        raise RuntimeError(f"{tool}: {result}")
    link = result["structuredContent"]
    saved = time.monotonic() - t0
    after_call_rss = status("VmRSS")
    after_call_hwm = status("VmHWM")
    digest = hashlib.sha256()
    total = 0
    t1 = time.monotonic()
    for n in range(link["parts"]):
        uri = f"{link['uri']}/part/{n}"
        contents = call("resources/read", {"uri": uri})["contents"]
        for c in contents:
            body = base64.b64decode(c["blob"]) if "blob" in c else c["text"].encode()
            digest.update(body)
            total += len(body)
    read = time.monotonic() - t1
    peak = status("VmHWM")
    end_rss = status("VmRSS")
    ok = total == size == link["size"] and digest.hexdigest() == link["sha256"]
    print(json.dumps({
        "parts": link["parts"], "bytes": total, "sha256_ok": digest.hexdigest() == link["sha256"],
        "ok": ok, "start_rss": round(start_rss, 1), "start_hwm": round(start_hwm, 1),
        "after_call_rss": round(after_call_rss, 1), "after_call_hwm": round(after_call_hwm, 1),
        "end_rss": round(end_rss, 1), "peak": round(peak, 1),
        "save_s": round(saved, 2), "read_s": round(read, 2),
    }))
    sys.exit(0 if ok else 1)
finally:
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
PY

status=0
for run in "${runs[@]}"; do
  store="" tool=export_stream
  case "$run" in
    sqlite) store=$work/$run.db ;;
    memory) ;;
    sqlite-export) store=$work/$run.db tool=export ;;
    memory-export) tool=export ;;
    postgres)
      store=${ARTIFACT_RSS_POSTGRES:?set ARTIFACT_RSS_POSTGRES to a postgres:// URL} ;;
    *) echo "unknown run $run" >&2; exit 2 ;;
  esac
  if ! out=$(python3 "$work/driver.py" "$server" "$store" "$tool" "$size"); then
    status=1
  fi
  python3 - "$run" "$tool" "$out" <<'PY'
import json, sys
run, tool, out = sys.argv[1], sys.argv[2], sys.argv[3]
r = json.loads(out.strip().splitlines()[-1]) if out.strip() else None
if not r:
    print(f"{run:14} {tool:13} FAILED"); sys.exit(0)
check = "ok" if r["ok"] else "MISMATCH"
print(f"{run:14} {tool:13} {r['parts']} parts, {r['bytes']} bytes, sha256 {check}; "
      f"RSS after start {r['start_rss']} MiB, after the call {r['after_call_rss']} MiB "
      f"(peak so far {r['after_call_hwm']}), after the last part {r['end_rss']} MiB; "
      f"peak RSS (VmHWM) {r['peak']} MiB; save {r['save_s']} s, reads {r['read_s']} s")
PY
done
exit $status
