"""Tests of check_book.py: a small book and workspace in a temporary folder, a good one
that passes, then one broken fragment per kind of problem, each of which must be reported.
The workspace holds, in small, what the reference tables are held to
(reference_tables.py): the macros' option declarations, mcp-runtime's features and its
public API listing.

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
import reference_tables  # noqa: E402

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

# The code the reference tables describe (scripts/lib/reference_tables.py), in small.

OPTIONS_RS = """\
macro_rules! option_keys {
    ($vis:vis enum $name:ident for $macro_name:literal {
        $($variant:ident = $spelling:literal,)+
    }) => {};
}

#[cfg(test)]
mod tests {
    option_keys! {
        enum Sample for "sample" {
            First = "first",
        }
    }
}
"""

TOOL_KEYS = """\
option_keys! {
    /// The options of `#[tool(..)]`.
    enum ToolKey for "tool" {
        Name = "name",
        ReadOnly = "read_only",
        // A comment = "not a key",
        Timeout = "timeout",
    }
}
"""

RESOURCE_KEYS = """\
option_keys! {
    enum ResourceKey for "resource" {
        Name = "name",
        Mime = "mime",
    }
}
"""

PROMPT_KEYS = """\
option_keys! {
    enum PromptKey for "prompt" {
        Name = "name",
        Complete = "complete",
    }
}
"""

VIEW_KEYS = """\
option_keys! {
    enum ViewKey for "view" {
        Name = "name",
        Csp = "csp",
        Permissions = "permissions",
    }
}

/// The keys of `csp(..)`.
const CSP_KEYS: &[&str] = &["connect", "base_uri"];

/// The permissions a view may ask for.
const PERMISSIONS: &[&str] = &["camera", "clipboard_write"];
"""

RUNTIME_CARGO = """\
[package]
name = "mcp-runtime"
version = "0.1.0"

[features]
default = ["legacy"]
# The handshake era.
legacy = []
# The store in SQLite.
sqlite = ["dep:rusqlite"]
"""

PUBLIC_API = """\
pub mod mcp_runtime::protocol::error
pub struct mcp_runtime::protocol::error::RpcError
pub mcp_runtime::protocol::error::RpcError::code: i64
impl mcp_runtime::protocol::error::RpcError
pub fn mcp_runtime::protocol::error::RpcError::internal(impl core::convert::Into<alloc::string::String>) -> Self
pub fn mcp_runtime::protocol::error::RpcError::new(i64, impl core::convert::Into<alloc::string::String>) -> Self
pub fn mcp_runtime::protocol::error::RpcError::with_data(self, serde_json::value::Value) -> Self
impl core::convert::From<mcp_runtime::InputRequired> for mcp_runtime::protocol::error::RpcError
pub fn mcp_runtime::protocol::error::RpcError::from(mcp_runtime::InputRequired) -> Self
impl core::clone::Clone for mcp_runtime::protocol::error::RpcError
pub fn mcp_runtime::protocol::error::RpcError::clone(&self) -> mcp_runtime::protocol::error::RpcError
pub fn mcp_runtime::InputRequired::to_rpc_error(&self) -> mcp_runtime::protocol::error::RpcError
"""

FEATURES_SECTION = """\
### Cargo features

| feature | what it enables | default |
| --- | --- | --- |
| `legacy` | the handshake era | yes |
| `sqlite` | the store in SQLite | no |
"""

TOOLS_TABLES = """\
### JSON-RPC errors

| constructor | code | when to use it |
| --- | --- | --- |
| `RpcError::new(code, message)` | the one given | a code of your own |
| `RpcError::internal(message)` | -32603 | a failure of the server |

## Options

```text
| option | in a code block, not the table |
| --- | --- |
| `colour` | not checked |
```

| option | takes | what it does | example |
| --- | --- | --- | --- |
| `name` | a string | the name | `name = "add"` |
| `read_only` | a flag | the hint | `read_only` |
| `timeout` | a duration | the limit \\| of a call | `timeout = "30s"` |

## After

| option | a table of another section |
| --- | --- |
| `colour` | not checked |
"""

RESOURCES_CHAPTER = """\
# Resources

## Options

| option | takes |
| --- | --- |
| `name` | a string |
| `mime = "text/plain"` | a MIME type |
"""

PROMPTS_CHAPTER = """\
# Prompts

## Options

