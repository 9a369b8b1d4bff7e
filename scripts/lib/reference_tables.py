"""Holds the book's reference tables to the code they describe (run by check_book.py).

Each table lists, one row per item, something the code declares in one place. The check
reads that place and fails when the table misses an item or lists one that is gone:

- the options of `#[tool]`, `#[resource]`, `#[prompt]` and `#[view]`: the table under the
  heading "Options" of the attribute's chapter (`OPTION_CHAPTERS`), whose first column is
  headed `option`, against the macro's `option_keys!` declaration under mcp-macros/src.
  The fixed keys of a nested option (`csp(connect(..))`, `permissions(camera)`) are held
  to the macro's list of them (`NESTED_OPTIONS`). Every macro that declares its options
  with `option_keys!` needs a chapter here, so a new attribute cannot go undocumented;
- the cargo features of mcp-runtime: the table under "Cargo features" in Getting started,
  first column `feature`, against `[features]` of mcp-runtime/Cargo.toml, and its
  `default` column (yes or no) against the `default` feature's list;
- the public constructors of `RpcError` (its associated functions without `self`): the
  table under "JSON-RPC errors" in the Tools chapter, first column `constructor`, against
  the public API listing mcp-runtime/tests/public-api.txt (which scripts/public-api.sh
  holds to the crate). The table may also show its other public methods (`with_data`).

A row names its item by the first `code span` of its first cell: the option as written in
the attribute (`read_only`, `timeout = "30s"`, `csp(connect("https://.."))`), the feature
(`sqlite`), the constructor (`RpcError::invalid_params(message)`).
"""

import os
import re
import tomllib

# The chapter (under book/src) whose "Options" table lists each attribute's options.
OPTION_CHAPTERS = {
    "tool": "tools.md",
    "resource": "resources.md",
    "prompt": "prompts.md",
    "view": "views.md",
}
OPTIONS_SECTION = "Options"
OPTIONS_COLUMN = "option"
# Where the macros declare their options (`option_keys! { enum .. for "tool" { .. } }`).
MACRO_SOURCES = "mcp-macros/src"
# Options with fixed inner keys: (attribute, option) -> the `const NAME: &[&str]` that
# lists them, in the file that declares the attribute's `option_keys!`.
NESTED_OPTIONS = {
    ("view", "csp"): "CSP_KEYS",
    ("view", "permissions"): "PERMISSIONS",
}

FEATURES_CHAPTER = "getting-started.md"
FEATURES_SECTION = "Cargo features"
FEATURES_COLUMN = "feature"
DEFAULT_COLUMN = "default"
RUNTIME_MANIFEST = "mcp-runtime/Cargo.toml"

RPC_ERROR_CHAPTER = "tools.md"
RPC_ERROR_SECTION = "JSON-RPC errors"
RPC_ERROR_COLUMN = "constructor"
PUBLIC_API = "mcp-runtime/tests/public-api.txt"
RPC_ERROR = "RpcError"

HEADING = re.compile(r"^ {0,3}(?P<level>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
CODE_SPAN = re.compile(r"`([^`]+)`")
IDENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")


# ---- Markdown ----------------------------------------------------------------------------


def outside_fences(lines):
    """(line number, text) of the lines that are not inside a fenced code block."""
    fence = None
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m["fence"]
                continue
            yield number, line
        elif m and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence):
            fence = None


