"""Drive the `ledger` example with the official Python SDK (mcp 2.3.0): a transfer confirmed
through the client's elicitation callback, the same call retried with its idempotency key
(one transfer in the database afterwards), and a transfer refused for insufficient funds,
whose structured error the SDK hands over and which fits the tool's output schema.

Usage: ledger.py MODE stdio BINARY | ledger.py MODE http URL ISSUER, where MODE is
"2026-07-28" (pinned), "legacy" (the initialize handshake) or "auto". Over stdio the ledger
gets a fresh LEDGER_DATABASE and the caller alice of tenant acme from the environment;
over HTTP a token from the development issuer.
"""

import asyncio
import json
import sys
import tempfile
import urllib.request
import uuid

import jsonschema
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

failures = 0
asked = []


def check(label, ok, detail=None):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} py ledger {MODE} {KIND} {label}{'' if ok else ': ' + repr(detail)}")
    if not ok:
        failures += 1


async def on_elicit(context, params):
    asked.append(params)
    return types.ElicitResult(action="accept", content={"confirm": True})


def token():
    body = json.dumps(
        {"sub": "alice", "tenant": "acme", "scope": "ledger:read ledger:write", "resource": TARGET}
    ).encode()
    request = urllib.request.Request(f"{ISSUER}/token", data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)["access_token"]


def server(scratch):
    if KIND == "stdio":
        return StdioServerParameters(
            command=TARGET,
            args=["--stdio"],
            env={
                "LEDGER_DATABASE": f"{scratch}/ledger.db",
                "MCP_PRINCIPAL": "alice",
                "MCP_TENANT": "acme",
                "MCP_SCOPES": "ledger:read ledger:write",
            },
        )
    headers = {"Authorization": f"Bearer {token()}"}
    return streamable_http_client(TARGET, http_client=create_mcp_http_client(headers=headers))


async def balance(client, account):
    listed = await client.call_tool("accounts", {})
    return next(a["balance_cents"] for a in listed.structured_content["accounts"] if a["id"] == account)


async def main():
    with tempfile.TemporaryDirectory() as scratch:
        async with Client(server(scratch), mode=MODE, elicitation_callback=on_elicit) as client:
            before = await balance(client, "acme-operating")
            memo = f"py {MODE} {KIND} {uuid.uuid4()}"
            args = {"from": "acme-operating", "to": "acme-payroll", "amount_cents": 1250, "memo": memo,
                    "idempotencyKey": str(uuid.uuid4())}
            booked = await client.call_tool("transfer", args)
            check("the confirmed transfer is booked", not booked.is_error and booked.structured_content["amount_cents"] == 1250, booked)
            check("the user was asked once", len(asked) == 1 and "Transfer 12.50" in asked[0].message, asked)
            retried = await client.call_tool("transfer", args)
            check("the retry gets the transfer already booked", retried.structured_content == booked.structured_content, retried)
            check("the retry asks nobody", len(asked) == 1, asked)
            history = await client.call_tool("history", {"account": "acme-payroll"})
            mine = [t for t in history.structured_content["transfers"] if t["memo"] == memo]
            check("one transfer in the database", len(mine) == 1, history.structured_content)
            check("the balance moved once", await balance(client, "acme-operating") == before - 1250)

            short = await client.call_tool(
                "transfer", {"from": "acme-payroll", "to": "acme-operating", "amount_cents": 99999999, "memo": "too much"}
            )
            error = (short.structured_content or {}).get("error", {})
            check("insufficient funds is a tool error with its code", short.is_error and error.get("code") == "insufficient_funds", short)
            detail = error.get("detail", {})
            check("its detail carries the balance", detail.get("account") == "acme-payroll" and
                  detail.get("requested_cents") == 99999999 and isinstance(detail.get("balance_cents"), int), error)
            tool = next(t for t in (await client.list_tools()).tools if t.name == "transfer")
            # The SDK validates structuredContent of successes only; the same library shows
            # the error fits the published schema too (S-184).
            problems = [str(e) for value in (short.structured_content, booked.structured_content)
                        for e in jsonschema.Draft202012Validator(tool.output_schema).iter_errors(value)]
            check("the error and the transfer both fit the tool's output schema", not problems, problems)
    print(f"py ledger {MODE} {KIND}: " + ("all checks passed" if failures == 0 else f"{failures} check(s) failed"))


MODE, KIND, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
ISSUER = sys.argv[4] if len(sys.argv) > 4 else None
asyncio.run(main())
sys.exit(1 if failures else 0)
