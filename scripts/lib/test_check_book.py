"""Tests of check_book.py: a small book and workspace in a temporary folder, a good one
that passes, then one broken fragment per kind of problem, each of which must be reported.

    python3 scripts/lib/test_check_book.py
"""

import os
import sys
import tempfile
import textwrap
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_book  # noqa: E402

FENCE = "```"

CARGO = """\
[package]
name = "demo"
version = "0.1.0"

[dependencies]
serde = { version = "1.0.200", features = ["derive"] }
tokio = "1.40"
axum = "0.8.9"
"""

TOOL = """\
//! A compiled example.

// ANCHOR: uses
use serde::Serialize;
// ANCHOR_END: uses

// ANCHOR: item
#[derive(Serialize)]
struct Item;
// ANCHOR_END: item

#[tokio::main]
async fn main() {}
"""

WHOLE = """\
//! Included whole: no anchors.

use serde::Serialize;

#[derive(Serialize)]
pub struct Whole;

pub async fn pause() {
    tokio::task::yield_now().await
}
"""

ROUTE = """\
//! Another crate, in another chapter.

pub fn router() -> axum::Router {
    axum::Router::new()
}
"""

GOOD_CHAPTER = f"""\
# Good

{FENCE}toml
[dependencies]
serde = {{ version = "1", features = ["derive"] }}
tokio = "1"
axum = "0.8"
{FENCE}

{FENCE}rust,ignore
{{{{#include ../../demo/src/tool.rs:uses}}}}

{{{{#include ../../demo/src/tool.rs:item}}}}
{FENCE}

{FENCE}rust,ignore
{{{{#include ../../demo/src/whole.rs}}}}
{FENCE}

- in a list:

  {FENCE}json
  {{"shown": "as it is"}}
  {FENCE}
"""


def rust(*lines):
    return f"{FENCE}rust,ignore\n" + "\n".join(lines) + f"\n{FENCE}\n"


