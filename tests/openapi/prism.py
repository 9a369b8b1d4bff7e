"""Call every tool of an MCP server made from an OpenAPI document, through the official
Python SDK client (mcp 2.3.0), while Prism (a validating mock) serves that document.

    prism.py call --label LABEL --document DOC --prism-log LOG --out RESULT.json -- COMMAND [ARG...]
    prism.py summary --min-calls N --min-documents N RESULT.json...

`call` starts COMMAND (a stdio MCP server; its environment is this one's), lists its tools,
and calls each once with arguments made from the tool's input schema (examples, defaults,
enums and consts first, then the type's rules), accepting every confirmation form; a paged
tool whose first page hands back a `nextCursor` is called once more with it. The framework's
own arguments are never made up: the retry key is one per tool, and a cursor only comes
from the page before. Prism
runs with `--errors` and a debug log: after each call the requests Prism received for it
are read back from LOG (method, path, headers, body, and whether they passed Prism's
validation), so each call is judged on what reached the API, not only on the result.

A call fails the check when:
- Prism found the request invalid for the document (whatever status it then answered; a
  422 is the usual one), or answered 401/403: the harness gives every credential through
  the environment, so a missing one is the server's fault;
- a result's structured content is not valid (JSON Schema 2020-12) for the tool's
  `outputSchema`, errors included (the published schema describes them too);
- the server could not read an answer Prism made from the document (`bad_answer`), sent
  no request at all, or the call broke at the protocol level or timed out.

These are counted but accepted, since the request passed Prism's validation and the
answer is Prism's choice: a 5xx (`api_failed`; Prism answers 500 when the answer it made
breaks the document's own response schema, as some documents' examples do) and other 4xx
(a 404 an operation documents as its only answer, for one).

`summary` prints the table of every document, then fails unless the runs together called
at least N tools whose every request Prism accepted, over at least N documents, with
request bodies, arrays, enums, path parameters, a confirmed DELETE and a POST carrying the
caller's Idempotency-Key among those accepted requests, and no call failed.
"""

import argparse
import asyncio
import json
import os
import re
import re._parser as sre_parse
import sys
import time

import jsonschema
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

# One call's bound: a tool that does not answer in this time failed.
CALL_SECONDS = 60
# How long to wait for Prism to log the requests of a call.
LOG_SECONDS = 5

FORMATS = {
    "date-time": "2026-01-02T03:04:05Z",
    "date": "2026-01-02",
    "time": "03:04:05Z",
    "uuid": "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f",
    "email": "ada@example.com",
    "idn-email": "ada@example.com",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "uri-reference": "https://example.com/a",
    "iri": "https://example.com/a",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
    "byte": "YWJj",
}


# --- values valid for a schema ------------------------------------------------------------


def resolve(schema, root, depth=0):
    """`schema` with its `$ref` (into the root's `$defs`) followed; sibling keywords win."""
    while isinstance(schema, dict) and "$ref" in schema and depth < 20:
        name = schema["$ref"].split("/")[-1]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**root.get("$defs", {}).get(name, {}), **rest}
        depth += 1
    return schema


