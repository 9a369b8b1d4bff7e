//! Every source file of the published crates lists its imports the same way: the
//! standard library (`std`, `core`, `alloc`) first, then other crates, then the crate's
//! own (`crate::`, `super::`, `self::`, and the modules and macros the file defines), each group
//! usually set apart by a blank line.
//!
//! Stable rustfmt sorts the imports within a group but cannot group them (its
//! `group_imports` is unstable), so this test holds the order of the groups: of a file's
//! top-level `use` items (`pub use` and `#[cfg(..)]` ones included; `mod` declarations
//! may stand between them), no item of an earlier group follows one of a later group.

use std::path::PathBuf;

mod sources;
use sources::sources;

/// The crates whose sources are checked, by their directory beside this one.
const CRATES: &[&str] = &["mcp-runtime", "mcp-macros", "mcp-cli"];

/// The group of an import, in the order the groups come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Std,
    External,
    Local,
}

/// The group of a `use` tree, given the names the file itself defines (its modules, its
/// `macro_rules!`).
fn group(tree: &syn::UseTree, leading_colon: bool, modules: &[String]) -> Group {
    let first = match tree {
        syn::UseTree::Path(p) => p.ident.to_string(),
        syn::UseTree::Name(n) => n.ident.to_string(),
        syn::UseTree::Rename(r) => r.ident.to_string(),
        // `use *;` and `use {..};` name nothing by themselves; rustfmt would not write them.
        syn::UseTree::Glob(_) | syn::UseTree::Group(_) => return Group::Local,
    };
    if leading_colon {
        return Group::External;
    }
    match first.as_str() {
        "std" | "core" | "alloc" => Group::Std,
        "crate" | "super" | "self" => Group::Local,
        name if modules.iter().any(|m| m == name) => Group::Local,
        _ => Group::External,
    }
}

/// Each top-level `use` of `text` that comes after one of a later group, described.
fn out_of_order(text: &str) -> Result<Vec<String>, String> {
    let file = syn::parse_file(text).map_err(|e| format!("does not parse: {e}"))?;
    let modules: Vec<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            syn::Item::Macro(m) => m.ident.as_ref().map(ToString::to_string),
            _ => None,
        })
        .collect();
    let mut latest: Option<(Group, String)> = None;
    let mut problems = Vec::new();
    for item in &file.items {
        let syn::Item::Use(item) = item else {
            continue;
        };
        let this = group(&item.tree, item.leading_colon.is_some(), &modules);
        let shown = describe(&item.tree);
        match &latest {
            Some((before, before_shown)) if *before > this => problems.push(format!(
                "`use {shown}` ({this:?}) comes after `use {before_shown}` ({before:?})"
            )),
            _ => latest = Some((this, shown)),
        }
    }
    Ok(problems)
}

/// The first path of a `use` tree, for messages (`std::sync::..`).
fn describe(tree: &syn::UseTree) -> String {
    match tree {
        syn::UseTree::Path(p) => format!("{}::{}", p.ident, describe(&p.tree)),
        syn::UseTree::Name(n) => n.ident.to_string(),
        syn::UseTree::Rename(r) => format!("{} as {}", r.ident, r.rename),
        syn::UseTree::Glob(_) => "*".to_owned(),
        syn::UseTree::Group(_) => "{..}".to_owned(),
    }
}

#[test]
fn imports_come_std_then_other_crates_then_the_crates_own() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in CRATES {
        // Where the runtime is built alone (from its package), only its own sources are
        // there to check.
        sources(&workspace.join(krate).join("src"), &mut files);
    }
    files.sort();
    assert!(!files.is_empty(), "no sources found under {workspace:?}");
    let mut offending = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(&workspace)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let problems = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot be read: {e}"))
            .and_then(|text| out_of_order(&text))
            .unwrap_or_else(|e| vec![e]);
        if !problems.is_empty() {
            offending.push(format!("{relative}:\n      {}", problems.join("\n      ")));
        }
    }
    assert!(
        offending.is_empty(),
        "imports out of their groups (std, then other crates, then the crate's own) in {} file(s):\n  {}",
        offending.len(),
        offending.join("\n  ")
    );
}

/// The check tells the groups apart, sees `pub use` and `#[cfg]` uses, lets `mod`
/// declarations stand between uses, and counts a declared module's imports as the crate's.
#[test]
fn the_check_knows_the_groups() {
    let ordered = "
        use std::sync::Arc;

        use serde_json::Value;

        mod read;
        use crate::protocol::Params;
        use read::answers;
        #[cfg(feature = \"client\")]
        pub use super::x;

        macro_rules! keys { () => {}; }
        pub(crate) use keys;
    ";
    assert_eq!(out_of_order(ordered), Ok(Vec::new()));

    let mixed = "
        use crate::protocol::Params;
        use std::sync::Arc;
        #[cfg(test)]
        pub use serde_json::Value;
        use core::fmt;
    ";
    let problems = out_of_order(mixed).expect("parses");
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].contains(
            "`use std::sync::Arc` (Std) comes after `use crate::protocol::Params` (Local)"
        ),
        "{problems:?}"
    );
    // Items nested in a module are that module's business.
    assert_eq!(
        out_of_order("use std::fmt; mod tests { use super::*; use std::io; }"),
        Ok(Vec::new())
    );
}
