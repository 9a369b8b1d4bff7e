"""Drive the secured `tenants` example with the official Python SDK (mcp 2.3.0), bearer
tokens minted by the development issuer sent in the request headers.

Usage: tenants.py MODE URL ISSUER, where MODE is "2026-07-28" (pinned) or "legacy" (the
initialize handshake). Checks that each tenant sees only its own orders, that a missing
scope is refused, and that a client without a token is turned away.
"""

import asyncio
import json
import sys
import urllib.request

from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

failures = 0


def check(label, ok, detail=None):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} py tenants {MODE} {label}{'' if ok else ': ' + repr(detail)}")
    if not ok:
        failures += 1


def token(sub, tenant, scope):
    body = json.dumps({"sub": sub, "tenant": tenant, "scope": scope, "resource": URL}).encode()
    request = urllib.request.Request(f"{ISSUER}/token", data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)["access_token"]


def client(bearer):
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    transport = streamable_http_client(URL, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=MODE)


async def refused(action):
    try:
        await action()
        return None
    except BaseException as e:  # the SDK wraps transport errors in exception groups
        return repr(e)


async def main():
    async def anonymous():
        async with client(None) as c:
            await c.list_tools()

    # The SDK reports a refused request without its HTTP status ("Server returned an error
    # response"); the 401 itself is checked by the Rust tests.
    error = await refused(anonymous)
    check("a client without a token is refused", error is not None and "error" in error.lower(), error)

    async with client(token("wile", "acme", "orders:read orders:write")) as acme:
        names = [t.name for t in (await acme.list_tools()).tools]
        check("tools/list shows what the scopes allow", names == ["list_orders", "place_order"], names)
        mine = await acme.call_tool("list_orders", {})
        text = mine.content[0].text
        check("list_orders returns only acme orders", '"tenant":"acme"' in text and "magnet" not in text, text)
        own = await acme.read_resource("orders://acme/1")
        check("reading an own order works", "anvil" in own.contents[0].text, own)

        async def foreign():
            await acme.read_resource("orders://globex/1")

        error = await refused(foreign)
        check("reading another tenant's order is refused", error is not None and "another tenant" in error, error)
        review = await acme.get_prompt("review_orders", {})
        prompt = review.messages[0].content.text
        check("the prompt sees only acme orders", "anvil" in prompt and "magnet" not in prompt, prompt)

    async def write_without_scope():
        async with client(token("hank", "globex", "orders:read")) as globex:
            theirs = await globex.call_tool("list_orders", {})
            check("list_orders returns only globex orders", "magnet" in theirs.content[0].text and "anvil" not in theirs.content[0].text, theirs)
            await globex.call_tool("place_order", {"item": "x", "quantity": 1})

    error = await refused(write_without_scope)
    check("a call without its scope is refused (403)", error is not None and ("403" in error or "insufficient_scope" in error or "orders:write" in error), error)


MODE, URL, ISSUER = sys.argv[1], sys.argv[2], sys.argv[3]
asyncio.run(main())
if failures:
    print(f"py tenants {MODE}: {failures} check(s) failed")
    sys.exit(1)
print(f"py tenants {MODE}: all checks passed")