def flatten(schema, root, depth=0):
    """`schema` with its `allOf` parts merged into it: properties and required lists
    joined, other keywords taken from the first part that has them."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict) or "allOf" not in schema or depth > 10:
        return schema
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema["allOf"]:
        part = flatten(part, root, depth + 1)
        if not isinstance(part, dict):
            continue
        for key, item in part.items():
            if key == "properties":
                merged.setdefault("properties", {}).update(item)
            elif key == "required":
                merged.setdefault("required", []).extend(item)
            else:
                merged.setdefault(key, item)
    return merged


def valid(instance, schema, root):
    """Whether `instance` is valid for `schema` (a part of `root`, whose `$defs` it uses)."""
    try:
        whole = dict(schema) if isinstance(schema, dict) else schema
        if isinstance(whole, dict):
            whole["$defs"] = root.get("$defs", {})
        jsonschema.Draft202012Validator(whole).validate(instance)
        return True
    except (jsonschema.ValidationError, jsonschema.SchemaError, RecursionError):
        return False


def pattern_text(pattern, low, high):
    """A short string `pattern` (a regular expression) accepts, made from its parsed form
    with the fewest repetitions that reach `low` characters; None when that fails."""
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, ValueError):
        return None

    def made(items, extra):
        out = []
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(arg))
            elif name == "NOT_LITERAL":
                out.append("a" if arg != ord("a") else "b")
            elif name == "ANY":
                out.append("a")
            elif name == "IN":
                out.append(in_class(arg))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                least, most, body = arg
                count = least + extra
                if str(most) != "MAXREPEAT":
                    count = min(count, most)
                out.append("".join(made(body, extra) for _ in range(count)))
            elif name == "SUBPATTERN":
                out.append(made(arg[-1], extra))
            elif name == "ATOMIC_GROUP":
                out.append(made(arg, extra))
            elif name == "BRANCH":
                out.append(made(arg[1][0], extra))
            elif name == "CATEGORY":
                out.append(category(arg))
            # Anchors, look-arounds and back references add nothing.
        return "".join(out)

    def category(which):
        name = str(which)
        if "NOT_DIGIT" in name or "NOT_WORD" in name:
            return "-"
        if "NOT_SPACE" in name:
            return "a"
        if "DIGIT" in name:
            return "1"
        if "SPACE" in name:
            return " "
        return "a"

    def in_class(members):
        if members and str(members[0][0]) == "NEGATE":
            banned = set()
            for op, arg in members[1:]:
                if str(op) == "LITERAL":
                    banned.add(chr(arg))
                elif str(op) == "RANGE":
                    banned.update(chr(c) for c in range(arg[0], arg[1] + 1))
            return next((c for c in "aA1-_x" if c not in banned), "~")
        for op, arg in members:
            if str(op) == "LITERAL":
                return chr(arg)
            if str(op) == "RANGE":
                # A letter or digit inside the range when there is one.
                for preferred in "a1A":
                    if arg[0] <= ord(preferred) <= arg[1]:
                        return preferred
                return chr(arg[0])
            if str(op) == "CATEGORY":
                return category(arg)
        return "a"

    for extra in range(0, max(2, low + 1)):
        try:
            text = made(list(parsed), extra)
        except (RecursionError, ValueError, OverflowError):
            return None
        if len(text) < low:
            continue
        if high is not None and len(text) > high:
            return None
        try:
            if re.search(pattern, text):
                return text
        except re.error:
            return None
        return None
    return None


class Maker:
    """Makes deterministic values valid for the schemas of one tool's input, and notes
    which kinds of value it made (arrays, enum members, nested objects, formats)."""

    def __init__(self, root):
        self.root = root
        self.made = set()

    def value(self, schema, depth=0, variant=0):
        """A value valid for `schema`; `variant` makes the n-th of several distinct ones
        (for arrays whose items must be unique)."""
        schema = resolve(schema, self.root)
        if schema is True or schema == {} or not isinstance(schema, dict):
            return f"x{variant}" if variant else "x"
        if depth > 8:
            return None
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            members = [m for m in schema["enum"] if m is not None] or schema["enum"]
            self.made.add("enum")
            return members[variant % len(members)]
        for key in ("examples", "x-examples"):
            found = schema.get(key)
            if isinstance(found, list) and not variant:
                for example in found:
                    if valid(example, schema, self.root):
                        return example
        if "example" in schema and not variant and valid(schema["example"], schema, self.root):
            return schema["example"]
        if "default" in schema and not variant and valid(schema["default"], schema, self.root):
            return schema["default"]
        for key in ("oneOf", "anyOf"):
            if key in schema:
                rest = {k: v for k, v in schema.items() if k != key}
                branches = [b for b in schema[key] if resolve(b, self.root).get("type") != "null"]
                for branch in branches:
                    candidate = self.value(merge(rest, resolve(branch, self.root)), depth + 1, variant)
                    if valid(candidate, schema, self.root):
                        return candidate
                if branches:
                    return self.value(branches[0], depth + 1, variant)
        if "allOf" in schema:
            return self.value(flatten(schema, self.root), depth + 1, variant)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            if "properties" in schema or "additionalProperties" in schema:
                kind = "object"
            elif "items" in schema:
                kind = "array"
            else:
                kind = "string"
        if kind == "null":
            return None
        if kind == "string":
            return self.text(schema, variant)
        if kind in ("integer", "number"):
            return number(schema, kind, variant)
        if kind == "boolean":
            return variant % 2 == 0
        if kind == "array":
            return self.array(schema, depth, variant)
        if kind == "object":
            return self.object(schema, depth, variant)
        return "x"

    def text(self, schema, variant):
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        fmt = schema.get("format")
        if fmt in FORMATS:
            self.made.add(f"format:{fmt}")
            text = FORMATS[fmt]
            if variant and fmt in ("email", "uri", "url", "hostname", "uri-reference", "iri"):
                text = text.replace("example", f"example{variant}")
            elif variant and fmt == "uuid":
                text = text[:-2] + f"{variant % 100:02d}"
            return text
        if "pattern" in schema:
            found = pattern_text(schema["pattern"], low, high)
            if found is not None:
                return found
        text = "abc" + (str(variant) if variant else "")
        text = text + "a" * max(0, low - len(text))
        return text[:high] if high is not None else text

    def array(self, schema, depth, variant):
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        count = max(1, low)
        if high is not None:
            count = min(count, high)
        items = []
        for i, part in enumerate(schema.get("prefixItems", [])[:count]):
            items.append(self.value(part, depth + 1, variant + i))
        item_schema = schema.get("items", {})
        while len(items) < count:
            items.append(self.value(item_schema, depth + 1, variant + len(items)))
        if items:
            self.made.add("array")
        return items

    def object(self, schema, depth, variant):
        schema = flatten(schema, self.root)
        props = schema.get("properties", {}) or {}
        required = [n for n in schema.get("required", []) if n in props or not props]
        # Every required property, and a few optional ones (arrays, enums and objects
        # first), so bodies and arrays are exercised without sending everything.
        # The framework's own arguments are never made up: a retry key is set below, and a
        # page cursor only ever comes from the page before.
        optional = [
            n for n in props if n not in required and n != "idempotencyKey" and not (depth == 0 and n == "cursor")
        ]
        optional.sort(key=lambda n: (0 if interesting(props[n], self.root) else 1, list(props).index(n)))
        chosen = set(required) | set(optional[:3])
        out = {}
        for name in props:
            if name in chosen:
                made = self.value(props[name], depth + 1, variant)
                if made is not None or name in required:
                    out[name] = made
        for name in required:
            if name not in out:
                out[name] = self.value(schema.get("additionalProperties", {}), depth + 1, variant)
        extra = schema.get("additionalProperties")
        if not out and schema.get("minProperties", 0) > 0 and extra not in (None, False):
            out["key"] = self.value(extra if isinstance(extra, dict) else {}, depth + 1, variant)
        if out and depth > 0:
            self.made.add("object")
        return out


def merge(outer, branch):
    """A branch of a `oneOf`/`anyOf` with the keywords beside it (properties joined)."""
    merged = {**outer, **branch}
    if "properties" in outer and "properties" in branch:
        merged["properties"] = {**outer["properties"], **branch["properties"]}
    if "required" in outer and "required" in branch:
        merged["required"] = list(dict.fromkeys(outer["required"] + branch["required"]))
    return merged


def interesting(schema, root):
    """Whether an optional property is worth sending: an array, an enum or an object."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return False
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, []):
            if interesting(branch, root):
                return True
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return "enum" in schema or "array" in kinds or "object" in kinds or "properties" in schema


