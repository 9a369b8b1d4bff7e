"""Checks `mcp catalog diff` against openapi-diff on real API version pairs.

    catalog_pairs.py [--suggest] [--work DIR] [--pairs FILE] [--expected FILE] [--book FILE]

scripts/catalog-pairs.sh runs the pairs of tests/catalog-pairs/pairs.tsv and leaves, per
pair, in target/catalog-pairs/NAME/: the two OpenAPI documents (old.openapi.json,
new.openapi.json), their snapshots through the gateway (old.json, new.json, `mcp catalog`),
the gateway's logs (old.log, new.log), `mcp catalog diff --json` (ours.json), openapi-diff's
changes (theirs.json, tests/catalog-pairs/theirs.js) and the times (time.json). This
script reads them.

Per tool (operation), ours flags it when any of its changes is breaking or unknown;
openapi-diff flags it when any breaking change it reports on the tool's operation. openapi-diff
reports by method and path, so its changes are mapped onto tool names with a port of the
gateway's naming (below), on the old document, or on the new one for an operation only the
new one has. Every name the port gives must be in the snapshot, or be an operation the
gateway logged as not served. Changes openapi-diff reports under `components` only are not
counted.

tests/catalog-pairs/expected.json holds the reviewed outcome: per pair the number of tools
both flag and every disagreement, with the cause of it (an id of its `causes` map, each of
which book/src/contracts.md explains). The check fails when a disagreement is not listed,
when a listed one no longer occurs, when the count of tools both flag differs, when the
naming port misses, or when the book's section on this check does not name a cause id, or
its table of pairs or its counts of tools per cause differ from this run.

After an intended change, `--suggest` prints the current rows as the whole file's JSON (and
writes it to target/catalog-pairs/expected.suggested.json): causes are kept for the rows
that had one, new rows get "?", and the findings of each "?" row are printed to stderr with
the cause the rules below guess for it. Label them, then copy the file over expected.json.

Python 3.11, standard library only.
"""

import argparse
import json
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = "mcp"
THEIRS = "openapi-diff"
BOOK_SECTION = "Checked against an independent tool"


# --- The gateway's tool names ---------------------------------------------------------
# A port of mcp-openapi's naming (src/names.rs `tool_name`, `snake`, `shorten`, `unique`;
# src/map/curate.rs `name_tools`, without a curation file) and of heck 0.5's snake_case.

METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]  # Method::ALL
MAX_TOOL_NAME = 64


def _heck_words(text):
    """heck 0.5 `transform`: split on non-alphanumerics, then on case boundaries."""
    words = []
    for word in re.split(r"[^0-9A-Za-z]", text):
        init, mode = 0, None  # mode: None (boundary), "l" (lower), "u" (upper)
        for i, c in enumerate(word):
            if i + 1 == len(word):
                words.append(word[init:])
                break
            nxt = word[i + 1]
            next_mode = "l" if c.islower() else "u" if c.isupper() else mode
            if next_mode == "l" and nxt.isupper():
                words.append(word[init:i + 1])
                init, mode = i + 1, None
            elif mode == "u" and c.isupper() and nxt.islower():
                words.append(word[init:i])
                init, mode = i, None
            else:
                mode = next_mode
    return [w for w in words if w]


def snake(text):
    ascii_ = "".join(c if c.isascii() and c.isalnum() else " " for c in text)
    name = "_".join(w.lower() for w in _heck_words(ascii_))
    return "n_" + name if name[:1].isdigit() else name


def shorten(name, most):
    if len(name) <= most:
        return name
    cut = name[:most]
    at = cut.rfind("_")
    return cut[:at] if at > most // 2 else cut


def tool_name(operation_id, method, path):
    base = snake(operation_id) if isinstance(operation_id, str) else ""
    if not base:
        words = [w for w in (s.strip("{}") for s in path.split("/")) if w]
        base = snake(f"{method} {' '.join(words)}")
    return shorten(base, MAX_TOOL_NAME)


def unique(name, taken):
    if name not in taken:
        return name
    i = 2
    while True:
        suffix = f"_{i}"
        candidate = shorten(name, max(MAX_TOOL_NAME - len(suffix), 0)) + suffix
        if candidate not in taken:
            return candidate
        i += 1


