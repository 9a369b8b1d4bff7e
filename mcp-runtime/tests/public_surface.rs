//! The crate's public surface is a promise: this test pins it.
//!
//! It reads the crate's sources the way the compiler resolves modules (from `src/lib.rs`,
//! following every `pub mod`) and lists each public path: the items a public module
//! defines, the names it re-exports, and the exported macros, with the cargo feature an
//! item needs. The list is compared with `tests/public-surface.txt`, so widening or
//! narrowing the API is a deliberate, reviewed diff. Hidden items (`#[doc(hidden)]`, the
//! glue the macros expand to) are not part of the promise and are left out.
//!
//! After an intended change: `PUBLIC_SURFACE=overwrite cargo test -p mcp-runtime --test
//! public_surface`, then review the diff of the list.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Item, UseTree, Visibility};

const LIST: &str = "tests/public-surface.txt";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn is_public(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

fn has_path(attrs: &[Attribute], name: &str, arg: &str) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident(name) && a.meta.to_token_stream().to_string().contains(arg))
}

/// Whether an attribute is exactly `#[cfg(test)]` or `#[cfg(doctest)]` (not, say,
/// `#[cfg(feature = "testing")]`, whose items are public with that feature).
fn test_only(attr: &Attribute) -> bool {
    attr.path().is_ident("cfg")
        && match &attr.meta {
            syn::Meta::List(list) => {
                let condition = list.tokens.to_string();
                condition == "test" || condition == "doctest"
            }
            _ => false,
        }
}

fn hidden(attrs: &[Attribute]) -> bool {
    has_path(attrs, "doc", "hidden") || attrs.iter().any(test_only)
}

/// The `cfg(..)` conditions on an item, as written (`feature = "legacy"`).
fn conditions(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| a.meta.require_list().ok())
        .map(|list| list.tokens.to_string())
        .collect()
}

struct Walk {
    lines: BTreeSet<String>,
}

impl Walk {
    fn record(&mut self, path: &str, kind: &str, cfg: &[String]) {
        let mut line = format!("{path} ({kind})");
        if !cfg.is_empty() {
            line.push_str(&format!(" [cfg: {}]", cfg.join(", ")));
        }
        self.lines.insert(line);
    }

    /// Walk a module's items; `dir` is where its child module files live.
    fn module(&mut self, path: &str, items: &[Item], dir: &Path, cfg: &[String]) {
        for item in items {
            let (attrs, vis) = match item {
                Item::Const(i) => (&i.attrs, Some(&i.vis)),
                Item::Enum(i) => (&i.attrs, Some(&i.vis)),
                Item::Fn(i) => (&i.attrs, Some(&i.vis)),
                Item::Mod(i) => (&i.attrs, Some(&i.vis)),
                Item::Static(i) => (&i.attrs, Some(&i.vis)),
                Item::Struct(i) => (&i.attrs, Some(&i.vis)),
                Item::Trait(i) => (&i.attrs, Some(&i.vis)),
                Item::Type(i) => (&i.attrs, Some(&i.vis)),
                Item::Union(i) => (&i.attrs, Some(&i.vis)),
                Item::Use(i) => (&i.attrs, Some(&i.vis)),
                Item::Macro(i) => (&i.attrs, None),
                _ => continue,
            };
            if hidden(attrs) {
                continue;
            }
            let mut cfg = cfg.to_vec();
            cfg.extend(conditions(attrs));
            if let Item::Macro(mac) = item {
                if has_path(attrs, "macro_export", "macro_export") {
                    if let Some(name) = &mac.ident {
                        self.record(&format!("mcp_runtime::{name}"), "macro", &cfg);
                    }
                }
                continue;
            }
            if !vis.is_some_and(is_public) {
                continue;
            }
            let named = |ident: &syn::Ident| format!("{path}::{ident}");
            match item {
                Item::Const(i) => self.record(&named(&i.ident), "const", &cfg),
                Item::Enum(i) => self.record(&named(&i.ident), "enum", &cfg),
                Item::Fn(i) => self.record(&named(&i.sig.ident), "fn", &cfg),
                Item::Static(i) => self.record(&named(&i.ident), "static", &cfg),
                Item::Struct(i) => self.record(&named(&i.ident), "struct", &cfg),
                Item::Trait(i) => self.record(&named(&i.ident), "trait", &cfg),
                Item::Type(i) => self.record(&named(&i.ident), "type", &cfg),
                Item::Union(i) => self.record(&named(&i.ident), "union", &cfg),
                Item::Use(i) => self.reexports(path, &i.tree, &cfg),
                Item::Mod(i) => {
                    let child = named(&i.ident);
                    self.record(&child, "mod", &cfg);
                    match &i.content {
                        Some((_, items)) => {
                            self.module(&child, items, &dir.join(i.ident.to_string()), &cfg)
                        }
                        None => self.file_module(&child, dir, &i.ident.to_string(), &cfg),
                    }
                }
                _ => {}
            }
        }
    }

