"""Tests of check_feature_docs.py: a small documentation folder in a temporary directory,
labelled as rustdoc labels it with `--cfg docsrs`, then each way a label can be wrong.

    python3 scripts/lib/test_check_feature_docs.py
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_feature_docs  # noqa: E402

SURFACE = """\
demo::Server (use)
demo::client (mod) [cfg: feature = "client"]
demo::client::Client (struct) [cfg: feature = "client"]
demo::testing::TestIssuer (use) [cfg: feature = "testing", feature = "oauth"]
demo::era (mod) [cfg: not(feature = "legacy")]
"""


def label(*features):
    code = " and ".join(f"<code>{f}</code>" for f in features)
    s = "s" if len(features) > 1 else ""
    return f'<span class="stab portability" title="x">Available on <strong>crate feature{s} {code}</strong> only.</span>'


class CheckFeatureDocs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.doc = Path(self.tmp.name)
        self.write("client/index.html", label("client"))
        self.write("client/struct.Client.html", label("client"))
        self.write("testing/struct.TestIssuer.html", label("testing", "oauth"))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, body):
        page = self.doc / rel
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<html>{body}</html>")

    def test_labelled_pages_pass(self):
        self.assertEqual(check_feature_docs.problems(SURFACE, self.doc), [])

    def test_only_feature_conditions_are_checked(self):
        items = [p for p, _, _ in check_feature_docs.gated_items(SURFACE)]
        self.assertEqual(items, ["demo::client", "demo::client::Client", "demo::testing::TestIssuer"])

    def test_a_page_without_a_label_is_reported(self):
        self.write("client/struct.Client.html", "no label")
        [problem] = check_feature_docs.problems(SURFACE, self.doc)
        self.assertIn("demo::client::Client: the page names features None", problem)

    def test_a_label_missing_one_of_two_features_is_reported(self):
        self.write("testing/struct.TestIssuer.html", label("testing"))
        [problem] = check_feature_docs.problems(SURFACE, self.doc)
        self.assertIn("['testing'], the item needs ['oauth', 'testing']", problem)

    def test_a_missing_page_is_reported(self):
        (self.doc / "client/index.html").unlink()
        [problem] = check_feature_docs.problems(SURFACE, self.doc)
        self.assertIn("demo::client: no page for this mod", problem)


if __name__ == "__main__":
    unittest.main()