def tool_names(doc, prefix="x."):
    """{(method, path): tool name} for every operation of `doc`, in the mapper's order
    (paths sorted, as serde_json reads them, then methods in Method::ALL's order)."""
    taken, names = set(), {}
    for path in sorted((doc.get("paths") or {}).keys()):
        item = doc["paths"][path]
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                route = path.split("#", 1)[0] or "/"
                name = unique(tool_name(op.get("operationId"), method, route), taken)
                taken.add(name)
                names[(method, path)] = prefix + name
    return names


def not_served(log_path):
    """Operations the gateway logged as not served: {(method, path): reason}."""
    try:
        with open(log_path) as f:
            text = f.read()
    except OSError:
        return {}
    found = re.finditer(r"operation not served .*?operation=(\w+) (\S+) reason=(.*)", text)
    return {(m.group(1).lower(), m.group(2)): m.group(3).strip() for m in found}


# --- One pair -------------------------------------------------------------------------

def shown(path):
    """A path as messages show it: relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def load(path):
    with open(path) as f:
        return json.load(f)


def read_pairs(path):
    """[(name, old release, file under api/, extra flags)] from pairs.tsv."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            out.append((cols[0], cols[1], cols[2], cols[3] if len(cols) > 3 else ""))
    return out


def compare(work, name):
    """What each side flags in one pair, per tool, and what went wrong with the naming."""
    d = os.path.join(work, name)
    old_doc, new_doc = load(f"{d}/old.openapi.json"), load(f"{d}/new.openapi.json")
    old_cat, new_cat = load(f"{d}/old.json"), load(f"{d}/new.json")
    ours, theirs = load(f"{d}/ours.json"), load(f"{d}/theirs.json")
    old_names, new_names = tool_names(old_doc), tool_names(new_doc)
    old_skip, new_skip = not_served(f"{d}/old.log"), not_served(f"{d}/new.log")
    problems = []

    # The port names exactly the snapshot's tools, apart from operations not served.
    for side, names, cat, skip in (("old", old_names, old_cat, old_skip),
                                   ("new", new_names, new_cat, new_skip)):
        tools = set(cat.get("tools", {}))
        missing = sorted(n for k, n in names.items() if n not in tools and k not in skip)
        extra = sorted(tools - set(names.values()))
        if missing or extra:
            problems.append(f"{name}: the tool naming port (scripts/lib/catalog_pairs.py) "
                            f"disagrees with the gateway on the {side} document: names it "
                            f"gives that the snapshot lacks {missing[:10]}, snapshot tools it "
                            f"does not give {extra[:10]}")

    ours_by = defaultdict(list)
    for c in ours.get("changes", []):
        parts = c["pointer"].split("/")
        if len(parts) >= 3 and parts[1] == "tools":
            ours_by[parts[2].replace("~1", "/").replace("~0", "~")].append(c)

    # A change openapi-diff reports only under `components` names no operation: not counted.
    theirs_by = defaultdict(list)
    for c in theirs.get("changes", []):
        mapped = []
        for op in c.get("ops", []):
            key = (op["method"], op["path"])
            t = old_names.get(key) or new_names.get(key)
            if t is None:
                if c["class"] == "breaking":
                    problems.append(f"{name}: openapi-diff's breaking change {c['code']} at "
                                    f"{c['location']} names {op['method'].upper()} {op['path']}, "
                                    f"which neither document has")
            elif t not in mapped:
                mapped.append(t)
        for t in mapped:
            theirs_by[t].append(c)

    ops = {}
    for names in (new_names, old_names):
        ops.update({t: f"{m.upper()} {p}" for (m, p), t in names.items()})
    served_not = {old_names.get(k) for k in old_skip} | {new_names.get(k) for k in new_skip}
    tools = {}
    for t in sorted(set(ours_by) | set(theirs_by)):
        o = [c for c in ours_by.get(t, []) if c["class"] in ("breaking", "unknown")]
        th = [c for c in theirs_by.get(t, []) if c["class"] == "breaking"]
        if o or th:
            tools[t] = {
                "ours": o, "theirs": th,
                "ours_other": [c for c in ours_by.get(t, []) if c not in o],
                "theirs_other": [c for c in theirs_by.get(t, []) if c not in th],
                "op": ops.get(t), "not_served": t in served_not,
                "in_old": t in old_cat.get("tools", {}), "in_new": t in new_cat.get("tools", {}),
            }
    both = sorted(t for t, r in tools.items() if r["ours"] and r["theirs"])
    rows = [{"tool": t, "flagged_by": OURS if r["ours"] else THEIRS}
            for t, r in tools.items() if not (r["ours"] and r["theirs"])]
    try:
        time = load(f"{d}/time.json")
    except OSError:
        time = {}
    return {
        "name": name,
        "versions": " → ".join(str(d.get("info", {}).get("version")) for d in (old_doc, new_doc)),
        "tools_old": len(old_cat.get("tools", {})), "tools_new": len(new_cat.get("tools", {})),
        "both": both, "rows": rows, "tools": tools, "problems": problems,
        "time": time,
        "ctx": {"old_doc": old_doc, "new_doc": new_doc, "new_names": new_names},
    }


