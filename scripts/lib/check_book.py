"""Checks that every Rust snippet of the book is code cargo compiles, shown with its imports.

    check_book.py [--root DIR] [--target-dir DIR] [--html DIR]

The rule every chapter follows:

- A Rust block (a fence whose info string starts with `rust`) holds nothing but
  `{{#include PATH}}` and `{{#include PATH:ANCHOR}}` lines, and blank lines.
- Each included file is a `.rs` file that cargo compiles: an example, a workspace test,
  the ledger. Nothing in a Rust block is typed into the chapter, so nothing in it can rot.
- A block that includes an anchor of a file (a part, not the whole file) first includes
  that file's `uses` anchor: its `use` lines between `// ANCHOR: uses` and
  `// ANCHOR_END: uses`. The reader sees every import the snippet needs. The anchor holds
  every top-level `use` of the file and nothing but `use` lines (with their attributes),
  comments and blank lines.
- Anchors exist and end; a file included whole has no anchor lines (mdbook removes them
  only from anchored includes, so they would show in the book).

The fence is ```` ```rust,ignore ````. mdbook renders `ignore` and `noplayground` the
same (highlighted, no Run button: the playground could not build code that needs this
workspace's crates); they differ for `mdbook test`, which compiles every Rust block
with rustdoc and std alone. It would fail on every `noplayground` block; `ignore` tells
it the block is compiled elsewhere, which is true: cargo compiles it, and this check
makes sure of that. A plain ```` ```rust ```` block would get a Run button that cannot
work.

"Compiled by cargo" is read from the dep-info files (`target/*/deps/*.d`) that rustc
writes for every crate it compiles: each lists every source file the compiler read,
whatever brought the file in (`mod`, `#[path]`, `include!`) and with the `cfg` and
features of that build. Resolving `mod` declarations here instead would mean
re-implementing Rust's module paths and guessing at `cfg`. A dep-info file counts only
when it is newer than every file of this repository it lists (a build that saw the
current sources), so a file dropped from its crate since the last build is not
mistaken for compiled. The test command runs this after `cargo test --workspace`; run
that (or `cargo check --workspace --all-targets`) first when running it by hand.

Also checked: the dependency block of "Getting started" lists every crate that the Rust
code of the book's first chapters (getting started, tools, resources, prompts) uses, each
at a version the crate compiling that code builds with, and nothing else. With
`--html`, the rendered book is searched for anchor lines and includes that mdbook left
unexpanded. And the book's reference tables are held to the code they list
(scripts/lib/reference_tables.py says how): the options of `#[tool]`, `#[resource]`,
`#[prompt]` and `#[view]` against the macros' `option_keys!`, the cargo features of
mcp-runtime against its Cargo.toml, and the constructors of `RpcError` against the public
API listing.

Exit status 1 with one message per problem (chapter, line, what is wrong, how to fix it).
"""

import argparse
import os
import re
import sys
import tomllib
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_tables  # noqa: E402

# The one fence of Rust blocks (see above for why).
RUST_FENCE = "rust,ignore"

# mdbook's own anchor patterns (mdbook-driver, links/take_lines.rs): searched anywhere in a
# line, names compared whole.
ANCHOR_START = re.compile(r"ANCHOR:\s*(?P<name>[\w_-]+)")
ANCHOR_END = re.compile(r"ANCHOR_END:\s*(?P<name>[\w_-]+)")

INCLUDE_LINE = re.compile(r"^\s*\{\{#include\s+(?P<arg>[^}\s]+)\s*\}\}\s*$")
ANY_LINK = re.compile(r"(?<!\\)\{\{#(?P<kind>\w+)\s+(?P<arg>[^}]*?)\s*\}\}")
FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

# A line mdbook hides (`# code`, a lone `#`) or changes (`##x` shows as `#x`) in a Rust block.
HIDDEN_LINE = re.compile(r"^\s*#(?:$| |#)")

USES = "uses"

