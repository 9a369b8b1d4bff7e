//! `mcp openapi`: the files it writes and keeps, what it reports, and how it refuses what
//! it cannot read. (That the generated crates build, pass clippy and serve is the test
//! command's `scripts/openapi-corpus.sh` step, over real documents.)

use std::path::Path;
use std::process::{Command, Output};

const SHOP: &str = include_str!("../../mcp-openapi/tests/documents/shop.yaml");

fn mcp(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("mcp runs")
}

fn folder(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shop.yaml"), SHOP).unwrap();
    dir
}

#[test]
fn a_crate_is_written_and_regenerating_keeps_the_team_s_files() {
    let dir = folder("openapi-regenerate");
    let first = mcp(&["openapi", "shop.yaml", "--out", "shop"], &dir);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("5 tools, 2 operations skipped"), "{stderr}");
    assert!(
        stderr.contains("skipped PUT /items/{itemId}/photo: a request body of type image/png"),
        "{stderr}"
    );
    let crate_dir = dir.join("shop");
    for file in [
        "Cargo.toml",
        "mcp-openapi.toml",
        "src/lib.rs",
        "src/main.rs",
        "src/api/mod.rs",
        "src/api/client.rs",
        "src/api/types.rs",
        "src/api/tools/mod.rs",
        "src/api/tools/create_item.rs",
        "src/api/tools/list_events.rs",
    ] {
        assert!(crate_dir.join(file).exists(), "{file} written");
    }
    let tools = std::fs::read_to_string(crate_dir.join("src/api/tools/list_items.rs")).unwrap();
    assert!(
        tools.contains("Do not edit"),
        "the header says generated files are not edited"
    );
    assert!(tools.contains("pub async fn list_items("));
    assert!(tools.contains("#[serde(rename = \"perPage\""), "{tools}");
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("name = \"shop-mcp\"") && manifest.contains("mcp-runtime = \"0.1\""),
        "{manifest}"
    );

    // The team edits its own files and curates; generating again keeps them and follows
    // the curation file found in the crate.
    std::fs::write(crate_dir.join("src/lib.rs"), "// the team's own\n").unwrap();
    std::fs::write(
        crate_dir.join("mcp-openapi.toml"),
        "[select]\ntags = [\"items\"]\n\n[operations.listItems]\nname = \"browse\"\n",
    )
    .unwrap();
    let edited = crate_dir.join("src/api/tools/create_item.rs");
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, format!("{text}// edited by hand\n")).unwrap();
    // A file of the team's own in the generated folder is left alone.
    std::fs::write(crate_dir.join("src/api/notes.txt"), "ours\n").unwrap();
    let again = mcp(&["openapi", "shop.yaml", "--out", "shop"], &dir);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(crate_dir.join("src/lib.rs")).unwrap(),
        "// the team's own\n"
    );
    let text = std::fs::read_to_string(&edited).unwrap();
    assert!(
        !text.contains("edited by hand"),
        "generated files are written again"
    );
    let tools = crate_dir.join("src/api/tools");
    let browse = std::fs::read_to_string(tools.join("browse.rs")).unwrap();
    assert!(browse.contains("pub async fn browse("), "curated");
    // A tool no longer selected leaves no file behind.
    assert!(!tools.join("list_events.rs").exists() && !tools.join("list_items.rs").exists());
    assert_eq!(
        std::fs::read_to_string(crate_dir.join("src/api/notes.txt")).unwrap(),
        "ours\n"
    );
}

#[test]
fn a_dry_run_reports_and_writes_nothing() {
    let dir = folder("openapi-dry-run");
    let output = mcp(
        &["openapi", "shop.yaml", "--out", "shop", "--dry-run"],
        &dir,
    );
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("5 tools"));
    assert!(!dir.join("shop").exists());
}

#[test]
fn what_cannot_be_read_is_refused_with_exit_2_and_the_reason() {
    let dir = folder("openapi-refused");
    std::fs::write(dir.join("swagger.yaml"), "swagger: '2.0'\npaths: {}\n").unwrap();
    std::fs::write(dir.join("bad.toml"), "[operations.nope]\nname = \"x\"\n").unwrap();
    for (args, expected) in [
        (
            vec!["openapi", "swagger.yaml", "--out", "x"],
            "swagger2openapi",
        ),
        (
            vec!["openapi", "missing.yaml", "--out", "x"],
            "cannot read missing.yaml",
        ),
        (
            vec!["openapi", "shop.yaml", "--out", "x", "--config", "bad.toml"],
            "`nope`",
        ),
    ] {
        let output = mcp(&args, &dir);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert!(!dir.join("x").exists(), "nothing written");
}

#[test]
fn text_from_the_document_cannot_take_over_the_terminal() {
    let dir = folder("openapi-terminal");
    // A path (quoted in the report of what was skipped) with escape sequences in it.
    let hostile = SHOP.replace(
        "  /orders/{orderId}:",
        "  \"/orders\\e]0;owned\\a\\e[2J/{orderId}\":",
    );
    assert_ne!(hostile, SHOP);
    std::fs::write(dir.join("shop.yaml"), hostile).unwrap();
    let output = mcp(
        &["openapi", "shop.yaml", "--out", "shop", "--dry-run"],
        &dir,
    );
    assert!(output.status.success());
    assert!(
        !output.stderr.contains(&0x1b),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_committed_examples_are_what_generation_writes_today() {
    // `examples/inventory-mcp` is generated from `examples/inventory-api/openapi.json`,
    // `examples/orders-mcp` (called as the caller, `[as_caller]`) from its own
    // `openapi.json`; generating them again must give the very same files, or the commit
    // is stale.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for (example, document) in [
        ("inventory-mcp", "../inventory-api/openapi.json"),
        ("orders-mcp", "openapi.json"),
    ] {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("openapi-{example}"));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.join("examples").join(example);
        std::fs::create_dir_all(&out).unwrap();
        let source = examples.join(example).join(document);
        let copied = out.join(document);
        std::fs::create_dir_all(copied.parent().unwrap()).unwrap();
        std::fs::copy(&source, &copied).unwrap();
        // The team's files, which the generation reads (the curation, the crate's name).
        for file in ["mcp-openapi.toml", "Cargo.toml"] {
            std::fs::copy(examples.join(example).join(file), out.join(file)).unwrap();
        }
        let output = mcp(&["openapi", document, "--out", "."], &out);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let committed = files(&examples.join(example).join("src/api"));
        let generated = files(&out.join("src/api"));
        assert_eq!(
            committed.keys().collect::<Vec<_>>(),
            generated.keys().collect::<Vec<_>>(),
            "the generated files of {example}"
        );
        for (file, text) in &committed {
            assert!(
                generated.get(file) == Some(text),
                "examples/{example}/src/api/{file} differs from what `mcp openapi` writes today; \
                 run `cargo run -p mcp-cli -- openapi {document} --out .` in \
                 examples/{example} and commit the result"
            );
        }
    }
}

/// Every file under `dir`, by its path relative to `dir`.
fn files(dir: &Path) -> std::collections::BTreeMap<String, String> {
    let mut found = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                found.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    found
}