# --- Findings, and a guess at their cause ---------------------------------------------

def findings(row, limit=8):
    """Both sides' findings for one tool, as lines to print."""
    served = " (not served by the gateway)" if row["not_served"] else ""
    lines = [f"    operation: {row['op'] or '?'}{served}"]
    for label, flagged, other in ((OURS, row["ours"], row["ours_other"]),
                                  (THEIRS, row["theirs"], row["theirs_other"])):
        if not flagged and not other:
            lines.append(f"    {label}: nothing")
            continue
        shown = flagged[:limit] + other[:max(0, limit - len(flagged))]
        for c in shown:
            if label == OURS:
                lines.append(f"    {label}: {c['class']} {c['pointer']}: {c['message'][:300]}")
            else:
                detail = f" {c['detail'][:200]}" if c.get("detail") else ""
                lines.append(f"    {label}: {c['class']} {c['code']} at {c['location']}{detail}")
        if len(flagged) + len(other) > len(shown):
            lines.append(f"    {label}: ... {len(flagged) + len(other) - len(shown)} more")
    return lines


def params_of(doc, op):
    """Names of the parameters (not the body) of `op` ("GET /x")."""
    if not op:
        return set()
    method, path = op.split(" ", 1)
    item = (doc.get("paths") or {}).get(path) or {}
    out = set()
    op_params = (item.get(method.lower()) or {}).get("parameters") or []
    for prm in (item.get("parameters") or []) + op_params:
        if isinstance(prm, dict) and "$ref" in prm:
            node = doc
            for token in prm["$ref"][2:].split("/"):
                node = node.get(token, {}) if isinstance(node, dict) else {}
            prm = node
        if isinstance(prm, dict) and "name" in prm:
            out.add(prm["name"])
    return out


def has_body(doc, op):
    if not op:
        return False
    method, path = op.split(" ", 1)
    item = (doc.get("paths") or {}).get(path) or {}
    return bool((item.get(method.lower()) or {}).get("requestBody"))