# A chapter whose `[dependencies]` block must list every crate the Rust code of the given
# chapters uses: the reader's Cargo.toml for the first chapters of the book.
DEPENDENCY_CHAPTERS = {
    "getting-started.md": ["getting-started.md", "tools.md", "resources.md", "prompts.md"],
}

# Paths that name no crate of a Cargo.toml.
NOT_CRATES = {"crate", "self", "super", "std", "core", "alloc"}


@dataclass
class Problem:
    path: str
    line: int
    what: str
    fix: str

    def __str__(self):
        return f"{self.path}:{self.line}: {self.what}\n    fix: {self.fix}"


@dataclass
class Include:
    line: int  # in the chapter
    target: str  # absolute path of the included file
    shown: str  # the path as written
    anchor: str | None  # None: the whole file
    lines: str | None = None  # a line range instead of an anchor


@dataclass
class Block:
    line: int  # of the opening fence
    info: str
    body: list  # (chapter line number, text)


def rel(path, root):
    return os.path.relpath(path, root)


# ---- reading chapters --------------------------------------------------------------------


def blocks(text):
    """The fenced code blocks of a Markdown text (CommonMark fences, in lists too)."""
    found = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        block = Block(line=i + 1, info=m["info"].strip(), body=[])
        i += 1
        while i < len(lines):
            close = lines[i].strip()
            if close and set(close) == {fence[0]} and len(close) >= len(fence):
                break
            text_line = lines[i]
            # Content of an indented fence loses up to that much indentation.
            strip = min(indent, len(text_line) - len(text_line.lstrip(" ")))
            block.body.append((i + 1, text_line[strip:]))
            i += 1
        found.append(block)
        i += 1
    return found


def parse_include(arg, chapter_dir):
    """mdbook's reading of `PATH[:ANCHOR | :START[:END]]`."""
    path, _, rest = arg.partition(":")
    anchor, line_range = None, None
    if rest:
        first = rest.split(":")[0]
        if first.isdigit() or (first == "" and rest.startswith(":")):
            line_range = rest
        else:
            anchor = first
    target = os.path.normpath(os.path.join(chapter_dir, path))
    return target, path, anchor, line_range


# ---- reading sources ---------------------------------------------------------------------


