"""Drive the orders example with the official Python SDK (mcp 2.3.0): deleting an order
answers input_required with a confirmation form; the client's elicitation callback answers
it and the SDK retries with the answer and the sealed requestState.

In the handshake era (MODE "legacy") the same handler's question reaches the client as an
elicitation/create request from the server instead.

Usage: confirm.py MODE stdio BINARY | confirm.py MODE http URL (MODE as in interop.py).
"""

import asyncio
import json
import sys

import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

failures = 0
asked = []
answers = []


def check(label, ok, detail=None):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} py-confirm {MODE} {KIND} {label}{'' if ok else ': ' + repr(detail)}")
    if not ok:
        failures += 1


async def on_elicit(context, params):
    asked.append(params)
    return answers.pop(0)


async def main():
    server = StdioServerParameters(command=TARGET, args=["--stdio"]) if KIND == "stdio" else TARGET
    async with Client(server, mode=MODE, elicitation_callback=on_elicit) as client:
        answers.append(types.ElicitResult(action="accept", content={"confirm": True}))
        deleted = await client.call_tool("delete_order", {"id": 1})
        check("an accepted confirmation deletes the order", deleted.content[0].text == "Order 1 deleted.", deleted)
        check("the form named the order", len(asked) == 1 and "Delete order 1 of Ada" in asked[0].message, asked)
        answers.append(types.ElicitResult(action="cancel"))
        kept = await client.call_tool("delete_order", {"id": 3})
        check("a cancelled confirmation keeps the order", kept.content[0].text == "Order 3 was not deleted: the user cancelled.", kept)
        listed = await client.call_tool("list_orders", {})
        # The text carries the list in every era (handshake revisions allow only objects
        # as structured content).
        ids = [o["id"] for o in json.loads(listed.content[0].text)]
        check("only the confirmed deletion happened", 1 not in ids and 3 in ids, ids)
    print(f"py-confirm {MODE} {KIND}: " + ("all checks passed" if failures == 0 else f"{failures} check(s) failed"))


MODE, KIND, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
asyncio.run(main())
sys.exit(1 if failures else 0)