def guess(row, ctx):
    """The cause ids the rules guess for a disagreement (from the survey that set the
    expectations up); a maintainer reads the findings before accepting one."""
    out = set()
    if row["not_served"]:
        return ["not-served"]
    if row["ours"] and not row["theirs"]:
        for c in row["ours"]:
            parts, msg = c["pointer"].split("/"), c["message"]
            if len(parts) == 3 and "removed" in msg:
                key = tuple(row["op"].split(" ", 1)) if row["op"] else None
                key = (key[0].lower(), key[1]) if key else None
                out.add("operation-id-renamed" if key in ctx["new_names"] else "?")
            elif "/_meta/" in c["pointer"] and "scopes" in c["pointer"]:
                out.add("scope-added")
            elif "/annotations" in c["pointer"]:
                out.add("?")
            elif (len(parts) > 5 and parts[3] == "inputSchema" and parts[4] == "properties"
                  and parts[5].replace("~1", "/").replace("~0", "~")
                  in params_of(ctx["old_doc"], row["op"]) | params_of(ctx["new_doc"], row["op"])):
                out.add("parameters-not-compared")
            elif "null is now allowed" in msg:
                out.add("nullable-ignored-by-openapi-diff")
            elif "may overlap" in msg:
                out.add("oneof-overlap-unknown")
            elif "cannot be paired" in msg and parts[-1] == "allOf":
                out.add("allof-restructured-unknown")
            elif parts[-1] in ("enum", "const"):
                out.add("enum-ignored-by-openapi-diff")
            elif parts[-1] == "pattern":
                out.add("pattern-ignored-by-openapi-diff")
            elif parts[-1] == "format":
                out.add("format-ignored-by-openapi-diff")
            elif (parts[3:4] == ["inputSchema"] and has_body(ctx["old_doc"], row["op"])
                  and not has_body(ctx["new_doc"], row["op"])):
                out.add("get-body-dropped")
            else:
                out.add("?")
    else:
        # Where ours saw an optional member added to the input: a top-level argument (the
        # body flattened into the tool's closed arguments) or a member of a nested object.
        added = [c["pointer"].split("/") for c in row["ours_other"]
                 if c["class"] == "compatible" and "/inputSchema/" in c["pointer"]
                 and "added" in c["message"]]
        for c in row["theirs"]:
            sig = c.get("signature") or {}
            top, any_but = sig.get("topType"), sig.get("anyBut") or []
            if c["code"] in ("path.remove", "method.remove") and row["in_old"] and row["in_new"]:
                out.add("route-changed-tool-kept")
            elif c["code"] == "request.body.scope.remove":
                # The difference's top level lists other types than object: the body took
                # non-objects before. A member that may now hold "any type but its own": a
                # typed property added to an open object.
                if isinstance(top, list):
                    out.add("body-gained-type-object")
                if any(p for p in any_but) or not isinstance(top, list):
                    if any(len(p) == 6 and p[4] == "properties" for p in added):
                        out.add("property-added-to-flattened-body")
                    elif added:
                        out.add("property-added-to-open-input-object")
                    else:
                        out.add("?")
            elif c["code"] == "response.body.scope.add" and not any_but:
                out.add("field-added-to-closed-output")
            else:
                out.add("?")
    return sorted(out)


# --- expected.json ----------------------------------------------------------------------

def causes_of(row):
    c = row.get("cause")
    return c if isinstance(c, list) else [c]


def dump_expected(expected):
    """expected.json's text: one cause, one pair count and one disagreement a line."""
    def j(x):
        return json.dumps(x, ensure_ascii=False)
    lines = ["{"]
    for key in [k for k in expected if k not in ("causes", "pairs")]:
        lines.append(f"  {j(key)}: {j(expected[key])},")
    causes = expected.get("causes", {})
    lines.append('  "causes": {')
    lines.append(",\n".join(f"    {j(k)}: {j(v)}" for k, v in causes.items()))
    lines.append("  },")
    lines.append('  "pairs": {')
    pair_texts = []
    for name, p in expected.get("pairs", {}).items():
        rows = ",\n".join(f"      {j(r)}" for r in p["disagreements"])
        pair_texts.append(f"    {j(name)}: {{\"both\": {p['both']}, \"disagreements\": ["
                          + (f"\n{rows}\n    ]}}" if rows else "]}"))
    lines.append(",\n".join(pair_texts))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def book_section(path):
    """The text of the chapter's section on this check, or None where it has none."""
    with open(path) as f:
        text = f.read()
    head = re.search(rf"^(#+)\s+{re.escape(BOOK_SECTION)}\s*$", text, re.M)
    if head is None:
        return None
    # The section runs to the next heading of its level or above.
    end = re.compile(rf"^#{{1,{len(head.group(1))}}}\s", re.M).search(text, head.end())
    return text[head.end():end.start() if end else len(text)]