class Source:
    """One included file: its lines and anchors."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.starts = {}  # name -> [line indexes]
        self.ends = {}
        for n, line in enumerate(self.lines):
            end = ANCHOR_END.search(line)
            if end:
                self.ends.setdefault(end["name"], []).append(n)
                continue
            start = ANCHOR_START.search(line)
            if start:
                self.starts.setdefault(start["name"], []).append(n)

    def has_anchor_lines(self):
        return bool(self.starts or self.ends)

    def region(self, name):
        """(start, end) line indexes of the anchor as mdbook takes it, or an error text."""
        starts = self.starts.get(name, [])
        if not starts:
            return None, "has no anchor"
        if len(starts) > 1:
            return None, (f"starts anchor `{name}` {len(starts)} times (lines "
                          f"{', '.join(str(s + 1) for s in starts)}); mdbook shows only the first")
        ends = [e for e in self.ends.get(name, []) if e > starts[0]]
        if not ends:
            return None, (f"never ends anchor `{name}` (started at line {starts[0] + 1}); "
                          f"mdbook would include everything to the end of the file")
        return (starts[0], ends[0]), None

    def anchored_text(self, name):
        """The lines mdbook includes for the anchor (nested anchor lines left out)."""
        (start, end), _ = self.region(name)
        return [(n + 1, l) for n, l in enumerate(self.lines[start + 1:end], start + 1)
                if not ANCHOR_START.search(l) and not ANCHOR_END.search(l)]


def strip_comment(line):
    """The code of a line without a trailing `//` comment (strings taken into account)."""
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def use_statements(lines):
    """Split lines into `use` statements; report what is neither a statement, an
    attribute before one, a comment nor blank. Yields ("use", first_line, text) and
    ("other", line, text)."""
    pending = None
    for number, raw in lines:
        code = strip_comment(raw).strip()
        if pending is not None:
            pending[1] += " " + code
            if code.endswith(";"):
                yield ("use", pending[0], pending[1])
                pending = None
            continue
        if not code:
            continue
        if re.match(r"^#\[[^\]]*\]$", code):
            continue
        if re.match(r"^(pub(\([^)]*\))?\s+)?use\s", code):
            if code.endswith(";"):
                yield ("use", number, code)
            else:
                pending = [number, code]
            continue
        yield ("other", number, raw.strip())
    if pending is not None:
        yield ("other", pending[0], pending[1])


def top_level_uses(source):
    """Line numbers (1-based) of `use` statements that start in column 0."""
    return [n + 1 for n, line in enumerate(source.lines)
            if re.match(r"^(pub(\([^)]*\))?\s+)?use\s", line)]


# ---- what cargo compiles -----------------------------------------------------------------


def dep_info_paths(text):
    """Every path a make-style dep-info file names as a prerequisite."""
    paths = []
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        # `target: prereq prereq`, with spaces in names escaped as `\ `.
        parts = re.split(r"(?<!\\):\s", line + " ", maxsplit=1)
        if len(parts) != 2:
            continue
        for word in re.split(r"(?<!\\)\s+", parts[1].strip()):
            if word:
                paths.append(word.replace("\\ ", " "))
    return paths


def compiled_sources(root, target_dir):
    """(files listed by fresh dep-info files, number of dep-info files read, stale ones)."""
    compiled, read, stale = set(), 0, 0
    if not os.path.isdir(target_dir):
        return compiled, read, stale
    deps_dirs = []
    for entry in os.listdir(target_dir):
        deps = os.path.join(target_dir, entry, "deps")
        if os.path.isdir(deps):
            deps_dirs.append(deps)
    root = os.path.realpath(root)
    for deps in deps_dirs:
        for name in os.listdir(deps):
            if not name.endswith(".d"):
                continue
            path = os.path.join(deps, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    listed = dep_info_paths(f.read())
                built = os.stat(path).st_mtime
            except OSError:
                continue
            local = []
            for p in listed:
                p = os.path.realpath(os.path.join(root, p))
                if p.startswith(root + os.sep) and not p.startswith(
                        os.path.realpath(target_dir) + os.sep):
                    local.append(p)
            if not local:
                continue
            read += 1
            fresh = True
            for p in local:
                try:
                    if os.stat(p).st_mtime > built:
                        fresh = False
                        break
                except OSError:
                    fresh = False
                    break
            if fresh:
                compiled.update(local)
            else:
                stale += 1
    return compiled, read, stale


# ---- the checks --------------------------------------------------------------------------


class Checker:
    def __init__(self, root, target_dir):
        self.root = os.path.realpath(root)
        self.target_dir = target_dir
        self.problems = []
        self.sources = {}
        self._compiled = None
        self._told_to_build = False
        self._not_compiled = set()

    def problem(self, chapter, line, what, fix):
        self.problems.append(Problem(rel(chapter, self.root), line, what, fix))

    def source(self, path):
        if path not in self.sources:
            self.sources[path] = Source(path)
        return self.sources[path]

    def compiled(self):
        if self._compiled is None:
            self._compiled = compiled_sources(self.root, self.target_dir)
        return self._compiled

    def check_book(self, src_dir):
        chapters = sorted(
            os.path.join(d, f) for d, _, files in os.walk(src_dir) for f in files
            if f.endswith(".md"))
        for chapter in chapters:
            self.check_chapter(chapter)
        return self.problems

    def check_chapter(self, chapter):
        with open(chapter, encoding="utf-8") as f:
            text = f.read()
        chapter_dir = os.path.dirname(chapter)
        in_rust_blocks = set()
        for block in blocks(text):
            if block.info.startswith("rust"):
                self.check_rust_block(chapter, chapter_dir, block)
                in_rust_blocks.update(n for n, _ in block.body)
        # Includes elsewhere (other fences, prose): they must resolve and not leak anchors.
        for number, line in enumerate(text.split("\n"), 1):
            if number in in_rust_blocks:
                continue
            for m in ANY_LINK.finditer(line):
                if m["kind"] != "include":
                    continue
                target, shown, anchor, _ = parse_include(m["arg"], chapter_dir)
                self.check_target(chapter, number, Include(number, target, shown, anchor))
        covered = DEPENDENCY_CHAPTERS.get(os.path.basename(chapter))
        if covered:
            self.check_dependencies(chapter, chapter_dir, text, covered)

    def check_rust_block(self, chapter, chapter_dir, block):
        if block.info != RUST_FENCE:
            self.problem(
                chapter, block.line,
                f"a Rust block fenced ```{block.info}",
                f"fence it ```{RUST_FENCE}: cargo compiles the included code and this check "
                f"makes sure of it; `ignore` keeps mdbook from offering a Run button and "
                f"`mdbook test` from compiling it without the workspace's crates")
        includes = []
        for number, line in block.body:
            if not line.strip():
                continue
            m = INCLUDE_LINE.match(line)
            if not m:
                self.problem(
                    chapter, number,
                    f"a Rust block holds a line that is not an include: {line.strip()[:70]!r}",
                    "put the code in a file cargo compiles (an example, a test of "
                    "tests/workspace), mark it with // ANCHOR: name ... // ANCHOR_END: name, "
                    "and write {{#include PATH:name}} here (after {{#include PATH:uses}}); "
                    "prose and shell commands go outside the block")
                continue
            target, shown, anchor, line_range = parse_include(m["arg"], chapter_dir)
            includes.append(Include(number, target, shown, anchor, line_range))
        if not any(line.strip() for _, line in block.body):
            self.problem(chapter, block.line, "an empty Rust block",
                         "include the code it should show, or remove the block")
        seen_uses = set()
        for inc in includes:
            if inc.lines is not None:
                self.problem(
                    chapter, inc.line,
                    f"{inc.shown} is included by line numbers ({inc.lines})",
                    "line numbers drift as the file changes: mark the lines with "
                    "// ANCHOR: name ... // ANCHOR_END: name and include PATH:name")
                continue
            if not self.check_target(chapter, inc.line, inc, rust=True):
                continue
            if inc.anchor == USES:
                seen_uses.add(inc.target)
                self.check_uses_anchor(chapter, inc)
            elif inc.anchor is not None and inc.target not in seen_uses:
                self.problem(
                    chapter, inc.line,
                    f"{inc.shown}:{inc.anchor} is shown without the file's imports",
                    f"put {{{{#include {inc.shown}:{USES}}}}} before it in this block (wrap "
                    f"the file's use lines in // ANCHOR: {USES} ... // ANCHOR_END: {USES} if "
                    f"it has no such anchor)")

    def check_target(self, chapter, number, inc, rust=False):
        """The included file exists (and for Rust: is `.rs`, compiled), its anchor is
        whole, a whole-file include has no anchor lines. True when the file could be read."""
        if not os.path.isfile(inc.target):
            self.problem(chapter, number, f"{inc.shown} does not exist",
                         "include paths are relative to the chapter's folder (book/src); "
                         "fix the path or restore the file")
            return False
        if rust and not inc.target.endswith(".rs"):
            self.problem(chapter, number,
                         f"a Rust block includes {inc.shown}, which is not a .rs file",
                         "include Rust code that cargo compiles, or use a fence for the "
                         "file's own language")
            return False
        if rust:
            self.check_compiled(chapter, number, inc)
        source = self.source(inc.target)
        if inc.anchor is None:
            if source.has_anchor_lines():
                first = min(min(v) for v in list(source.starts.values()) +
                            list(source.ends.values()))
                self.problem(
                    chapter, number,
                    f"{inc.shown} is included whole but has anchor lines (line {first + 1}), "
                    f"which mdbook shows as they are",
                    "include the anchors you need (PATH:name), or move the snippet into a "
                    "file of its own without anchors")
            body = list(enumerate(source.lines, 1))
        else:
            _, error = source.region(inc.anchor)
            if error:
                fix = (f"add // ANCHOR: {inc.anchor} and // ANCHOR_END: {inc.anchor} around "
                       f"the lines to show" if error == "has no anchor"
                       else "give each anchor one start and one end")
                what = (f"{inc.shown} has no anchor `{inc.anchor}`" if error == "has no anchor"
                        else f"{inc.shown} {error}")
                self.problem(chapter, number, what, fix)
                return False
            body = source.anchored_text(inc.anchor)
        if rust:
            for n, line in body:
                if HIDDEN_LINE.match(line):
                    self.problem(
                        chapter, number,
                        f"{inc.shown}:{n} starts with `#` followed by a space, a `#` or "
                        f"nothing; mdbook hides or changes such lines in Rust blocks",
                        "reword the line (e.g. a comment `// ...` instead)")
        return True

    def check_compiled(self, chapter, number, inc):
        compiled, read, stale = self.compiled()
        if os.path.realpath(inc.target) in compiled or inc.target in self._not_compiled:
            return
        self._not_compiled.add(inc.target)
        where = rel(self.target_dir, self.root) if os.path.isabs(self.target_dir) \
            else self.target_dir
        if read == 0:
            if self._told_to_build:
                return
            self._told_to_build = True
            self.problem(
                chapter, number,
                f"cannot tell whether cargo compiles {inc.shown}: no dep-info files under "
                f"{where}/*/deps",
                "build first: cargo test --workspace (or cargo check --workspace "
                "--all-targets), or pass --target-dir")
            return
        self.problem(
            chapter, number,
            f"{inc.shown} is not compiled by cargo: no up-to-date dep-info file in "
            f"{where}/*/deps lists it ({stale} of {read} are older than their sources)",
            "make it part of a crate target (a `mod` of an example, a test or a library of "
            "the workspace); if it is one already, rebuild (cargo test --workspace) and run "
            "this again")

    def check_uses_anchor(self, chapter, inc):
        source = self.source(inc.target)
        (start, end), _ = source.region(USES)
        inside = source.anchored_text(USES)
        for kind, n, text in use_statements(inside):
            if kind == "other":
                self.problem(
                    chapter, inc.line,
                    f"{inc.shown}:{n}: the `{USES}` anchor holds {text[:60]!r}, which is not "
                    f"a use line",
                    f"keep only use lines, comments and blank lines between // ANCHOR: {USES} "
                    f"and // ANCHOR_END: {USES}; move the rest out")
        for n in top_level_uses(source):
            if not start < n - 1 < end:
                self.problem(
                    chapter, inc.line,
                    f"{inc.shown}:{n}: a use line outside the `{USES}` anchor",
                    f"move it between // ANCHOR: {USES} and // ANCHOR_END: {USES}, so the "
                    f"reader sees every import")

    # ---- a chapter's dependency block ----------------------------------------------------

    def check_dependencies(self, chapter, chapter_dir, text, covered):
        toml_blocks = [b for b in blocks(text) if b.info == "toml"
                       and any(l.strip() == "[dependencies]" for _, l in b.body)]
        if len(toml_blocks) != 1:
            self.problem(chapter, 1,
                         f"expected one ```toml block with [dependencies], found "
                         f"{len(toml_blocks)}",
                         "keep one dependency block that lists every crate the chapter uses")
            return
        block = toml_blocks[0]
        try:
            listed = tomllib.loads("\n".join(l for _, l in block.body)).get("dependencies", {})
        except tomllib.TOMLDecodeError as e:
            self.problem(chapter, block.line, f"the dependency block is not TOML: {e}",
                         "fix its syntax")
            return
        listed = {name.replace("-", "_"): (name, spec) for name, spec in listed.items()}
        # What the Rust code of the covered chapters uses, and what the crates compiling it
        # depend on.
        used = {}  # crate -> (chapter, included file, its package's requirement)
        offered = {}  # crate -> requirement, over the packages of the included files
        for name in covered:
            path = os.path.join(chapter_dir, name)
            if not os.path.isfile(path):
                self.problem(chapter, block.line,
                             f"the dependency block covers {name}, which does not exist",
                             "fix DEPENDENCY_CHAPTERS in scripts/lib/check_book.py")
                continue
            with open(path, encoding="utf-8") as f:
                covered_text = f.read()
            for b in blocks(covered_text):
                if not b.info.startswith("rust"):
                    continue
                for _, line in b.body:
                    m = INCLUDE_LINE.match(line)
                    if not m:
                        continue
                    target, shown, anchor, _ = parse_include(m["arg"], chapter_dir)
                    if not os.path.isfile(target):
                        continue  # reported with the block
                    deps = self.package_dependencies(target)
                    for crate, (_, requirement) in deps.items():
                        offered.setdefault(crate, requirement)
                    source = self.source(target)
                    if anchor is None:
                        code = source.lines
                    elif source.region(anchor)[0] is None:
                        continue  # reported with the block
                    else:
                        code = [l for _, l in source.anchored_text(anchor)]
                    for crate in crates_named(code, deps):
                        used.setdefault(crate, (name, shown, deps[crate]))
        for crate, (name, shown, (cargo_name, requirement)) in sorted(used.items()):
            if crate not in listed:
                self.problem(
                    chapter, block.line,
                    f"the dependency block does not list {cargo_name}, which the code of "
                    f"{name} uses ({shown})",
                    f"add it: {cargo_name} = \"{major(requirement)}\"")
        for crate, (name, spec) in sorted(listed.items()):
            version = spec if isinstance(spec, str) else spec.get("version") \
                if isinstance(spec, dict) else None
            if crate not in offered:
                self.problem(
                    chapter, block.line,
                    f"the dependency block lists {name}, which no crate compiling the code "
                    f"of {', '.join(covered)} depends on",
                    "remove it, or show code that uses it")
            elif version is None or not admits(version, offered[crate]):
                self.problem(
                    chapter, block.line,
                    f"the dependency block asks for {name} {version!r}, but the code it "
                    f"serves is built with {name} {offered[crate]}",
                    f"write {name} = \"{major(offered[crate])}\"")

    def package_dependencies(self, path):
        """Crate name as code writes it -> (name in Cargo.toml, version requirement), for
        the package whose sources hold `path`
        (dependencies and dev-dependencies; workspace ones from the root manifest)."""
        directory = os.path.dirname(path)
        while True:
            manifest = os.path.join(directory, "Cargo.toml")
            if os.path.isfile(manifest):
                with open(manifest, "rb") as f:
                    data = tomllib.load(f)
                if "package" in data:
                    break
            if os.path.realpath(directory) == self.root or directory == os.path.dirname(
                    directory):
                return {}
            directory = os.path.dirname(directory)
        workspace = {}
        root_manifest = os.path.join(self.root, "Cargo.toml")
        if os.path.isfile(root_manifest):
            with open(root_manifest, "rb") as f:
                root_data = tomllib.load(f)
            workspace = root_data.get("workspace", {}).get("dependencies", {})
        deps = {}
        for table in ("dependencies", "dev-dependencies"):
            for name, spec in data.get(table, {}).items():
                if isinstance(spec, dict) and spec.get("workspace"):
                    spec = workspace.get(name, {})
                if isinstance(spec, dict):
                    if "path" in spec and "version" not in spec:
                        continue  # not on crates.io: nothing a reader could depend on
                    # The code names a renamed dependency by its key, not its package.
                    spec = spec.get("version", "")
                deps.setdefault(name.replace("-", "_"), (name, spec))
        return deps


def crates_named(code, deps):
    """Dependencies of `deps` that the code names: `use krate...`, `krate::...`."""
    named = set()
    for line in code:
        line = strip_comment(line)
        if line.strip().startswith("//"):
            continue
        for m in re.finditer(r"(?<![\w:])([a-z_][a-z0-9_]*)::", line):
            named.add(m.group(1))
        for m in re.finditer(r"\buse\s+([a-z_][a-z0-9_]*)\b", line):
            named.add(m.group(1))
    return {n for n in named if n in deps and n not in NOT_CRATES}


def version_numbers(requirement):
    numbers = re.findall(r"\d+", requirement.lstrip("^=~ "))
    return [int(n) for n in numbers[:3]]


def major(requirement):
    """The requirement a reader writes: `1` for 1.x, `0.8` for 0.8.x."""
    v = version_numbers(requirement)
    if not v:
        return requirement
    if v[0] > 0 or len(v) == 1:
        return str(v[0])
    return f"0.{v[1]}"


def admits(requirement, built):
    """Whether cargo's caret requirement `requirement` admits the version the package is
    built with (its own requirement's lowest version)."""
    r, v = version_numbers(requirement), version_numbers(built)
    if not r or not v:
        return False
    v = v + [0] * (3 - len(v))
    if v < r + [0] * (3 - len(r)):
        return False
    if r[0] > 0 or len(r) == 1:
        return v[0] == r[0]
    if r[1] > 0 or len(r) == 2:
        return v[0] == 0 and v[1] == r[1]
    return v[:3] == r + [0] * (3 - len(r))


# ---- the rendered book -------------------------------------------------------------------


def check_html(html_dir, root):
    """Anchor lines or unexpanded includes in the rendered pages."""
    problems = []
    leak = re.compile(r"ANCHOR(?:_END)?:\s*[\w-]+|\{\{#(?:include|rustdoc_include)\b")
    for d, _, files in os.walk(html_dir):
        for f in sorted(files):
            if not f.endswith(".html"):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for number, line in enumerate(fh, 1):
                    m = leak.search(line)
                    if m:
                        problems.append(Problem(
                            rel(path, root), number,
                            f"the rendered page shows {m.group(0)!r}",
                            "an include failed or showed anchor lines: run this check on "
                            "the chapters and fix what it reports, then rebuild the book"))
    return problems


def check(root, target_dir=None, html_dir=None):
    """Every problem of the book under `root`."""
    target_dir = target_dir or os.environ.get("CARGO_TARGET_DIR") or os.path.join(
        root, "target")
    checker = Checker(root, target_dir)
    problems = checker.check_book(os.path.join(root, "book", "src"))
    problems += [Problem(*p) for p in reference_tables.check(root)]
    if html_dir:
        if os.path.isdir(html_dir):
            problems += check_html(html_dir, checker.root)
        else:
            problems.append(Problem(html_dir, 0, "the rendered book is missing",
                                    "build it first: mdbook build book"))
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(here)),
                        help="the repository (default: this script's)")
    parser.add_argument("--target-dir", help="cargo's target folder (default: "
                        "$CARGO_TARGET_DIR, else ROOT/target)")
    parser.add_argument("--html", help="the rendered book to search for leaked anchors")
    args = parser.parse_args(argv)
    problems = check(args.root, args.target_dir, args.html)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"\nthe book has {len(problems)} problem(s); see the docstrings of "
              f"scripts/lib/check_book.py (the snippet rule) and "
              f"scripts/lib/reference_tables.py (the reference tables)", file=sys.stderr)
        return 1
    print("book: every Rust snippet is included from compiled code, with its imports; "
          "the reference tables list what the code declares")
    return 0


if __name__ == "__main__":
    sys.exit(main())
