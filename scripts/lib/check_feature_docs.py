"""Checks that the API documentation names the cargo feature of every feature-gated item.

Reads the public surface of mcp-runtime (mcp-runtime/tests/public-surface.txt, where each
item that needs a feature says `[cfg: feature = "x"]`) and the HTML that rustdoc wrote
with `--cfg docsrs` (as docs.rs builds it), and fails unless each such item's page carries
rustdoc's label "Available on crate feature x only" naming exactly its features.

Usage: check_feature_docs.py SURFACE_LIST DOC_DIR   (DOC_DIR: target/.../doc/mcp_runtime)
"""

import re
import sys
from pathlib import Path

LINE = re.compile(r"^(?P<path>\S+) \((?P<kind>[a-z ]+)\) \[cfg: (?P<cfg>.*)\]$")
FEATURE = re.compile(r'^feature = "([^"]+)"$')
LABEL = re.compile(r'class="stab portability"[^>]*>Available on <strong>crate features? (.*?)</strong> only')


def gated_items(surface: str):
    """(path, kind, features) of each listed item whose conditions are all features."""
    for line in surface.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        conditions = [c.strip() for c in m["cfg"].split(",")]
        features = [FEATURE.match(c) for c in conditions]
        if all(features):
            yield m["path"], m["kind"], sorted(f[1] for f in features)


def page_of(doc: Path, path: str, kind: str):
    """The page rustdoc wrote for a public path, or None."""
    parts = path.split("::")[1:]
    if kind == "mod":
        page = doc.joinpath(*parts, "index.html")
        return page if page.is_file() else None
    pages = sorted(doc.joinpath(*parts[:-1]).glob(f"*.{parts[-1]}.html"))
    return pages[0] if len(pages) == 1 else None


def labelled_features(html: str):
    """The features the page's first portability label names (its item's own)."""
    m = LABEL.search(html)
    return sorted(re.findall(r"<code>([^<]+)</code>", m[1])) if m else None


def problems(surface: str, doc: Path):
    found = []
    for path, kind, features in gated_items(surface):
        page = page_of(doc, path, kind)
        if page is None:
            found.append(f"{path}: no page for this {kind} under {doc}")
            continue
        got = labelled_features(page.read_text())
        if got != features:
            found.append(f"{path}: the page names features {got}, the item needs {features}")
    return found


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    surface = Path(argv[1]).read_text()
    found = problems(surface, Path(argv[2]))
    for p in found:
        print(p, file=sys.stderr)
    if found:
        sys.exit(1)
    print(f"{sum(1 for _ in gated_items(surface))} feature-gated items, each labelled with its features")


if __name__ == "__main__":
    main(sys.argv)