def book_problems(path, causes, results, want_pairs):
    """What the book's section says that this run does not: a cause id it does not name,
    a pair's counts in its table, a cause's count of tools."""
    section = book_section(path)
    if section is None:
        return [f"{shown(path)} has no section \"{BOOK_SECTION}\", which explains every "
                f"cause and shows every pair's counts"]
    problems = []
    named = set(re.findall(r"`([^`\n]+)`", section))
    missing = sorted(set(causes) - named)
    if missing:
        problems.append(f"{shown(path)} does not name the cause id(s) {', '.join(missing)} "
                        f"(each in backticks, in its section \"{BOOK_SECTION}\")")
    # The table: | pair | ... | tools old/new | both | ours only | openapi-diff only |,
    # one row a pair.
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.lstrip().startswith("|") and len(cells) >= 5:
            rows[cells[0]] = cells[-4:]
    for r in results:
        mine = sum(1 for x in r["rows"] if x["flagged_by"] == OURS)
        theirs = sum(1 for x in r["rows"] if x["flagged_by"] == THEIRS)
        have = [f"{r['tools_old']}/{r['tools_new']}", str(len(r["both"])), str(mine), str(theirs)]
        if rows.get(r["name"]) != have:
            problems.append(f"{shown(path)}: the table's row for {r['name']} reads "
                            f"{rows.get(r['name'])} (tools old/new, both, ours only, openapi-diff only), "
                            f"this run {have}")
    # "`cause-id` (N tools)": how many tools have the cause.
    for cause, count in re.findall(r"`([a-z0-9-]+)` \((\d+) tools?\)", section):
        n = sum(1 for p in want_pairs.values() for x in p["disagreements"]
                if cause in causes_of(x))
        if int(count) != n:
            problems.append(f"{shown(path)} says {count} tool(s) have the cause {cause}; "
                            f"expected.json lists {n}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "catalog-pairs"))
    ap.add_argument("--pairs", default=os.path.join(ROOT, "tests", "catalog-pairs", "pairs.tsv"))
    ap.add_argument("--expected",
                    default=os.path.join(ROOT, "tests", "catalog-pairs", "expected.json"))
    ap.add_argument("--book", default=os.path.join(ROOT, "book", "src", "contracts.md"),
                    help="the chapter that must name every cause id in backticks")
    ap.add_argument("--suggest", action="store_true",
                    help="print the current rows as expected.json (causes kept, '?' for new rows)")
    args = ap.parse_args()

    expected = load(args.expected) if os.path.exists(args.expected) else {"causes": {}, "pairs": {}}
    pairs = read_pairs(args.pairs)
    missing = [name for name, *_ in pairs
               if not os.path.exists(os.path.join(args.work, name, "theirs.json"))]
    if missing:
        print(f"no results for {', '.join(missing)} in {shown(args.work)}: "
              f"run scripts/catalog-pairs.sh", file=sys.stderr)
        return 1
    results = [compare(args.work, name) for name, *_ in pairs]
    failures = [p for r in results for p in r["problems"]]

    table = summary(results)
    if args.suggest:
        suggested = suggest(expected, results)
        text = dump_expected(suggested)
        out = os.path.join(args.work, "expected.suggested.json")
        with open(out, "w") as f:
            f.write(text)
        print(table, file=sys.stderr)
        sys.stdout.write(text)
        print(f"\nwritten to {shown(out)}; label the rows with cause \"?\", then copy it over "
              f"{shown(args.expected)}", file=sys.stderr)
        for msg in failures:
            print("FAILED: " + msg, file=sys.stderr)
        return 1 if failures else 0

    failures += check(expected, results, args.book)
    print(table)
    if failures:
        print(f"\n{len(failures)} difference(s) from {shown(args.expected)}:\n", file=sys.stderr)
        for msg in failures:
            print("FAILED: " + msg + "\n", file=sys.stderr)
        print("If the change is intended: scripts/catalog-pairs.sh --suggest (or, on this "
              "run's results, python3 scripts/lib/catalog_pairs.py --suggest) writes "
              "target/catalog-pairs/expected.suggested.json; label its \"?\" rows with a cause "
              "id explained in book/src/contracts.md and copy it over "
              "tests/catalog-pairs/expected.json.", file=sys.stderr)
        return 1
    print(f"\nevery pair as {shown(args.expected)} expects")
    return 0


def summary(results):
    head = ["pair", "versions", "tools old/new", "both", "mcp only", "openapi-diff only",
            "seconds (openapi-diff)"]
    rows = []
    for r in results:
        mine = sum(1 for x in r["rows"] if x["flagged_by"] == OURS)
        theirs = sum(1 for x in r["rows"] if x["flagged_by"] == THEIRS)
        t = r["time"]
        secs = f"{t.get('seconds', '?')} ({t.get('openapi_diff_seconds', '?')})" if t else "?"
        rows.append([r["name"], r["versions"], f"{r['tools_old']}/{r['tools_new']}",
                     str(len(r["both"])), str(mine), str(theirs), secs])
    tools_old = sum(r["tools_old"] for r in results)
    tools_new = sum(r["tools_new"] for r in results)
    totals = ["total", "", f"{tools_old}/{tools_new}",
              str(sum(len(r["both"]) for r in results)),
              str(sum(1 for r in results for x in r["rows"] if x["flagged_by"] == OURS)),
              str(sum(1 for r in results for x in r["rows"] if x["flagged_by"] == THEIRS)), ""]
    widths = [max(len(x[i]) for x in [head, *rows, totals]) for i in range(len(head))]

    def fmt(cols):
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cols, widths)))
    return "\n".join([fmt(head), *(fmt(x) for x in rows), fmt(totals)])


