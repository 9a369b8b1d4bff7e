//! `tests/SPEC-COVERAGE.md` accounts for every MUST item of the specification: one row
//! per S-id, each naming tests that exist or saying why the item does not apply. A test
//! renamed or removed without the table following fails here. And no unit test sits where
//! `cargo test` does not look for one, and axum comes without its default features.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The MUST items of the server checklist for revision 2026-07-28.
const MUST_ITEMS: usize = 207;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// The `(S-id, covered by)` cells of the table.
fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repository().join("tests/SPEC-COVERAGE.md"))
        .expect("tests/SPEC-COVERAGE.md");
    text.lines()
        .filter(|line| {
            line.strip_prefix("| S-")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|line| {
            // The requirement's text may hold escaped bars; the id leads, the tests end.
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            let id = cells
                .first()
                .map(|c| c.trim().to_owned())
                .unwrap_or_default();
            let covered = cells
                .last()
                .map(|c| c.trim().to_owned())
                .unwrap_or_default();
            (id, covered)
        })
        .collect()
}

/// The `path` or `path::name` references of a cell.
fn references(cell: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    for word in cell.split(|c: char| c.is_whitespace() || matches!(c, ';' | '(' | ')' | ',')) {
        let word = word.trim_end_matches(['.', ':']);
        let rooted = ["tests/", "examples/", "mcp-runtime/", "mcp-macros/"]
            .iter()
            .any(|root| word.starts_with(root));
        if !rooted {
            continue;
        }
        match word.split_once("::") {
            Some((path, name)) => found.push((path.to_owned(), Some(name.to_owned()))),
            None => found.push((word.to_owned(), None)),
        }
    }
    found
}

#[test]
fn every_must_item_has_one_row() {
    let rows = rows();
    let ids: BTreeSet<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids.len(), rows.len(), "an S-id appears twice");
    assert_eq!(rows.len(), MUST_ITEMS, "one row per MUST item");
    for id in &ids {
        let number = id.strip_prefix("S-").and_then(|n| n.parse::<u32>().ok());
        assert!(number.is_some_and(|n| (1..=380).contains(&n)), "{id}");
    }
}

#[test]
fn every_row_names_a_test_or_a_reason() {
    for (id, covered) in rows() {
        let reason = covered
            .strip_prefix("n/a:")
            .map(str::trim)
            .filter(|r| r.len() > 10);
        assert!(
            reason.is_some() || !references(&covered).is_empty(),
            "{id} names no test and gives no reason: {covered:?}"
        );
    }
}

#[test]
fn every_named_test_exists() {
    let root = repository();
    let run_sh = std::fs::read_to_string(root.join("tests/conformance/run.sh")).unwrap();
    let mut missing = Vec::new();
    for (id, covered) in rows() {
        for (path, name) in references(&covered) {
            let file = root.join(&path);
            let Ok(text) = std::fs::read_to_string(&file) else {
                missing.push(format!("{id}: no file {path}"));
                continue;
            };
            let Some(name) = name else {
                continue;
            };
            let found = if path == "tests/conformance/run.sh" {
                // A scenario the script requires by name.
                run_sh
                    .split(|c: char| c.is_whitespace() || matches!(c, '"' | '='))
                    .any(|w| w == name)
            } else {
                text.contains(&format!("fn {name}("))
            };
            if !found {
                missing.push(format!("{id}: no test {name} in {path}"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The programs declared `test = false` (the servers, which tests start rather than unit
/// test: `cargo test` builds them once, not also as a test harness) must stay without unit
/// tests, or those tests would never run.
#[test]
fn no_unit_test_sits_in_a_program_cargo_test_skips() {
    let root = repository();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest
        .lines()
        .find_map(|line| line.strip_prefix("members = "))
        .expect("the workspace's members");
    let mut skipped = 0;
    for member in members.split('"').skip(1).step_by(2) {
        let dir = root.join(member);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect(member);
        for block in manifest.split("[[bin]]").skip(1) {
            let block = block.split("\n[").next().unwrap_or_default();
            if !block.lines().any(|line| line.trim() == "test = false") {
                continue;
            }
            let path = block
                .lines()
                .find_map(|line| line.trim().strip_prefix("path = \""))
                .and_then(|rest| rest.strip_suffix('"'))
                .unwrap_or_else(|| {
                    panic!("{member}: a [[bin]] with `test = false` names its path")
                });
            let source = std::fs::read_to_string(dir.join(path)).expect(path);
            assert!(
                !source.contains("#[test]") && !source.contains("#[cfg(test)]"),
                "{member}/{path} has unit tests, but its [[bin]] says `test = false`: remove that line"
            );
            skipped += 1;
        }
    }
    assert!(
        skipped >= 14,
        "the servers of examples/, the ledger and the fixtures: {skipped}"
    );
}

/// The runtime and the examples (the benchmark server among them) take axum without its
/// default features: `matched-path` and `original-uri` would add two values to every HTTP
/// request's extensions, which nothing of theirs reads (book, "Performance").
#[test]
fn axum_comes_without_its_per_request_default_features() {
    let root = repository();
    for member in ["mcp-runtime", "examples"] {
        let manifest = std::fs::read_to_string(root.join(member).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{member}/Cargo.toml: {e}"));
        let axum = manifest
            .lines()
            .find(|line| line.starts_with("axum = "))
            .unwrap_or_else(|| panic!("{member} depends on axum"));
        assert!(
            axum.contains("default-features = false")
                && !axum.contains("matched-path")
                && !axum.contains("original-uri"),
            "{member}/Cargo.toml: {axum}"
        );
    }
}
