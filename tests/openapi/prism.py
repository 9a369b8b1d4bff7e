"""Call every tool of a server `mcp openapi` generated, through the official Python SDK
client (mcp 2.3.0), while Prism serves the document it was generated from.

    prism.py LABEL SERVER_BINARY

Arguments are made from each tool's input schema (examples, defaults, enums, then the
type's rules), a confirmation is accepted, and the check is that Prism accepted every
request (no `http_422`: Prism's answer to a request that breaks the document), that no
credential was missing (no `http_401`/`http_403`), and that every successful result's
structured content is valid for the tool's output schema. Prism's own failures to make an
answer (500, from examples that break the document's response schemas) are counted apart.
"""

import asyncio
import os
import sys

import jsonschema
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

FORMATS = {
    "date-time": "2026-01-02T03:04:05Z",
    "date": "2026-01-02",
    "uuid": "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f",
    "email": "ada@example.com",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "ipv4": "192.0.2.1",
    "hostname": "example.com",
}


def resolve(schema, root, depth=0):
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
        for key, item in part.items():
            if key == "properties":
                merged.setdefault("properties", {}).update(item)
            elif key == "required":
                merged.setdefault("required", []).extend(item)
            else:
                merged.setdefault(key, item)
    return merged


def matching(pattern, low, high):
    """A short string `pattern` accepts, from a few shapes, or None."""
    import re
    for candidate in ["abc", "123456789012", "1", "a", "A1", "ABC", "abc-123", "2026-01-02", "a@b.co", "us-east-1"]:
        candidate = candidate + "0" * max(0, low - len(candidate))
        if high is not None and len(candidate) > high:
            continue
        try:
            if re.search(pattern, candidate):
                return candidate
        except re.error:
            return None
    return None


def value(schema, root, depth=0):
    """A value valid for `schema`, deterministic."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict) or depth > 6:
        return "x"
    for key in ("const",):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return next((v for v in schema["enum"] if v is not None), schema["enum"][0])
    if "examples" in schema and schema["examples"]:
        example = schema["examples"][0]
        try:
            jsonschema.Draft202012Validator({**schema, "$defs": root.get("$defs", {})}).validate(example)
            return example
        except Exception:
            pass
    if "default" in schema:
        return schema["default"]
    for key in ("oneOf", "anyOf"):
        if key in schema:
            branches = [b for b in schema[key] if resolve(b, root).get("type") != "null"]
            if branches:
                return value(branches[0], root, depth + 1)
    if "allOf" in schema:
        return value(flatten(schema, root), root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "string":
        if schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if "pattern" in schema:
            found = matching(schema["pattern"], low, high)
            if found is not None:
                return found
        text = "abc"
        text = text + "a" * max(0, low - len(text))
        return text[:high] if high else text
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in schema else 0))
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 10) - (1 if "exclusiveMaximum" in schema else 0))
        chosen = max(low, min(high, max(low, 1)))
        return int(chosen) if kind == "integer" else float(chosen)
    if kind == "boolean":
        return True
    if kind == "array":
        count = max(1, schema.get("minItems", 1))
        return [value(schema.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind == "object":
        out = {}
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        for i, (name, sub) in enumerate(props.items()):
            # Every required property, and the first optional ones, so bodies and arrays
            # are exercised without sending everything.
            if name in required or i < 3:
                if name == "idempotencyKey":
                    continue
                out[name] = value(sub, root, depth + 1)
        return out
    return "x"


async def on_elicit(context, params):
    return types.ElicitResult(action="accept", content={"confirm": True})


async def main(label, binary):
    counts = {"called": 0, "accepted": 0, "422": 0, "auth": 0, "prism": 0, "other": 0, "schema": 0}
    # The SDK gives a server only a few variables by default; the base URL and the
    # credentials are in the environment.
    server = StdioServerParameters(command=binary, args=["--stdio"], env=dict(os.environ))
    async with Client(server, mode="2026-07-28", elicitation_callback=on_elicit) as client:
        listed = await client.list_tools()
        for tool in listed.tools:
            described = tool.model_dump(by_alias=True)
            schema = described.get("inputSchema") or {}
            arguments = value(schema, schema)
            if "idempotencyKey" in schema.get("properties", {}):
                arguments["idempotencyKey"] = f"prism-{tool.name}"
            counts["called"] += 1
            try:
                result = await client.call_tool(tool.name, arguments)
            except Exception as error:  # a protocol error: the server refused the call
                counts["other"] += 1
                print(f"note {label} {tool.name}: refused: {error}")
                continue
            structured = result.structured_content
            if result.is_error:
                code = ((structured or {}).get("error") or {}).get("code", "")
                if code == "http_422":
                    counts["422"] += 1
                    print(f"FAIL {label} {tool.name}: Prism refused our request: {result.content[0].text} {structured}")
                elif code in ("http_401", "http_403"):
                    counts["auth"] += 1
                    print(f"FAIL {label} {tool.name}: no credential sent: {structured}")
                elif code == "api_failed":
                    counts["prism"] += 1
                else:
                    counts["other"] += 1
                    print(f"note {label} {tool.name}: {code}: {result.content[0].text[:200]}")
                continue
            counts["accepted"] += 1
            output = described.get("outputSchema")
            if output and structured is not None:
                try:
                    jsonschema.Draft202012Validator(output).validate(structured)
                except jsonschema.ValidationError as error:
                    counts["schema"] += 1
                    print(f"FAIL {label} {tool.name}: result does not match outputSchema: {error.message[:200]}")
    print(f"{label}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return counts


counts = asyncio.run(main(sys.argv[1], sys.argv[2]))
failed = counts["422"] or counts["auth"] or counts["schema"]
sys.exit(1 if failed else 0)
