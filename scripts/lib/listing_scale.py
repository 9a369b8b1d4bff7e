"""How a stdio server of many tools starts and lists them.

    listing_scale.py SERVER_BINARY [...]

For each binary (started as `BINARY --stdio`, the 2026-07-28 revision): the time from
start to its first answer (`server/discover`), the median of ten complete `tools/list`
listings (every page), and its resident memory after them. Used for the servers `mcp
openapi` generates from large documents (the book's Performance chapter).
"""

import json, subprocess, sys, time
def run(binary, env):
    meta={"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}
    t0=time.perf_counter()
    p=subprocess.Popen([binary,"--stdio"],stdin=subprocess.PIPE,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL,env=env)
    def ask(i, method, params):
        params=dict(params); params["_meta"]=meta
        p.stdin.write((json.dumps({"jsonrpc":"2.0","id":i,"method":method,"params":params})+"\n").encode()); p.stdin.flush()
        return json.loads(p.stdout.readline())
    ask(0,"server/discover",{})
    started=time.perf_counter()-t0
    lists=[]; count=0
    for i in range(1,11):
        t=time.perf_counter(); cursor=None; n=0; pages=0
        while True:
            r=ask(i*100+pages,"tools/list",{"cursor":cursor} if cursor else {})
            n+=len(r["result"]["tools"]); pages+=1
            cursor=r["result"].get("nextCursor")
            if not cursor: break
        lists.append(time.perf_counter()-t); count=n
    rss=int([l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmRSS")][0].split()[1])
    p.kill()
    lists.sort()
    print(f"{binary.split('/')[-1]}: {count} tools in {pages} pages; start to first answer {started*1000:.0f} ms; tools/list (all pages) median {lists[5]*1000:.1f} ms; RSS after listing {rss/1024:.1f} MiB")
import os
for b in sys.argv[1:]: run(b, dict(os.environ))
