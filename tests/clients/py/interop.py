"""Drive the quickstart example with the official Python SDK (mcp 2.3.0) and check the answers.

Usage: interop.py MODE stdio BINARY | interop.py MODE http URL, where MODE is a pinned
version ("2026-07-28") or "auto" (probe with server/discover first).
"""

import asyncio
import sys

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

failures = 0


def check(label, ok, detail=None):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} py {MODE} {KIND} {label}{'' if ok else ': ' + repr(detail)}")
    if not ok:
        failures += 1


async def main():
    server = StdioServerParameters(command=TARGET, args=["--stdio"]) if KIND == "stdio" else TARGET
    async with Client(server, mode=MODE) as client:
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        check("tools/list names every tool in order", names == ["add", "add_note", "convert_temperature", "divide", "list_notes"], names)
        total = await client.call_tool("add", {"a": 2, "b": 3})
        check("add returns 5", total.content[0].text == "5" and total.structured_content == 5 and not total.is_error, total)
        temp = await client.call_tool("convert_temperature", {"value": 100, "to": "fahrenheit"})
        check("convert_temperature is structured", (temp.structured_content or {}).get("value") == 212, temp)
        zero = await client.call_tool("divide", {"dividend": 1, "divisor": 0})
        check("a tool error is an isError result", zero.is_error and "divide by zero" in zero.content[0].text, zero)
        bad = await client.call_tool("add", {"a": "two"})
        check("invalid arguments are an isError result", bad.is_error and "argument /a" in bad.content[0].text, bad)
        note = await client.call_tool("add_note", {"note": "interop"})
        check("state is shared with handlers", "Saved" in note.content[0].text, note)
        try:
            await client.call_tool("no_such_tool", {})
            check("an unknown tool is a protocol error", False, "no error raised")
        except Exception as e:  # the SDK raises MCPError carrying the JSON-RPC error
            code = getattr(getattr(e, "error", None), "code", None)
            check("an unknown tool is a -32602 protocol error", code == -32602, repr(e))


MODE, KIND, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    asyncio.run(main())
except Exception as e:
    check("session", False, repr(e))
print(f"py {MODE} {KIND}: " + ("all checks passed" if failures == 0 else f"{failures} check(s) failed"))
sys.exit(0 if failures == 0 else 1)