    fn file_module(&mut self, path: &str, dir: &Path, name: &str, cfg: &[String]) {
        let flat = dir.join(format!("{name}.rs"));
        let (file, child_dir) = if flat.exists() {
            (flat, dir.join(name))
        } else {
            (dir.join(name).join("mod.rs"), dir.join(name))
        };
        let items = parse(&file);
        self.module(path, &items, &child_dir, cfg);
    }

    fn reexports(&mut self, path: &str, tree: &UseTree, cfg: &[String]) {
        match tree {
            UseTree::Path(p) => self.reexports(path, &p.tree, cfg),
            UseTree::Name(n) => self.record(&format!("{path}::{}", n.ident), "use", cfg),
            UseTree::Rename(r) => self.record(&format!("{path}::{}", r.rename), "use", cfg),
            UseTree::Glob(_) => self.record(&format!("{path}::*"), "use", cfg),
            UseTree::Group(g) => {
                for tree in &g.items {
                    self.reexports(path, tree, cfg);
                }
            }
        }
    }
}

fn parse(file: &Path) -> Vec<Item> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    syn::parse_file(&text)
        .unwrap_or_else(|e| panic!("cannot parse {}: {e}", file.display()))
        .items
}

fn surface() -> Vec<String> {
    let src = crate_dir().join("src");
    let mut walk = Walk {
        lines: BTreeSet::new(),
    };
    walk.module("mcp_runtime", &parse(&src.join("lib.rs")), &src, &[]);
    walk.lines.into_iter().collect()
}

#[test]
fn the_public_surface_is_the_pinned_list() {
    let found = surface();
    let path = crate_dir().join(LIST);
    if std::env::var_os("PUBLIC_SURFACE").is_some_and(|v| v == "overwrite") {
        let mut text = found.join("\n");
        text.push('\n');
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {LIST}: {e}"));
        return;
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_default();
    let pinned: BTreeSet<&str> = pinned.lines().filter(|l| !l.is_empty()).collect();
    let found_set: BTreeSet<&str> = found.iter().map(String::as_str).collect();
    let added: Vec<&&str> = found_set.difference(&pinned).collect();
    let removed: Vec<&&str> = pinned.difference(&found_set).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the public surface changed.\n  added:\n    {}\n  removed:\n    {}\nIf that is intended, run `PUBLIC_SURFACE=overwrite cargo test -p mcp-runtime --test public_surface` and review the diff of {LIST}.",
        added.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("\n    "),
        removed.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("\n    "),
    );
}

/// The walk sees what the compiler sees: names the crate root is known to export are
/// found, and crate-private modules are not.
#[test]
fn the_walk_finds_root_exports_and_skips_private_modules() {
    let found = surface();
    let has = |line: &str| found.iter().any(|l| l.starts_with(line));
    assert!(has("mcp_runtime::Server (use)"));
    assert!(has("mcp_runtime::tool (use)"));
    assert!(has("mcp_runtime::tools (macro)"));
    assert!(has("mcp_runtime::prelude (mod)"));
    assert!(!has("mcp_runtime::observe"));
    assert!(!has("mcp_runtime::__private"));
    // Items behind a feature are part of the promise, named with their feature.
    assert!(has(
        "mcp_runtime::testing::TestClient (use) [cfg: feature = \"testing\"]"
    ));
}
