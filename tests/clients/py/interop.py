"""Drive the quickstart example with the official Python SDK (mcp 2.3.0) and check the answers.

Usage: interop.py MODE stdio BINARY | interop.py MODE http URL, where MODE is a pinned
version ("2026-07-28"), "legacy" (the initialize handshake) or "auto" (probe with
server/discover first, fall back to the handshake); auto must land on 2026-07-28.
"""

import asyncio
import re
import sys
import time

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import PromptReference

failures = 0


def check(label, ok, detail=None):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} py {MODE} {KIND} {label}{'' if ok else ': ' + repr(detail)}")
    if not ok:
        failures += 1


async def main():
    server = StdioServerParameters(command=TARGET, args=["--stdio"]) if KIND == "stdio" else TARGET
    async with Client(server, mode=MODE) as client:
        legacy = MODE == "legacy"
        version = client.protocol_version
        check(
            f"speaks {'a handshake revision' if legacy else '2026-07-28'} (got {version})",
            version.startswith("2025-") if legacy else version == "2026-07-28",
            version,
        )
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        check("tools/list names every tool in order", names == ["add", "add_note", "convert_temperature", "divide", "list_notes"], names)
        # The handshake revisions allow only objects as structured content: the text carries it.
        total = await client.call_tool("add", {"a": 2, "b": 3})
        check(
            "add returns 5",
            total.content[0].text == "5" and total.structured_content == (None if legacy else 5) and not total.is_error,
            total,
        )
        temp = await client.call_tool("convert_temperature", {"value": 100, "to": "fahrenheit"})
        check("convert_temperature is structured", (temp.structured_content or {}).get("value") == 212, temp)
        zero = await client.call_tool("divide", {"dividend": 1, "divisor": 0})
        check("a tool error is an isError result", zero.is_error and "divide by zero" in zero.content[0].text, zero)
        bad = await client.call_tool("add", {"a": "two"})
        check("invalid arguments are an isError result", bad.is_error and "argument /a" in bad.content[0].text, bad)
        text = f"interop py {MODE} {KIND} {time.time()}"
        note = await client.call_tool("add_note", {"note": text})
        check("state is shared with handlers", "Saved" in note.content[0].text, note)
        templates = (await client.list_resource_templates()).resource_templates
        check(
            "resources/templates/list publishes notes://{number}",
            [(t.uri_template, t.name, t.mime_type) for t in templates] == [("notes://{number}", "note", "text/plain")],
            templates,
        )
        number = re.search(r"You have (\d+) note", note.content[0].text).group(1)
        read = await client.read_resource(f"notes://{number}")
        check(
            "resources/read of a templated URI returns the note",
            len(read.contents) == 1 and read.contents[0].text == text and str(read.contents[0].uri) == f"notes://{number}",
            read,
        )
        try:
            await client.read_resource("notes://999999")
            check("an unknown resource is an error", False, "no error raised")
        except Exception as e:
            error = getattr(e, "error", None)
            code = -32002 if legacy else -32602
            check(
                f"an unknown resource is {code} with the URI in data",
                getattr(error, "code", None) == code and (getattr(error, "data", None) or {}).get("uri") == "notes://999999",
                repr(e),
            )
        prompts = (await client.list_prompts()).prompts
        check(
            "prompts/list describes explain_conversion",
            [(p.name, [(a.name, a.required) for a in p.arguments or []]) for p in prompts]
            == [("explain_conversion", [("value", True), ("to", True)])],
            prompts,
        )
        prompt = await client.get_prompt("explain_conversion", {"value": "21.5", "to": "fahrenheit"})
        check(
            "prompts/get fills the arguments into the messages",
            prompt.messages[0].role == "user"
            and prompt.messages[0].content.text == "Convert 21.5 degrees to Fahrenheit with the convert_temperature tool.",
            prompt,
        )
        done = await client.complete(PromptReference(name="explain_conversion"), {"name": "to", "value": "c"})
        check("completion/complete suggests matching values", done.completion.values == ["celsius"], done)
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
