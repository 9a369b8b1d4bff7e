"""Drive the `ledger` example with the official Python SDK (mcp 2.3.0): a transfer confirmed
through the client's elicitation callback, the same call retried with its idempotency key
(one transfer in the database afterwards), and a transfer refused for insufficient funds,
whose structured error the SDK hands over and which fits the tool's output schema.

Then the large results: `history` paged one transfer at a time to the end by following
`nextCursor` (passed back as the ordinary `cursor` argument; ids never repeat and strictly
decrease, the count matches `total`; the JSON text block stands in for structured content
before 2025-06-18), a tampered cursor refused as a tool error that names the cursor, and
`export_statement`'s CSV artifact found through its resource_link block (the text block that
replaces it for 2025-03-26) and read with read_resource (part by part when it has several):
its header, one line per transfer, its size and its SHA-256. Last the statement view as a
client without the MCP Apps extension sees it: `statement`'s plain result, and the app-only
`statement_more` unlisted and refused (-32021).

Usage: ledger.py MODE stdio BINARY | ledger.py MODE http URL ISSUER, where MODE is
"2026-07-28" (pinned), "legacy" (the initialize handshake) or "auto". Over stdio the ledger
gets a fresh LEDGER_DATABASE and the caller alice of tenant acme from the environment;
over HTTP a token from the development issuer.
"""

import asyncio
import base64
import hashlib
import json
import re
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


def structured(result):
    """A tool result's structured content or, before 2025-06-18 (none), the same JSON in its
    second text block."""
    if result.structured_content is not None:
        return result.structured_content
    try:
        return json.loads(result.content[1].text)
    except (IndexError, AttributeError, ValueError):
        return None


async def large_results(client, memo, booked):
    # A second transfer, back the other way, so that acme-payroll has at least two pages of
    # one transfer even in a fresh database.
    back = await client.call_tool("transfer", {"from": "acme-payroll", "to": "acme-operating", "amount_cents": 100,
                                               "memo": f"back {memo}", "idempotencyKey": str(uuid.uuid4())})
    back_id = (structured(back) or {}).get("id")
    check("a second transfer, back, is booked", not back.is_error and isinstance(back_id, int), back)

    # history, one transfer a page, to the end: the cursor is an ordinary argument.
    ids, total, first, cursor, pages = [], None, None, None, 0
    while True:
        args = {"account": "acme-payroll", "limit": 1}
        if cursor is not None:
            args["cursor"] = cursor
        page = await client.call_tool("history", args)
        body = structured(page)
        pages += 1
        if page.is_error or not isinstance((body or {}).get("items"), list):
            check(f"page {pages} of history is a page", False, page)
            break
        first = first or (page, body)
        ids += [t["id"] for t in body["items"]]
        if total is None:
            total = body.get("total")
        cursor = body.get("nextCursor")
        if cursor is None or pages > 100000:
            break
    first_cursor = first[1].get("nextCursor") if first else None
    check("history pages, one transfer each, to a page without nextCursor",
          cursor is None and len(ids) >= 2 and pages == len(ids), (pages, ids))
    summary = first[0].content[0].text if first else ""
    check("the first page's text says which item it holds and how to get the next",
          summary.startswith("Items 1-1 of ") and f'"cursor": "{first_cursor}"' in summary, summary)
    check("no transfer id repeats across the pages", len(set(ids)) == len(ids), ids)
    check("the ids strictly decrease (newest first)", all(a > b for a, b in zip(ids, ids[1:])), ids)
    check("the pages hold `total` transfers", total is None or len(ids) == total, (total, len(ids)))
    check("the pages include both transfers of this run",
          (booked.structured_content or {}).get("id") in ids and back_id in ids, (ids, back_id))

    # A cursor altered in the middle is refused before the tool runs, as a tool error.
    if first_cursor is None:
        check("history gave a cursor to tamper with", False, first)
    else:
        mid = len(first_cursor) // 2
        tampered = first_cursor[:mid] + ("B" if first_cursor[mid] == "A" else "A") + first_cursor[mid + 1:]
        refused = await client.call_tool("history", {"account": "acme-payroll", "limit": 1, "cursor": tampered})
        said = " ".join(getattr(c, "text", "") for c in refused.content)
        check("a tampered cursor is an isError result that names the cursor", refused.is_error and "cursor" in said, refused)

    # The statement: a link to a CSV artifact, read with resources/read.
    exported = await client.call_tool("export_statement", {"account": "acme-payroll"})
    meta = exported.structured_content
    link = next((c for c in exported.content if c.type == "resource_link"), None)
    fallback = next((c for c in exported.content if c.type == "text" and c.text.startswith("Resource artifact://")), None)
    uri = size = mime = description = None
    if link is not None:
        uri, size, mime, description = str(link.uri), link.size, link.mime_type, link.description
    elif fallback is not None:
        # 2025-03-26: "Resource <uri> (<name>), <mime>, <size> bytes: <description>".
        m = re.match(r"Resource (\S+) \((.*?)\), ([^,]+), (\d+) bytes: (.*)$", fallback.text, re.S)
        if m:
            uri, mime, size, description = m.group(1), m.group(3), int(m.group(4)), m.group(5)
    came = "a resource_link block" if link else "the text fallback of a resource_link" if fallback else "neither"
    print(f"note py ledger {MODE} {KIND} the statement came as {came} (protocol {client.protocol_version})")
    check("export_statement links to a text/csv artifact", not exported.is_error and (uri or "").startswith("artifact://")
          and len(uri) > len("artifact://") and mime == "text/csv" and isinstance(size, int), exported)
    if meta is not None:
        check("its structured content names the same artifact as the link",
              meta.get("uri") == uri and meta.get("size") == size and meta.get("mimeType") == mime
              and re.fullmatch(r"[0-9a-f]{64}", meta.get("sha256", "")) is not None
              and isinstance(meta.get("parts"), int) and meta["parts"] >= 1, (meta, link))
        parts = meta.get("parts", 1)
    else:
        m = re.search(r"in (\d+) parts", description or "")
        parts = int(m.group(1)) if m else 1
    data = b""
    for n in range(parts if uri else 0):
        read = await client.read_resource(f"{uri}/part/{n}" if parts > 1 else uri)
        contents = read.contents[0]
        text = getattr(contents, "text", None)
        data += text.encode() if text is not None else base64.b64decode(contents.blob)
    lines = data.decode().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    check("the statement starts with its CSV header", lines[:1] == ["id,from,to,amount_cents,memo,made_by,made_at_ms"], lines[:1])
    check("the statement has one line per transfer after the header", len(lines) == len(ids) + 1, (len(lines), len(ids)))
    check("the statement is `size` bytes long", len(data) == size, (len(data), size))
    sha256 = hashlib.sha256(data).hexdigest()
    if meta is not None:
        check("the statement's SHA-256 is structured content's sha256", sha256 == meta.get("sha256"), (sha256, meta.get("sha256")))
    else:
        check("the statement's SHA-256 is the one the link's description states", f"SHA-256 {sha256}" in (description or ""),
              (sha256, description))
    return back_id