| option | takes |
| --- | --- |
| `name` | a string |
| `complete(argument = completer)` | completers |
"""

VIEWS_CHAPTER = """\
# Views

## Options

| option | takes |
| --- | --- |
| `name` | a string |
| `csp(connect("https://api.example.com"))` | origins |
| `csp(base_uri(..))` | origins |
| `permissions(camera, clipboard_write)` | features |
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

{FEATURES_SECTION}"""


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
        self.write("book/src/tools.md",
                   rust("{{#include ../../demo/src/route.rs}}") + "\n" + TOOLS_TABLES)
        self.write("book/src/resources.md", RESOURCES_CHAPTER)
        self.write("book/src/prompts.md", PROMPTS_CHAPTER)
        self.write("book/src/views.md", VIEWS_CHAPTER)
        # What the reference tables are held to.
        self.write("mcp-macros/src/options.rs", OPTIONS_RS)
        self.write("mcp-macros/src/tool/model.rs", TOOL_KEYS)
        self.write("mcp-macros/src/resource/model.rs", RESOURCE_KEYS)
        self.write("mcp-macros/src/prompt/model.rs", PROMPT_KEYS)
        self.write("mcp-macros/src/view/model.rs", VIEW_KEYS)
        self.write("mcp-runtime/Cargo.toml", RUNTIME_CARGO)
        self.write("mcp-runtime/tests/public-api.txt", PUBLIC_API)
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

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            return f.read()

    def problems(self, **kw):
        return check_book.check(self.root, **kw)

    def close(self):
        self.dir.cleanup()


class CheckBook(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.close()

    def read(self, path):
        return self.ws.read(path)

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

    # ---- the reference tables ------------------------------------------------------------

    def test_an_option_the_tool_table_misses(self):
        self.ws.write("mcp-macros/src/tool/model.rs", TOOL_KEYS.replace(
            '        Timeout = "timeout",\n',
            '        Timeout = "timeout",\n        Queue = "queue",\n'))
        problem = self.assert_one("the table of the options of #[tool] does not list `queue`, "
                                  "which the macro accepts (mcp-macros/src/tool/model.rs:8)")
        self.assertEqual(problem.path, "book/src/tools.md")

    def test_an_option_the_tool_does_not_accept(self):
        self.ws.write("book/src/tools.md", self.read("book/src/tools.md").replace(
            "| `read_only` |", "| `colour = \"red\"` | a colour | | |\n| `read_only` |"))
        self.assert_one("lists `colour`, which #[tool] does not accept "
                        "(its options: name, read_only, timeout;")

    def test_an_option_renamed_in_the_macro(self):
        self.ws.write("mcp-macros/src/resource/model.rs",
                      RESOURCE_KEYS.replace('"mime"', '"mime_type"'))
        texts = [str(p) for p in self.ws.problems()]
        self.assertEqual(len(texts), 2, "\n".join(texts))
        self.assertIn("does not list `mime_type`", texts[0])
        self.assertIn("lists `mime`, which #[resource] does not accept", texts[1])

    def test_a_nested_key_the_table_misses(self):
        self.ws.write("mcp-macros/src/view/model.rs",
                      VIEW_KEYS.replace('"connect", "base_uri"', '"connect", "frame", "base_uri"'))
        self.assert_one("does not list `csp(frame)`, which the macro accepts "
                        "(mcp-macros/src/view/model.rs:10, CSP_KEYS)")

    def test_a_nested_key_the_macro_does_not_accept(self):
        self.ws.write("book/src/views.md", VIEWS_CHAPTER.replace(
            "permissions(camera, clipboard_write)", "permissions(camera, laser, clipboard_write)"))
        self.assert_one("lists `permissions(laser)`, which the macro does not accept "
                        "(its keys: camera, clipboard_write;")

    def test_the_list_of_nested_keys_gone(self):
        self.ws.write("mcp-macros/src/view/model.rs", VIEW_KEYS.replace("PERMISSIONS", "ASKS"))
        self.assert_one("no `const PERMISSIONS: &[&str]` in mcp-macros/src/view/model.rs")

    def test_an_attribute_no_chapter_lists(self):
        self.ws.write("mcp-macros/src/sampler/model.rs",
                      'option_keys! {\n    enum SamplerKey for "sampler" {\n'
                      '        Name = "name",\n    }\n}\n')
        self.assert_one("#[sampler] declares its options with option_keys!, and no chapter")

    def test_an_attribute_whose_keys_are_gone(self):
        os.remove(os.path.join(self.ws.root, "mcp-macros/src/prompt/model.rs"))
        self.assert_one("no option_keys! declares the options of #[prompt]")

    def test_an_options_section_without_its_table(self):
        self.ws.write("book/src/prompts.md", "# Prompts\n\n## Options\n\n`name`, `complete`.\n")
        self.assert_one("the section \"Options\" has no table of the options of #[prompt]")

    def test_a_chapter_without_its_options_section(self):
        self.ws.write("book/src/resources.md", "# Resources\n")
        self.assert_one("no section \"Options\", where the table of the options of "
                        "#[resource] goes")

    def test_a_row_that_names_nothing(self):
        self.ws.write("book/src/prompts.md", PROMPTS_CHAPTER + "| name | a string |\n")
        self.assert_one("a row of the table of the options of #[prompt] names nothing")

    def test_a_feature_the_table_misses(self):
        self.ws.write("mcp-runtime/Cargo.toml", RUNTIME_CARGO + "otel = []\n")
        problem = self.assert_one("the table of the cargo features of mcp-runtime does not "
                                  "list `otel`, a feature of mcp-runtime/Cargo.toml (line 11)")
        self.assertEqual(problem.path, "book/src/getting-started.md")

    def test_a_feature_that_is_not_there(self):
        self.ws.write("book/src/getting-started.md", GOOD_CHAPTER.replace(
            "| `sqlite` |", "| `gpu` | shaders | no |\n| `sqlite` |"))
        self.assert_one("lists `gpu`, which is not a feature of mcp-runtime/Cargo.toml "
                        "(its features: legacy, sqlite)")

    def test_a_feature_said_default_wrongly(self):
        self.ws.write("book/src/getting-started.md", GOOD_CHAPTER.replace(
            "the store in SQLite | no", "the store in SQLite | yes"))
        self.assert_one("says `sqlite` is on by default; mcp-runtime/Cargo.toml has "
                        "default = [\"legacy\"]")

    def test_a_features_table_without_its_default_column(self):
        self.ws.write("book/src/getting-started.md", GOOD_CHAPTER.replace(
            "| default |", "| on |"))
        self.assert_one("has no `default` column")

    def test_a_constructor_the_table_misses(self):
        self.ws.write("mcp-runtime/tests/public-api.txt", PUBLIC_API.replace(
            "pub fn mcp_runtime::protocol::error::RpcError::new(",
            "pub fn mcp_runtime::protocol::error::RpcError::forbidden(&str) -> Self\n"
            "pub fn mcp_runtime::protocol::error::RpcError::new("))
        self.assert_one("the table of the constructors of RpcError does not list "
                        "`RpcError::forbidden`, a public constructor "
                        "(mcp-runtime/tests/public-api.txt:6)")

    def test_a_constructor_that_is_not_public(self):
        self.ws.write("book/src/tools.md", self.read("book/src/tools.md").replace(
            "| `RpcError::internal(message)` |",
            "| `RpcError::teapot()` | 418 | never |\n| `RpcError::internal(message)` |"))
        self.assert_one("lists `RpcError::teapot`, which is not public")

    def test_the_public_api_listing_gone(self):
        os.remove(os.path.join(self.ws.root, "mcp-runtime/tests/public-api.txt"))
        self.assert_one("the public API listing, whose RpcError constructors the book lists, "
                        "does not exist")

    def test_the_methods_of_a_type_in_a_listing(self):
        constructors, methods = reference_tables.public_methods(PUBLIC_API, "RpcError")
        self.assertEqual(sorted(constructors), ["internal", "new"])
        self.assertEqual(sorted(methods), ["internal", "new", "with_data"])

    def test_options_as_written(self):
        named = reference_tables.option_named
        self.assertEqual(named('csp(connect("https://a.example"), base_uri(..))'),
                         ("csp", ["connect", "base_uri"]))
        self.assertEqual(named("permissions(camera, clipboard_write)"),
                         ("permissions", ["camera", "clipboard_write"]))
        self.assertEqual(named('scopes("a:b", "c")'), ("scopes", []))
        self.assertEqual(named("visibility = [model, app]"), ("visibility", []))
        self.assertEqual(named("read_only"), ("read_only", []))

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