def check(expected, results, book):
    failures = []
    causes = expected.get("causes", {})
    want_pairs = expected.get("pairs", {})
    names = {r["name"] for r in results}
    for name in want_pairs:
        if name not in names:
            failures.append(f"{name}: expected.json has this pair, "
                            f"tests/catalog-pairs/pairs.tsv does not")
    for r in results:
        name = r["name"]
        want = want_pairs.get(name)
        if want is None:
            failures.append(f"{name}: the pair has no entry in expected.json (run with --suggest)")
            continue
        if want["both"] != len(r["both"]):
            failures.append(f"{name}: both tools flag {len(r['both'])} tool(s), expected.json "
                            f"says {want['both']}: {', '.join(r['both']) or 'none'}")
        have = {(x["tool"], x["flagged_by"]) for x in r["rows"]}
        listed = {(x["tool"], x["flagged_by"]): x for x in want["disagreements"]}
        for key in sorted(have - set(listed)):
            tool, by = key
            row = r["tools"][tool]
            failures.append("\n".join([
                f"{name}: {tool} is flagged by {by} only, which expected.json does not list "
                f"(the rules guess the cause {', '.join(guess(row, r['ctx']))})",
                *findings(row)]))
        for key in sorted(set(listed) - have):
            tool, by = key
            row = r["tools"].get(tool)
            if row is None:
                now = "neither flags it"
            elif row["ours"] and row["theirs"]:
                now = "both flag it"
            else:
                now = f"{OURS if row['ours'] else THEIRS} only flags it"
            failures.append("\n".join([
                f"{name}: stale expectation: expected.json lists {tool} as flagged by {by} only "
                f"({', '.join(causes_of(listed[key]))}), now {now}",
                *(findings(row) if row else [])]))
        for x in want["disagreements"]:
            for c in causes_of(x):
                if c not in causes:
                    failures.append(f"{name}: {x['tool']} has the cause {c!r}, which is not in "
                                    f"expected.json's causes")
    failures += book_problems(book, causes, results, want_pairs)
    used = {c for p in want_pairs.values() for x in p["disagreements"] for c in causes_of(x)}
    unused = sorted(set(causes) - used)
    if unused:
        print(f"note: no disagreement has the cause(s) {', '.join(unused)} any more; remove "
              f"them from expected.json and the book if they are gone for good", file=sys.stderr)
    return failures


def suggest(expected, results):
    """expected.json as this run would have it: causes kept, "?" for new rows."""
    old_pairs = expected.get("pairs", {})
    out = {k: v for k, v in expected.items() if k not in ("causes", "pairs")}
    out["causes"] = dict(expected.get("causes", {}))
    out["pairs"] = {}
    for r in results:
        before = old_pairs.get(r["name"], {}).get("disagreements", [])
        listed = {(x["tool"], x["flagged_by"]): x for x in before}
        rows = []
        for x in sorted(r["rows"], key=lambda x: (x["flagged_by"], x["tool"])):
            prev = listed.get((x["tool"], x["flagged_by"]))
            rows.append({"tool": x["tool"], "flagged_by": x["flagged_by"],
                         "cause": prev["cause"] if prev else "?"})
            if not prev:
                row = r["tools"][x["tool"]]
                guessed = ", ".join(guess(row, r["ctx"]))
                print("\n".join([f"{r['name']}: {x['tool']}, flagged by {x['flagged_by']} only, "
                                 f"needs a cause (the rules guess {guessed})",
                                 *findings(row)]), file=sys.stderr)
        out["pairs"][r["name"]] = {"both": len(r["both"]), "disagreements": rows}
    return out


if __name__ == "__main__":
    sys.exit(main())