def number(schema, kind, variant):
    """The smallest number near 1 (plus `variant`) inside the schema's bounds."""
    low = schema.get("minimum")
    high = schema.get("maximum")
    step = 1 if kind == "integer" else 0.5
    exclusive_low = schema.get("exclusiveMinimum")
    exclusive_high = schema.get("exclusiveMaximum")
    # OpenAPI 3.0's boolean form, should one reach a published schema.
    if exclusive_low is True and low is not None:
        exclusive_low, low = low, None
    if exclusive_high is True and high is not None:
        exclusive_high, high = high, None
    if isinstance(exclusive_low, (int, float)) and not isinstance(exclusive_low, bool):
        low = max(low, exclusive_low + step) if low is not None else exclusive_low + step
    if isinstance(exclusive_high, (int, float)) and not isinstance(exclusive_high, bool):
        high = min(high, exclusive_high - step) if high is not None else exclusive_high - step
    chosen = 1 + variant
    if low is not None and chosen < low:
        chosen = low + variant
    if high is not None and chosen > high:
        chosen = high
    multiple = schema.get("multipleOf")
    if multiple:
        steps = -(-chosen // multiple)
        chosen = steps * multiple
        if high is not None and chosen > high:
            chosen = (high // multiple) * multiple
    if kind == "integer":
        return int(chosen)
    return float(chosen)


def arguments_for(tool_name, schema):
    """Arguments for one tool, the kinds of value among them, and whether they are valid
    for the tool's input schema (a harness fault when not)."""
    maker = Maker(schema)
    arguments = maker.value(schema)
    if not isinstance(arguments, dict):
        arguments = {}
    if "idempotencyKey" in (schema.get("properties") or {}):
        arguments["idempotencyKey"] = f"prism-{tool_name}"
    return arguments, maker.made, valid(arguments, schema, schema)


# --- Prism's log ------------------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")
RECEIVED = re.compile(r"\[HTTP SERVER\] (\w+) (\S+) .*Request received")


class PrismLog:
    """Prism's debug log, read as it grows: the requests that reached it since a mark."""

    def __init__(self, path):
        self.path = path

    def size(self):
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    def read(self, start):
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    async def since(self, start, expect_request):
        """The requests logged after offset `start`, once Prism has logged its verdict on
        each (and the log has stopped growing), or when the bound runs out."""
        deadline = time.monotonic() + (LOG_SECONDS if expect_request else 0.3)
        last_size, stable_since = -1, time.monotonic()
        while True:
            size = self.size()
            if size != last_size:
                last_size, stable_since = size, time.monotonic()
            requests = parse(self.read(start))
            settled = time.monotonic() - stable_since > 0.15
            if requests and all(r["verdict"] for r in requests) and settled:
                return requests
            if time.monotonic() > deadline:
                return requests
            await asyncio.sleep(0.05)


def parse(text):
    """The requests in a piece of Prism's log: method, path, headers, body, verdict and the
    violations Prism named."""
    requests = []
    current = None
    in_headers = False
    for raw in text.splitlines():
        line = ANSI.sub("", raw)
        found = RECEIVED.search(line)
        if found:
            current = {
                "method": found.group(1).upper(),
                "path": found.group(2),
                "headers": {},
                "body": None,
                "verdict": None,
                "violations": [],
            }
            requests.append(current)
            in_headers = False
            continue
        if current is None:
            continue
        if "< Headers:" in line:
            in_headers = True
            continue
        if "< \t" in line and in_headers:
            name, _, val = line.split("< \t", 1)[1].partition(": ")
            current["headers"][name.strip().lower()] = val.strip()
            continue
        in_headers = False
        if "< Body:" in line:
            current["body"] = line.split("< Body:", 1)[1].strip()
        elif "The request passed the validation rules" in line:
            current["verdict"] = "passed"
        elif "Request did not pass the validation rules" in line:
            current["verdict"] = "invalid"
        elif "[VALIDATOR]" in line and "error" in line:
            current["violations"].append(line.split("error", 1)[1].strip())
    return requests


def templates_of(document):
    """The document's paths as patterns, so a logged path names its operation's template."""
    try:
        with open(document) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return []
    out = []
    for template in doc.get("paths", {}) or {}:
        bare = template.split("#", 1)[0].split("?", 1)[0]
        pattern = "^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(bare)) + "/?$"
        out.append((re.compile(pattern), template))
    # Fixed segments before parameters: `/items/count` is not `/items/{id}`.
    out.sort(key=lambda pair: pair[1].count("{"))
    return out


def template_for(path, templates):
    for pattern, template in templates:
        if pattern.match(path):
            return template
    return None


# --- the calls --------------------------------------------------------------------------

FAILING = ("invalid_request", "refused_422", "refused_auth", "schema", "bad_answer", "no_request", "broken")
ACCEPTED_KINDS = ("accepted", "prism_5xx", "api_4xx")


async def call_all(label, document, log_path, command):
    log = PrismLog(log_path)
    templates = templates_of(document)
    asked = []

    async def on_elicit(context, params):
        asked.append(getattr(params, "message", ""))
        return types.ElicitResult(action="accept", content={"confirm": True})

    calls = []
    # The SDK gives a server only a few variables by default; the base URL and the
    # credentials are in this environment.
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with Client(server, mode="2026-07-28", elicitation_callback=on_elicit) as client:
        tools = []
        cursor = None
        while True:
            listed = await client.list_tools(cursor=cursor)
            tools.extend(listed.tools)
            cursor = listed.next_cursor
            if not cursor:
                break
        async def call(name, label, arguments, made, output):
            """One call of the tool `name` (recorded as `label`), judged by its result and
            by what reached Prism; its record and result."""
            record = {"tool": label, "arguments": arguments, "made": sorted(made)}
            calls.append(record)
            start = log.size()
            asked_before = len(asked)
            result = None
            try:
                result = await asyncio.wait_for(client.call_tool(name, arguments), CALL_SECONDS)
            except asyncio.TimeoutError:
                record.update(kind="broken", why=f"no answer in {CALL_SECONDS} s")
            except Exception as error:  # noqa: BLE001 - the SDK's refusal, reported
                record.update(kind="broken", why=f"{type(error).__name__}: {error}"[:400])
            record["confirmed"] = len(asked) > asked_before
            sent = result is not None and not (
                result.is_error
                and ((result.structured_content or {}).get("error") or {}).get("code")
                in ("invalid_arguments", "not_confirmed")
            )
            requests = await log.since(start, sent)
            for request in requests:
                request["template"] = template_for(request["path"], templates)
            record["requests"] = requests
            if result is not None:
                judge(record, result, output)
            if any(r["verdict"] != "passed" for r in requests) and record.get("kind") not in ("broken",):
                bad = next(r for r in requests if r["verdict"] != "passed")
                record.update(
                    kind="invalid_request",
                    why=f"Prism: {bad['method']} {bad['path']}: "
                    + ("; ".join(bad["violations"]) or f"verdict {bad['verdict']}"),
                )
            if record.get("kind") in ACCEPTED_KINDS and not requests:
                record.update(kind="no_request", why="the call succeeded but Prism saw no request")
            return record, result

        for tool in sorted(tools, key=lambda t: t.name):
            described = tool.model_dump(by_alias=True, exclude_none=True)
            schema = described.get("inputSchema") or {}
            output = described.get("outputSchema")
            arguments, made, well_made = arguments_for(tool.name, schema)
            if not well_made:
                calls.append(
                    {
                        "tool": tool.name,
                        "arguments": arguments,
                        "made": sorted(made),
                        "kind": "broken",
                        "why": "the harness made arguments its input schema refuses",
                    }
                )
                continue
            record, result = await call(tool.name, tool.name, arguments, made, output)
            # A paged tool's next page, through the cursor the first one handed back.
            following = (result.structured_content or {}) if result is not None and not result.is_error else {}
            if record.get("kind") == "accepted" and isinstance(following.get("nextCursor"), str):
                cursor = following["nextCursor"]
                await call(tool.name, f"{tool.name} (next page)", {**arguments, "cursor": cursor}, made, output)
    return calls


def judge(record, result, output):
    """Sort one result: its kind, and why when it failed."""
    structured = result.structured_content
    error = (structured or {}).get("error") if isinstance(structured, dict) else None
    code = (error or {}).get("code", "") if result.is_error else ""
    text = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
    if output is not None and structured is not None:
        validator = jsonschema.Draft202012Validator(output)
        problem = jsonschema.exceptions.best_match(validator.iter_errors(structured))
        if problem is not None:
            record.update(kind="schema", why=f"{problem.json_path}: {problem.message}"[:400])
            return
    if not result.is_error:
        if output is not None and structured is None:
            record.update(kind="schema", why="an output schema but no structured content")
        else:
            record["kind"] = "accepted"
        return
    record["code"] = code
    if code == "http_422":
        detail = json.dumps(error.get("detail")) if error.get("detail") is not None else ""
        record.update(kind="refused_422", why=f"{text} {detail}"[:400])
    elif code in ("http_401", "http_403"):
        record.update(kind="refused_auth", why=f"a credential was not sent: {text}")
    elif code == "api_failed":
        record["kind"] = "prism_5xx"
    elif code.startswith("http_"):
        record["kind"] = "api_4xx"
    elif code == "bad_answer":
        record.update(kind="bad_answer", why=text[:400])
    elif code in ("invalid_arguments", "not_confirmed"):
        record.update(kind="no_request", why=f"{code}: {text}"[:400])
    else:
        record.update(kind="broken", why=f"{code}: {text}"[:400])


def tally(label, calls):
    """One document's numbers: kinds of outcome, and what the accepted requests covered."""
    counts = {"called": len(calls)}
    for kind in ACCEPTED_KINDS + FAILING:
        counts[kind] = sum(1 for c in calls if c.get("kind") == kind)
    counts["failed"] = sum(counts[k] for k in FAILING)
    passed = [c for c in calls if c.get("kind") in ACCEPTED_KINDS]
    counts["prism_ok"] = len(passed)
    cover = {
        "body": sum(1 for c in passed if any(r["body"] for r in c["requests"])),
        "array": sum(1 for c in passed if "array" in c["made"]),
        "enum": sum(1 for c in passed if "enum" in c["made"]),
        "path": sum(1 for c in passed if any("{" in (r["template"] or "") for r in c["requests"])),
        "delete": sum(
            1 for c in passed if c.get("confirmed") and any(r["method"] == "DELETE" for r in c["requests"])
        ),
        "idem_post": sum(
            1
            for c in passed
            if c["arguments"].get("idempotencyKey")
            and any(
                r["method"] == "POST" and r["headers"].get("idempotency-key") == c["arguments"]["idempotencyKey"]
                for r in c["requests"]
            )
        ),
    }
    methods = {}
    for c in passed:
        for r in c["requests"]:
            methods[r["method"]] = methods.get(r["method"], 0) + 1
    return {"label": label, "counts": counts, "cover": cover, "methods": methods}


HEAD = ("called", "prism_ok", "accepted", "prism_5xx", "api_4xx", "failed")
COVER = ("body", "array", "enum", "path", "delete", "idem_post")


def table(rows):
    width = max([len(r["label"]) for r in rows] + [8])
    print(f"{'document':<{width}} " + " ".join(f"{h:>9}" for h in HEAD + COVER) + "  seconds")
    for row in rows:
        cells = [row["counts"][h] for h in HEAD] + [row["cover"][h] for h in COVER]
        print(f"{row['label']:<{width}} " + " ".join(f"{c:>9}" for c in cells) + f"  {row.get('seconds', 0):>7.1f}")


def command_call(args):
    started = time.monotonic()
    calls = asyncio.run(call_all(args.label, args.document, args.prism_log, args.command))
    row = tally(args.label, calls)
    row["seconds"] = round(time.monotonic() - started, 1)
    for call in calls:
        if call.get("kind") in FAILING:
            print(f"FAIL {args.label} {call['tool']}: {call['kind']}: {call.get('why', '')}")
            print(f"     arguments: {json.dumps(call['arguments'])[:300]}")
            for request in call.get("requests", []):
                print(f"     sent: {request['method']} {request['path']} body {str(request['body'])[:200]}")
        elif call.get("kind") != "accepted":
            print(f"note {args.label} {call['tool']}: {call.get('kind')} {call.get('code', '')}")
    table([row])
    with open(args.out, "w") as f:
        json.dump({**row, "calls": calls}, f, indent=1)
    return 1 if row["counts"]["failed"] else 0


def command_summary(args):
    rows = []
    for path in args.results:
        with open(path) as f:
            rows.append(json.load(f))
    if not rows:
        print("no results to sum up", file=sys.stderr)
        return 1
    total = {"label": "all", "counts": {}, "cover": {}, "seconds": sum(r.get("seconds", 0) for r in rows)}
    for part in ("counts", "cover"):
        for row in rows:
            for key, count in row[part].items():
                total[part][key] = total[part].get(key, 0) + count
    table(rows + [total])
    methods = {}
    for row in rows:
        for method, count in row["methods"].items():
            methods[method] = methods.get(method, 0) + count
    print("requests Prism accepted, by method: " + ", ".join(f"{m} {n}" for m, n in sorted(methods.items())))
    problems = []
    if total["counts"]["failed"]:
        problems.append(f"{total['counts']['failed']} call(s) failed (FAIL lines above)")
    if total["counts"]["prism_ok"] < args.min_calls:
        problems.append(f"only {total['counts']['prism_ok']} calls had every request accepted; at least {args.min_calls} are asked for")
    documents = len({r["label"].split(":")[0] for r in rows if r["counts"]["prism_ok"]})
    if documents < args.min_documents:
        problems.append(f"only {documents} documents had calls accepted; at least {args.min_documents} are asked for")
    for key in COVER:
        if not total["cover"][key]:
            problems.append(f"no accepted call covered: {key}")
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    call = sub.add_parser("call", help="call every tool of one server")
    call.add_argument("--label", required=True)
    call.add_argument("--document", required=True, help="the document Prism serves")
    call.add_argument("--prism-log", required=True, help="Prism's log (debug level)")
    call.add_argument("--out", required=True, help="where the JSON result goes")
    call.add_argument("command", nargs="+", help="the server's command (stdio), after --")
    summary = sub.add_parser("summary", help="sum up the results of several runs")
    summary.add_argument("--min-calls", type=int, default=50)
    summary.add_argument("--min-documents", type=int, default=4)
    summary.add_argument("results", nargs="*")
    args = parser.parse_args()
    sys.exit(command_call(args) if args.what == "call" else command_summary(args))


if __name__ == "__main__":
    main()
