//! `tests/SPEC-COVERAGE.md` accounts for every MUST item of the specification: one row
//! per S-id, each naming tests that exist or saying why the item does not apply. A test
//! renamed or removed without the table following fails here, and so does a citation whose
//! test does not name the row's S-id at the assertion that proves it. And no unit test sits
//! where `cargo test` does not look for one, and axum comes without its default features.

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

/// Every citation names the assertion that proves its row: the cited function's body (or
/// the cited file, for a transcript or a trybuild case) holds the row's S-id, in a comment
/// at that assertion, so a reader can go from each row to the lines that prove it. A test
/// with no such assertion is not cited. The conformance scenarios of
/// `tests/conformance/run.sh` are the official suite's own assertions and are not read.
#[test]
fn every_citation_names_the_assertion_that_proves_its_row() {
    let root = repository();
    let mut unproven = Vec::new();
    for (id, covered) in rows() {
        for (path, name) in references(&covered) {
            if path == "tests/conformance/run.sh" {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(root.join(&path)) else {
                continue; // every_named_test_exists reports it
            };
            match name {
                Some(name) => {
                    let Some(body) = function_body(&text, &name) else {
                        continue; // every_named_test_exists reports it
                    };
                    if !names_id(body, &id) {
                        unproven.push(format!(
                            "{id}: {path}::{name} does not name {id}: put `// {id}: what it shows` \
                             at the assertion in `{name}` that proves the row, or, if none does, \
                             take the citation out of the row"
                        ));
                    }
                }
                None => {
                    if !names_id(&text, &id) {
                        unproven.push(format!(
                            "{id}: {path} does not name {id}: put a comment `{id}: what it shows` \
                             at the exchange or case that proves the row (`#` in a transcript, \
                             `//` in Rust), or cite a test function instead"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        unproven.is_empty(),
        "{} citation(s) of tests/SPEC-COVERAGE.md name no assertion:\n{}",
        unproven.len(),
        unproven.join("\n")
    );
}

/// Whether `text` holds `id` (`S-061`) as a whole word: not as part of `S-0612` or `XS-061`.
fn names_id(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + id.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The text of `fn name(` up to the brace that closes its body, or `None` if the file has
/// no such function. Braces inside string, raw string and char literals and inside
/// comments are not counted.
fn function_body<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let start = text.find(&format!("fn {name}("))?;
    let bytes = text.as_bytes();
    let mut i = start;
    // Parentheses and brackets of the signature; braces of the body.
    let (mut open, mut depth) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                // Block comments nest.
                let mut nested = 0;
                while i < bytes.len() {
                    if bytes[i..].starts_with(b"/*") {
                        nested += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b"*/") {
                        nested -= 1;
                        i += 2;
                        if nested == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'r' if !bytes[..i].last().is_some_and(|&b| is_ident(b) && b != b'b') => {
                // A raw string: r"..", r#".."#, br#".."#.
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if bytes.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let from = i + 2 + hashes;
                    i = text[from..].find(&close).map_or(bytes.len(), |n| from + n) + close.len();
                    continue;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' => {
                // A char literal ('x', '\n', '\'', '\u{7f}', '{'), or else a lifetime.
                if bytes.get(i + 1) == Some(&b'\\') {
                    // Past the backslash and the character it escapes.
                    i += 3;
                    while i < bytes.len() && bytes[i] != b'\'' {
                        i += 1;
                    }
                } else if let Some(c) = text[i + 1..].chars().next() {
                    if text[i + 1 + c.len_utf8()..].starts_with('\'') {
                        i += c.len_utf8() + 1;
                    }
                }
            }
            b'(' | b'[' => open += 1,
            b')' | b']' => open = open.saturating_sub(1),
            b'{' if depth > 0 || open == 0 => depth += 1,
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..=i]);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[test]
fn function_bodies_end_at_their_own_closing_brace() {
    let source = r####"
fn cited(x: [u8; 2]) {
    let s = "}"; let r = r#"}"#; let c = '}'; let q = ['\'','}']; let l: &'static str = "{";
    // }
    /* } /* nested } */ } */
    if true { assert!(s.len() == 1, "S-061"); }
}
fn after() { "S-099" }
"####;
    let body = function_body(source, "cited").expect("found");
    assert!(body.ends_with("}\n}"), "{body}");
    assert!(names_id(body, "S-061") && !names_id(body, "S-099"));
    assert!(!names_id("S-0612 and XS-061", "S-061"));
    assert!(names_id("S-060..S-061: both", "S-061"));
    assert_eq!(function_body(source, "missing"), None);
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