def cells(line):
    """The cells of a table row, split at `|` that are not escaped (as GFM does, code
    spans included), without the outer pipes."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", text)]


def plain(cell):
    """A header cell as a word: `option` for "Option" or "`option`"."""
    return cell.replace("`", "").strip().lower()


class Table:
    def __init__(self, line, header):
        self.line = line  # of the header row
        self.header = [plain(c) for c in header]
        self.rows = []  # (line, cells)

    def column(self, name):
        return self.header.index(name) if name in self.header else None


def section(text, title):
    """(heading line, [(line, text)] of the section) for the first heading `title`, up to
    the next heading of its level or above; None when there is no such heading."""
    lines = list(outside_fences(text.split("\n")))
    for i, (number, line) in enumerate(lines):
        m = HEADING.match(line)
        if not m or m["text"] != title:
            continue
        level = len(m["level"])
        body = []
        for later, text_line in lines[i + 1:]:
            h = HEADING.match(text_line)
            if h and len(h["level"]) <= level:
                break
            body.append((later, text_line))
        return number, body
    return None


def tables(body):
    """The pipe tables among (line, text) pairs."""
    found = []
    i = 0
    while i < len(body):
        number, line = body[i]
        if (line.lstrip().startswith("|") and i + 1 < len(body)
                and body[i + 1][0] == number + 1 and DELIMITER_ROW.match(body[i + 1][1])):
            table = Table(number, cells(line))
            i += 2
            while (i < len(body) and body[i][1].lstrip().startswith("|")
                   and body[i][0] == body[i - 1][0] + 1):
                table.rows.append((body[i][0], cells(body[i][1])))
                i += 1
            found.append(table)
            continue
        i += 1
    return found


def first_code(cell):
    m = CODE_SPAN.search(cell)
    return m.group(1) if m else None


def option_named(code):
    """(key, [inner keys]) of an option as written: `csp(connect("https://.."))` is
    ("csp", ["connect"]), `permissions(camera, microphone)` ("permissions", ["camera",
    "microphone"]), `scopes("a")` ("scopes", []), `task = required` ("task", [])."""
    m = IDENT.match(code)
    if not m:
        return None, []
    rest = code[m.end():].lstrip()
    inner = []
    if rest.startswith("("):
        depth, item, in_string = 0, "", False
        for c in rest:
            if in_string:
                item += c
                if c == '"':
                    in_string = False
                continue
            if c == '"':
                in_string = True
            elif c in "([":
                depth += 1
                if depth == 1:
                    continue
            elif c in ")]":
                depth -= 1
                if depth == 0:
                    inner.append(item)
                    break
            elif c == "," and depth == 1:
                inner.append(item)
                item = ""
                continue
            item += c
    names = []
    for item in inner:
        n = IDENT.match(item)
        if n:
            names.append(n.group(1))
    return m.group(1), names


# ---- the code ----------------------------------------------------------------------------


def matching_brace(text, open_at):
    """The index of the `}` closing the `{` at `open_at`."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def line_of(text, index):
    return text.count("\n", 0, index) + 1


def option_keys(sources_dir):
    """attribute -> (file, line, [(key, line)]) from each `option_keys!` invocation under
    `sources_dir`, except those in test code (after a file's `#[cfg(test)]`)."""
    found = {}
    for d, _, files in sorted(os.walk(sources_dir)):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            test_code = text.find("#[cfg(test)]")
            for m in re.finditer(r"option_keys!\s*\{", text):
                if 0 <= test_code < m.start():
                    continue
                end = matching_brace(text, m.end() - 1)
                body = text[m.end():end]
                decl = re.search(r'\benum\s+\w+\s+for\s+"([^"]+)"\s*\{', body)
                if not decl:
                    continue
                keys = []
                first_line = line_of(text, m.end() + decl.end())
                for offset, line in enumerate(body[decl.end():].split("\n")):
                    code = line.split("//")[0]
                    k = re.match(r'\s*\w+\s*=\s*"([^"]+)"\s*,?\s*$', code)
                    if k:
                        keys.append((k.group(1), first_line + offset))
                found[decl.group(1)] = (path, line_of(text, m.end() + decl.start()), keys)
    return found


