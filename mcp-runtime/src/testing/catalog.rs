//! A server's catalog, pinned in a file: [`assert_catalog`] fails when what the server
//! offers is not what the file says, as the crates' public-API pins do, and writes the file
//! anew when `MCP_CATALOG=overwrite`.

// A failed check is a failed test: it panics with what differs, as `assert_eq!` does.
#![allow(clippy::panic)]

use std::path::Path;

use serde_json::{json, Value};

use super::TestClient;
use crate::App;

/// The environment variable that makes [`assert_catalog`] write the file instead of
/// comparing it, after an intended change.
pub const CATALOG_ENV: &str = "MCP_CATALOG";

impl TestClient {
    /// The snapshot of what the server offers this client (its tools, resources, resource
    /// templates and prompts, every page, as its caller sees them), in the canonical form
    /// `mcp catalog` writes and `mcp catalog diff` reads.
    pub async fn catalog(&self) -> Value {
        let discovered = self.discover().await;
        let capabilities = discovered.get("capabilities");
        let declares = |kind: &str| capabilities.and_then(|c| c.get(kind)).is_some();
        let mut sections = Vec::new();
        for (kind, method, member) in [
            ("tools", "tools/list", "tools"),
            ("resources", "resources/list", "resources"),
            ("resources", "resources/templates/list", "resourceTemplates"),
            ("prompts", "prompts/list", "prompts"),
        ] {
            let mut entries = Vec::new();
            if declares(kind) {
                self.all(method, member, &mut entries).await;
            }
            sections.push(entries);
        }
        let mut sections = sections.into_iter();
        let mut next = || sections.next().unwrap_or_default();
        crate::protocol::catalog::snapshot(next(), next(), next(), next())
    }

    /// Every entry of a listing, page after page; a listing the server refuses ends the
    /// test with its error.
    async fn all(&self, method: &str, member: &str, into: &mut Vec<Value>) {
        let mut cursor: Option<Value> = None;
        // A bound, so that a server that keeps handing out cursors ends the test.
        for _ in 0..10_000 {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let response = self.request(method, params).await;
            let Some(result) = response.get("result") else {
                panic!("{method} failed: {response}");
            };
            if let Some(Value::Array(entries)) = result.get(member) {
                into.extend(entries.iter().cloned());
            }
            match result.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => return,
            }
        }
        panic!("{method} kept handing out cursors");
    }
}

/// Check that `app` offers an anonymous caller exactly the catalog kept at `path` (relative
/// to the crate's folder when a test runs), as `mcp catalog` writes it. On a difference the
/// test fails saying where the two part; after an intended change, run the test once with
/// `MCP_CATALOG=overwrite` to write the file anew, and review the change with
/// `mcp catalog diff OLD NEW`, which says which changes break callers. For what a given
/// caller sees, use [`TestClient::assert_catalog`].
///
/// ```no_run
/// # async fn demo(app: mcp_runtime::App) {
/// mcp_runtime::testing::assert_catalog(&app, "tests/catalog.json").await;
/// # }
/// ```
pub async fn assert_catalog(app: &App, path: impl AsRef<Path>) {
    TestClient::new(app.clone()).assert_catalog(path).await;
}

impl TestClient {
    /// Check that the server offers this client (as its principal sees it) exactly the
    /// catalog kept at `path`, as [`assert_catalog`] does for an anonymous caller.
    pub async fn assert_catalog(&self, path: impl AsRef<Path>) {
        pin(&self.catalog().await, path.as_ref());
    }
}

/// Compare `snapshot` with the file at `path`, or write it there when asked to.
fn pin(snapshot: &Value, path: &Path) {
    let text = text(snapshot);
    if std::env::var(CATALOG_ENV).is_ok_and(|v| v == "overwrite") {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", folder.display()));
        }
        std::fs::write(path, &text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let kept = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read the catalog pinned at {} ({e}); write it with {CATALOG_ENV}=overwrite",
            path.display()
        )
    });
    if kept == text {
        return;
    }
    let line = kept
        .lines()
        .zip(text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| kept.lines().count().min(text.lines().count()));
    let show = |text: &str| text.lines().nth(line).unwrap_or("(the end)").to_owned();
    panic!(
        "the server's catalog is not the one pinned at {}: from line {}, it has\n  {}\nwhere the file has\n  {}\nIf the change is intended, run the test with {CATALOG_ENV}=overwrite and review it with `mcp catalog diff` (it says which changes break callers).",
        path.display(),
        line + 1,
        show(&text),
        show(&kept),
    );
}

/// The text a snapshot is kept as: two-space indented JSON and a final newline, so each
/// member is a line of its own in a diff.
fn text(snapshot: &Value) -> String {
    let mut text = serde_json::to_string_pretty(snapshot).unwrap_or_default();
    text.push('\n');
    text
}
