"""Calls of `add {a, b}` for the profiling scripts (`instructions.sh`, `link-order.sh`).

    calls.py stdio FILE N [ERA]      writes N `tools/call` requests as JSON lines (after an
                                     `initialize` handshake when ERA is `legacy`)
    calls.py http PORT ERA N [C]     makes N calls over C keep-alive connections (default 1)

ERA is `modern` (2026-07-28 `_meta` on every request) or `legacy` (an `initialize`
handshake per connection, then its session). Every answer is checked, so a profile is
never taken of a server that answers with errors.
"""

import http.client
import json
import sys
import threading
import time

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def request(i, era):
    params = {"name": "add", "arguments": {"a": i, "b": 3}}
    if era == "modern":
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


INITIALIZE = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "profile", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def write_stdio(path, n, era="modern"):
    with open(path, "w") as f:
        if era == "legacy":
            for message in (INITIALIZE, INITIALIZED):
                f.write(json.dumps(message, separators=(",", ":")) + "\n")
        for i in range(n):
            f.write(json.dumps(request(i, era), separators=(",", ":")) + "\n")


def wait_for(port):
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing answers on port {port}")


def connection(port, era, ids, failures):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if era == "legacy":
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "profile", "version": "1"}}}
        conn.request("POST", "/mcp", json.dumps(init), headers)
        answer = conn.getresponse()
        answer.read()
        headers["mcp-session-id"] = answer.getheader("mcp-session-id")
        headers["mcp-protocol-version"] = "2025-11-25"
    else:
        headers.update({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                        "mcp-name": "add"})
    for i in ids:
        conn.request("POST", "/mcp", json.dumps(request(i, era)), headers)
        body = json.loads(conn.getresponse().read())
        if body.get("result", {}).get("structuredContent") != {"sum": i + 3}:
            failures.append(f"call {i}: {body}")
            return


def run_http(port, era, n, connections):
    wait_for(port)
    failures = []
    threads = [
        threading.Thread(target=connection,
                         args=(port, era, range(1 + c, n + 1, connections), failures))
        for c in range(connections)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit(failures[0])


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        write_stdio(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "modern")
    else:
        run_http(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]),
                 int(sys.argv[5]) if len(sys.argv) > 5 else 1)