def const_strings(path, name):
    """The strings of `const NAME: &[&str] = &[..];` in the file, with its line, or None."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"\bconst\s+" + re.escape(name) + r"\s*:\s*&\[&str\]\s*=\s*&\[(.*?)\]\s*;",
                  text, re.S)
    if not m:
        return None
    return re.findall(r'"([^"]*)"', m.group(1)), line_of(text, m.start())


def cargo_features(manifest):
    """({feature: line}, default features) of a Cargo.toml."""
    with open(manifest, "rb") as f:
        data = tomllib.load(f)
    features = data.get("features", {})
    lines = {}
    with open(manifest, encoding="utf-8") as f:
        in_features = False
        for number, line in enumerate(f, 1):
            if line.startswith("["):
                in_features = line.strip() == "[features]"
                continue
            m = re.match(r'^\s*"?([\w-]+)"?\s*=', line)
            if in_features and m:
                lines[m.group(1)] = number
    names = {name: lines.get(name, 0) for name in features if name != "default"}
    return names, set(features.get("default", []))


def public_methods(listing, type_name):
    """(constructors, methods) of the type's inherent impl in a public-api listing, each
    {name: line}: constructors take no `self`; methods are all its functions."""
    constructors, methods = {}, {}
    inherent = False
    fn = re.compile(r"^pub (?:const )?(?:async )?(?:unsafe )?fn (?:\S+::)?" +
                    re.escape(type_name) + r"(?:<[^(]*>)?::(\w+)\((.*)$")
    receiver = re.compile(r"^\s*(?:&(?:'\w+\s+)?)?(?:mut\s+)?self\b")
    for number, line in enumerate(listing.split("\n"), 1):
        if line.startswith("impl"):
            inherent = " for " not in line and re.search(
                r"(?:^impl(?:<.*>)?\s+|::)" + re.escape(type_name) + r"(?:<.*>)?\s*$", line
            ) is not None
            continue
        m = fn.match(line)
        if not m or not inherent:
            continue
        methods.setdefault(m.group(1), number)
        if not receiver.match(m.group(2)):
            constructors.setdefault(m.group(1), number)
    return constructors, methods


# ---- the checks --------------------------------------------------------------------------


class Checker:
    def __init__(self, root):
        self.root = root
        self.problems = []  # (path, line, what, fix)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def problem(self, path, line, what, fix):
        self.problems.append((self.rel(path), line, what, fix))

    def table(self, chapter, title, column, what):
        """The chapter's table under `title` whose first column is `column`, or None (with
        a problem). `what` says what the table lists, for messages."""
        path = os.path.join(self.root, "book", "src", chapter)
        if not os.path.isfile(path):
            self.problem(path, 0, f"the chapter that lists {what} does not exist",
                         f"restore it, or point scripts/lib/reference_tables.py at the "
                         f"chapter that holds the table")
            return path, None
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found = section(text, title)
        if found is None:
            self.problem(path, 1, f"no section \"{title}\", where the table of {what} goes",
                         f"add a heading \"{title}\" with a table whose first column is "
                         f"`{column}`, one row per item")
            return path, None
        heading, body = found
        for table in tables(body):
            if table.header and table.header[0] == column:
                return path, table
        self.problem(path, heading,
                     f"the section \"{title}\" has no table of {what} (a table whose first "
                     f"column is headed `{column}`)",
                     f"add one, with a row per item, each named by a `code span` in its "
                     f"first cell")
        return path, None

    def names(self, path, table, what):
        """{name: line} of the table's rows, reporting rows that name nothing."""
        named = []
        for line, row in table.rows:
            code = first_code(row[0]) if row else None
            if code is None:
                self.problem(path, line,
                             f"a row of the table of {what} names nothing: {row[0][:60]!r}",
                             "start its first cell with the item in backticks")
                continue
            named.append((line, code))
        return named

    # ---- attribute options ---------------------------------------------------------------

    def check_options(self):
        sources = os.path.join(self.root, MACRO_SOURCES)
        declared = option_keys(sources) if os.path.isdir(sources) else {}
        for attribute in sorted(set(declared) - set(OPTION_CHAPTERS)):
            path, line, _ = declared[attribute]
            self.problem(path, line,
                         f"#[{attribute}] declares its options with option_keys!, and no "
                         f"chapter of the book lists them",
                         f"write a table of its options under \"{OPTIONS_SECTION}\" in its "
                         f"chapter and add \"{attribute}\": \"chapter.md\" to OPTION_CHAPTERS "
                         f"in scripts/lib/reference_tables.py")
        for attribute, chapter in OPTION_CHAPTERS.items():
            if attribute not in declared:
                self.problem(sources, 0,
                             f"no option_keys! declares the options of #[{attribute}] under "
                             f"{MACRO_SOURCES}, so the book's table of them cannot be checked",
                             f"if the declaration moved, point MACRO_SOURCES in "
                             f"scripts/lib/reference_tables.py at it; if #[{attribute}] is "
                             f"gone, remove it from OPTION_CHAPTERS")
                continue
            source, _, keys = declared[attribute]
            what = f"the options of #[{attribute}]"
            path, table = self.table(chapter, OPTIONS_SECTION, OPTIONS_COLUMN, what)
            if table is None:
                continue
            rows = {}  # key -> (line, [inner keys])
            for line, code in self.names(path, table, what):
                key, inner = option_named(code)
                _, seen = rows.setdefault(key, (line, []))
                seen.extend(inner)
            accepted = dict(keys)
            for key, line in keys:
                if key not in rows:
                    self.problem(
                        path, table.line,
                        f"the table of the options of #[{attribute}] does not list `{key}`, "
                        f"which the macro accepts ({self.rel(source)}:{line})",
                        f"add a row for `{key}`: the option as written, what it takes, what "
                        f"it does, an example (read the macro's code for what it does)")
            for key, (line, _) in sorted(rows.items(), key=lambda kv: kv[1][0]):
                if key not in accepted:
                    self.problem(
                        path, line,
                        f"the table of the options of #[{attribute}] lists `{key}`, which "
                        f"#[{attribute}] does not accept (its options: "
                        f"{', '.join(k for k, _ in keys)}; {self.rel(source)})",
                        f"remove the row, or spell it as the macro does")
            for (nested_attr, key), const in NESTED_OPTIONS.items():
                if nested_attr != attribute or key not in rows:
                    continue
                listed = const_strings(source, const)
                if listed is None:
                    self.problem(
                        source, 0,
                        f"no `const {const}: &[&str]` in {self.rel(source)}, where the keys "
                        f"of `{key}(..)` of #[{attribute}] are read from",
                        f"point NESTED_OPTIONS in scripts/lib/reference_tables.py at the "
                        f"list of `{key}(..)`'s keys")
                    continue
                inner_keys, const_line = listed
                line, seen = rows[key]
                for inner in inner_keys:
                    if inner not in seen:
                        self.problem(
                            path, line,
                            f"the table of the options of #[{attribute}] does not list "
                            f"`{key}({inner})`, which the macro accepts "
                            f"({self.rel(source)}:{const_line}, {const})",
                            f"name `{inner}` inside `{key}(..)` in the first code span of "
                            f"a row, and say what it does")
                for inner in dict.fromkeys(seen):
                    if inner not in inner_keys:
                        self.problem(
                            path, line,
                            f"the table of the options of #[{attribute}] lists "
                            f"`{key}({inner})`, which the macro does not accept (its keys: "
                            f"{', '.join(inner_keys)}; {self.rel(source)}:{const_line})",
                            f"remove it, or spell it as the macro does")

    # ---- cargo features ------------------------------------------------------------------

    def check_features(self):
        manifest = os.path.join(self.root, RUNTIME_MANIFEST)
        if not os.path.isfile(manifest):
            self.problem(manifest, 0, "the runtime's manifest, whose features the book "
                         "lists, does not exist",
                         "point RUNTIME_MANIFEST in scripts/lib/reference_tables.py at it")
            return
        features, defaults = cargo_features(manifest)
        what = "the cargo features of mcp-runtime"
        path, table = self.table(FEATURES_CHAPTER, FEATURES_SECTION, FEATURES_COLUMN, what)
        if table is None:
            return
        default_column = table.column(DEFAULT_COLUMN)
        if default_column is None:
            self.problem(path, table.line,
                         f"the table of {what} has no `{DEFAULT_COLUMN}` column",
                         f"add a column headed `{DEFAULT_COLUMN}`: yes for a feature on by "
                         f"default, no otherwise")
        rows = {}
        for line, code in self.names(path, table, what):
            rows.setdefault(code.strip(), line)
        for name, line in features.items():
            if name not in rows:
                self.problem(
                    path, table.line,
                    f"the table of {what} does not list `{name}`, a feature of "
                    f"{RUNTIME_MANIFEST} (line {line})",
                    f"add a row for `{name}`: what it enables (its comment in [features] "
                    f"says), and whether it is on by default")
        for name, line in rows.items():
            if name not in features:
                self.problem(
                    path, line,
                    f"the table of {what} lists `{name}`, which is not a feature of "
                    f"{RUNTIME_MANIFEST} (its features: {', '.join(features)})",
                    "remove the row, or spell the feature as [features] does")
        if default_column is None:
            return
        default_list = "[" + ", ".join(f'"{d}"' for d in sorted(defaults)) + "]"
        for line, row in table.rows:
            name = (first_code(row[0]) or "").strip() if row else ""
            if name not in features:
                continue
            said = plain(row[default_column]) if default_column < len(row) else ""
            if said not in ("yes", "no"):
                self.problem(path, line,
                             f"the `{DEFAULT_COLUMN}` cell of `{name}` says {said!r}",
                             "write yes or no")
            elif (said == "yes") != (name in defaults):
                self.problem(
                    path, line,
                    f"the table of {what} says `{name}` is {'' if said == 'yes' else 'not '}"
                    f"on by default; {RUNTIME_MANIFEST} has default = {default_list}",
                    f"write {'yes' if name in defaults else 'no'}")

    # ---- RpcError ------------------------------------------------------------------------

    def check_rpc_error(self):
        listing_path = os.path.join(self.root, PUBLIC_API)
        if not os.path.isfile(listing_path):
            self.problem(listing_path, 0, f"the public API listing, whose {RPC_ERROR} "
                         f"constructors the book lists, does not exist",
                         f"write it (PUBLIC_API=overwrite scripts/public-api.sh), or point "
                         f"PUBLIC_API in scripts/lib/reference_tables.py at it")
            return
        with open(listing_path, encoding="utf-8") as f:
            constructors, methods = public_methods(f.read(), RPC_ERROR)
        what = f"the constructors of {RPC_ERROR}"
        path, table = self.table(RPC_ERROR_CHAPTER, RPC_ERROR_SECTION, RPC_ERROR_COLUMN, what)
        if table is None:
            return
        rows = {}
        for line, code in self.names(path, table, what):
            m = re.match(r"\s*(?:" + RPC_ERROR + r"::)?(\w+)", code)
            if m:
                rows.setdefault(m.group(1), line)
        for name, line in constructors.items():
            if name not in rows:
                self.problem(
                    path, table.line,
                    f"the table of {what} does not list `{RPC_ERROR}::{name}`, a public "
                    f"constructor ({PUBLIC_API}:{line})",
                    f"add a row for `{RPC_ERROR}::{name}(..)`: the JSON-RPC code it gives "
                    f"and when to use it (its doc comment in mcp-runtime says)")
        for name, line in rows.items():
            if name not in methods:
                self.problem(
                    path, line,
                    f"the table of {what} lists `{RPC_ERROR}::{name}`, which is not public "
                    f"(not in {PUBLIC_API}; its constructors: {', '.join(constructors)})",
                    "remove the row, or name the function as mcp-runtime does")


def check(root):
    """Every problem of the reference tables under `root`: (path, line, what, fix)."""
    checker = Checker(os.path.realpath(root))
    checker.check_options()
    checker.check_features()
    checker.check_rpc_error()
    return checker.problems