async def statement_view(client, booked, back_id):
    # The statement view (MCP Apps): this client declares no `io.modelcontextprotocol/ui`
    # extension, so `statement` is an ordinary tool to it (a summary line and the page as
    # structured content, or the JSON text block before 2025-06-18), and the view's own
    # `statement_more` is neither listed nor callable.
    statement = await client.call_tool("statement", {"account": "acme-payroll"})
    page = structured(statement) or {}
    rows = page.get("transfers") or []
    check("statement answers with the plain result", not statement.is_error and page.get("account") == "acme-payroll"
          and 2 <= len(rows) <= 20 and all(a["id"] > b["id"] for a, b in zip(rows, rows[1:])), statement)
    text = statement.content[0].text if statement.content else ""
    check("statement's text says what it shows", re.match(r"^\d+ transfer\(s\) of acme-payroll, newest first", text) is not None, text)
    ids = [t["id"] for t in rows]
    check("statement shows the transfers of this run", (booked.structured_content or {}).get("id") in ids and back_id in ids, ids)
    names = [t.name for t in (await client.list_tools()).tools]
    check("statement is listed and statement_more is not", "statement" in names and "statement_more" not in names, names)
    try:
        more = await client.call_tool("statement_more", {"account": "acme-payroll"})
        check("statement_more is refused to a client without the extension", False, more)
    except Exception as e:  # the SDK raises the JSON-RPC error
        code = getattr(getattr(e, "error", None), "code", None)
        check("statement_more is refused to a client without the extension (-32021)", code == -32021, repr(e))


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
            mine = [t for t in structured(history)["items"] if t["memo"] == memo]
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
            back_id = await large_results(client, memo, booked)
            await statement_view(client, booked, back_id)
    print(f"py ledger {MODE} {KIND}: " + ("all checks passed" if failures == 0 else f"{failures} check(s) failed"))


MODE, KIND, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
ISSUER = sys.argv[4] if len(sys.argv) > 4 else None
asyncio.run(main())
sys.exit(1 if failures else 0)