class Workspace:
    """A temporary repository: a crate `demo`, a book, and dep-info for what was built."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        self.write("Cargo.toml", "[workspace]\nmembers = [\"demo\"]\n")
        self.write("demo/Cargo.toml", CARGO)
        self.write("demo/src/tool.rs", TOOL)
        self.write("demo/src/whole.rs", WHOLE)
        self.write("demo/src/extra.rs", "pub fn extra() {}\n")
        self.write("demo/src/route.rs", ROUTE)
        self.write("book/src/getting-started.md", GOOD_CHAPTER)
        # The chapters whose code the dependency block of getting-started covers.
        self.write("book/src/tools.md", rust("{{#include ../../demo/src/route.rs}}"))
        self.write("book/src/resources.md", "# Resources\n")
        self.write("book/src/prompts.md", "# Prompts\n")
        self.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def build(self, sources, name="demo-0123.d", age=0):
        """A dep-info file naming `sources`, written `age` seconds after them."""
        deps = os.path.join(self.root, "target", "debug", "deps")
        os.makedirs(deps, exist_ok=True)
        path = os.path.join(deps, name)
        listed = " ".join(sources)
        with open(path, "w") as f:
            f.write(f"{path}: {listed}\n\n" + "".join(f"{s}:\n" for s in sources))
        now = time.time()
        for s in sources:
            full = os.path.join(self.root, s)
            if os.path.exists(full):
                os.utime(full, (now - 10, now - 10))
        os.utime(path, (now - 10 + age, now - 10 + age))

    def chapter(self, body, name="chapter.md"):
        self.write(f"book/src/{name}", body)

    def problems(self, **kw):
        return check_book.check(self.root, **kw)

    def close(self):
        self.dir.cleanup()


class CheckBook(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.close()

    def assert_one(self, needle, **kw):
        """Exactly one problem, whose text contains `needle`."""
        problems = self.ws.problems(**kw)
        texts = [str(p) for p in problems]
        self.assertEqual(len(problems), 1, "\n".join(texts))
        self.assertIn(needle, texts[0])
        self.assertIn("fix:", texts[0])
        return problems[0]

    def test_the_good_book_passes(self):
        self.assertEqual([str(p) for p in self.ws.problems()], [])

    def test_code_typed_into_a_rust_block(self):
        self.ws.chapter("# C\n\n" + rust("let x = 1;"))
        problem = self.assert_one("not an include")
        self.assertEqual((problem.path, problem.line), ("book/src/chapter.md", 4))

    def test_any_fence_starting_with_rust_is_a_rust_block(self):
        self.ws.chapter(f"{FENCE}rustdoc\nfn main() {{}}\n{FENCE}\n")
        problems = [str(p) for p in self.ws.problems()]
        self.assertTrue(any("not an include" in p for p in problems), problems)

    def test_a_fence_other_than_rust_ignore(self):
        self.ws.chapter(f"{FENCE}rust,noplayground\n"
                        "{{#include ../../demo/src/whole.rs}}\n" + FENCE + "\n")
        self.assert_one("fenced ```rust,noplayground")

    def test_an_empty_rust_block(self):
        self.ws.chapter(rust(""))
        self.assert_one("empty Rust block")

    def test_a_missing_file(self):
        self.ws.chapter(rust("{{#include ../../demo/src/gone.rs}}"))
        self.assert_one("does not exist")

    def test_a_missing_file_outside_rust_blocks(self):
        self.ws.chapter(f"{FENCE}json\n{{{{#include ../../demo/wire.json}}}}\n{FENCE}\n")
        self.assert_one("demo/wire.json does not exist")

    def test_a_file_that_is_not_rust(self):
        self.ws.write("demo/notes.txt", "text\n")
        self.ws.chapter(rust("{{#include ../../demo/notes.txt}}"))
        self.assert_one("not a .rs file")

    def test_a_file_cargo_does_not_compile(self):
        self.ws.chapter(rust("{{#include ../../demo/src/extra.rs}}"))
        self.assert_one("extra.rs is not compiled by cargo")

    def test_a_file_changed_since_its_build(self):
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"], age=-5)
        problems = [str(p) for p in self.ws.problems()]
        self.assertTrue(problems)
        self.assertTrue(all("not compiled by cargo" in p for p in problems), problems)

    def test_no_build_at_all(self):
        os.remove(os.path.join(self.ws.root, "target", "debug", "deps", "demo-0123.d"))
        self.assert_one("no dep-info files")

    def test_a_missing_anchor(self):
        self.ws.chapter(rust("{{#include ../../demo/src/tool.rs:uses}}",
                             "{{#include ../../demo/src/tool.rs:nothing}}"))
        self.assert_one("has no anchor `nothing`")

    def test_an_unterminated_anchor(self):
        self.ws.write("demo/src/tool.rs", TOOL.replace("// ANCHOR_END: item\n", ""))
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])
        self.assert_one("never ends anchor `item`")

    def test_an_anchor_started_twice(self):
        self.ws.write("demo/src/tool.rs", TOOL + "// ANCHOR: item\n// ANCHOR_END: item\n")
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])
        self.assert_one("starts anchor `item` 2 times")

    def test_an_anchor_without_the_files_imports(self):
        self.ws.chapter(rust("{{#include ../../demo/src/tool.rs:item}}"))
        self.assert_one("shown without the file's imports")

    def test_the_imports_after_the_anchor_do_not_count(self):
        self.ws.chapter(rust("{{#include ../../demo/src/tool.rs:item}}",
                             "{{#include ../../demo/src/tool.rs:uses}}"))
        self.assert_one("shown without the file's imports")

    def test_imports_in_another_block_do_not_count(self):
        self.ws.chapter(rust("{{#include ../../demo/src/tool.rs:uses}}") +
                        rust("{{#include ../../demo/src/tool.rs:item}}"))
        self.assert_one("shown without the file's imports")

    def test_a_uses_anchor_holding_code(self):
        self.ws.write("demo/src/tool.rs", TOOL.replace(
            "use serde::Serialize;\n", "use serde::Serialize;\nconst X: u8 = 1;\n"))
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])
        self.assert_one("which is not a use line")

    def test_a_uses_anchor_may_hold_comments_attributes_and_long_uses(self):
        self.ws.write("demo/src/tool.rs", TOOL.replace(
            "use serde::Serialize;\n",
            "// Why this import.\n#[allow(unused_imports)]\nuse serde::{\n    Serialize,\n};\n"))
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])
        self.assertEqual([str(p) for p in self.ws.problems()], [])

    def test_a_use_line_outside_the_uses_anchor(self):
        self.ws.write("demo/src/tool.rs", TOOL.replace(
            "// ANCHOR_END: uses\n", "// ANCHOR_END: uses\nuse std::fmt;\n"))
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])
        self.assert_one("a use line outside the `uses` anchor")

    def test_a_whole_file_with_anchor_lines(self):
        self.ws.chapter(rust("{{#include ../../demo/src/tool.rs}}"))
        self.assert_one("included whole but has anchor lines")

    def test_a_line_range(self):
        self.ws.chapter(rust("{{#include ../../demo/src/whole.rs:3:5}}"))
        self.assert_one("included by line numbers")

    def test_a_line_mdbook_would_hide(self):
        self.ws.write("demo/src/whole.rs", WHOLE + "\n# hidden\n")
        self.ws.build(["demo/src/tool.rs", "demo/src/whole.rs", "demo/src/route.rs"])
        self.assert_one("mdbook hides or changes such lines")

    def test_a_crate_missing_from_the_dependency_block(self):
        self.ws.write("book/src/getting-started.md", GOOD_CHAPTER.replace('tokio = "1"\n', ""))
        self.assert_one("does not list tokio")

    def test_a_crate_of_a_later_chapter_missing_from_the_dependency_block(self):
        self.ws.write("book/src/getting-started.md", GOOD_CHAPTER.replace('axum = "0.8"\n', ""))
        self.assert_one("does not list axum, which the code of tools.md uses")

    def test_a_crate_no_snippet_builds_with(self):
        self.ws.write("book/src/getting-started.md",
                      GOOD_CHAPTER.replace('tokio = "1"\n', 'tokio = "1"\nrand = "0.9"\n'))
        self.assert_one("lists rand, which no crate compiling")

    def test_a_version_the_code_is_not_built_with(self):
        self.ws.write("book/src/getting-started.md",
                      GOOD_CHAPTER.replace('tokio = "1"\n', 'tokio = "2"\n'))
        self.assert_one("asks for tokio '2'")

    def test_anchor_lines_in_the_rendered_book(self):
        html = os.path.join(self.ws.root, "book", "build")
        self.ws.write("book/build/chapter.html", "<pre>// ANCHOR: item\nstruct Item;</pre>\n")
        self.assert_one("rendered page shows 'ANCHOR: item'", html_dir=html)

    def test_an_unexpanded_include_in_the_rendered_book(self):
        html = os.path.join(self.ws.root, "book", "build")
        self.ws.write("book/build/chapter.html", "<pre>{{#include gone.rs}}</pre>\n")
        self.assert_one("rendered page shows '{{#include'", html_dir=html)

    def test_version_requirements(self):
        self.assertTrue(check_book.admits("1", "1.0.229"))
        self.assertTrue(check_book.admits("0.8", "0.8.9"))
        self.assertTrue(check_book.admits("0.1", "0.1.0"))
        self.assertFalse(check_book.admits("0.8", "0.9.0"))
        self.assertFalse(check_book.admits("1.2", "1.1.0"))
        self.assertFalse(check_book.admits("2", "1.0.0"))
        self.assertEqual(check_book.major("1.0.154"), "1")
        self.assertEqual(check_book.major("0.8.9"), "0.8")


if __name__ == "__main__":
    unittest.main()
