//! The crate's layers, checked: no module imports from a layer above its own.
//!
//! Each source file belongs to one layer, from the top: the testing kit; the face (the
//! crate root, the `Server` builder, the process helpers); the transports; the era
//! adapters; the core; then policy; then the registry, the store, the task records and
//! observability; and the wire types at the bottom. A request travels down these layers
//! and its answer comes back as a return value, so every `crate::` path in code (doc
//! links are not code) must name a module of its own layer or one below.
//!
//! Two arrows run up on purpose, as type-only contracts named in their module docs: the
//! registry's function-pointer types name the handler's [`RequestContext`] and the
//! completer's request, and policy's `Authorize` hook sees the `RequestContext`. They may
//! name those types and nothing else of the core.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Layers from the bottom (0) up, by the path of a file under `src/`.
fn layer_of_file(relative: &str) -> Option<(u8, &'static str)> {
    let top = relative.split('/').next().unwrap_or(relative);
    let top = top.strip_suffix(".rs").unwrap_or(top);
    layer_of_module(top)
}

/// Layers by a top-level module's name (`crate::<name>`).
fn layer_of_module(name: &str) -> Option<(u8, &'static str)> {
    Some(match name {
        "protocol" | "validate" | "clock" => (0, "protocol"),
        "registry" | "store" | "tasks" | "observe" | "metrics" | "otel" => {
            (1, "registry, store, observe")
        }
        "policy" => (2, "policy"),
        "core" => (3, "core"),
        "era" => (4, "era"),
        "transport" => (5, "transport"),
        "lib" | "server" | "process" | "props" => (6, "face"),
        "testing" => (7, "testing"),
        // The client stands beside the face: it uses the wire types and the registry's
        // `x-mcp-header` rules, never the server.
        "client" => (6, "face"),
        // The gateway serves what a client finds: face, beside both.
        "gateway" => (6, "face"),
        // Hidden glue for the macros, in the crate root.
        "__private" => (6, "face"),
        _ => return None,
    })
}

/// The core's types that lower layers may name (type-only contracts), by the lower layer.
fn contract(from: &str, name: &str) -> bool {
    match from {
        "registry" => matches!(name, "RequestContext" | "CompletionRequest"),
        "policy" => name == "RequestContext",
        _ => false,
    }
}

struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.first().is_some_and(|s| s == "crate") {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut prefixes = Vec::new();
        collect_use(&item.tree, &mut Vec::new(), &mut prefixes);
        for path in prefixes {
            if path.first().is_some_and(|s| s == "crate") {
                self.found.push(path);
            }
        }
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // Doc links and cfg conditions are not imports.
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if is_test(&item.attrs) {
            return;
        }
        syn::visit::visit_item_mod(self, item);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if is_test(&item.attrs) {
            return;
        }
        syn::visit::visit_item_fn(self, item);
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string() == "test")
    })
}

/// Every full path a `use` tree names (each leaf with its prefix).
fn collect_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            out.push(path);
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push(path);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                collect_use(tree, prefix, out);
            }
        }
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each `crate::` path in code that names a module of a higher layer than its file's.
fn upward_imports() -> Vec<String> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(&src)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let Some((layer, layer_name)) = layer_of_file(&relative) else {
            problems.push(format!(
                "{relative}: belongs to no layer (add it to layer_of_file)"
            ));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let parsed = match syn::parse_file(&text) {
            Ok(parsed) => parsed,
            Err(e) => {
                problems.push(format!("{relative}: does not parse: {e}"));
                continue;
            }
        };
        let mut paths = Paths { found: Vec::new() };
        paths.visit_file(&parsed);
        for path in paths.found {
            let Some(module) = path.get(1) else { continue };
            // `crate::Name`: a name the crate root re-exports, so the face's layer.
            let target = if module.chars().next().is_some_and(char::is_uppercase) {
                Some((6, "face"))
            } else {
                layer_of_module(module)
            };
            let Some((target_layer, target_name)) = target else {
                continue;
            };
            if target_layer <= layer {
                continue;
            }
            let last = path.last().map(String::as_str).unwrap_or("");
            let top = relative.split(['/', '.']).next().unwrap_or("");
            if target_name == "core" && contract(top, last) {
                continue;
            }
            problems.push(format!(
                "{relative}: the {layer_name} layer imports `{}` from the {target_name} layer above it",
                path.join("::")
            ));
        }
    }
    problems
}

#[test]
fn no_module_imports_from_a_layer_above_its_own() {
    let problems = upward_imports();
    assert!(
        problems.is_empty(),
        "imports that run up the layers:\n  {}",
        problems.join("\n  ")
    );
}

/// The check sees imports at all: the transport's known imports of the core are found,
/// and an upward one would be reported.
#[test]
fn the_check_reads_imports_and_knows_the_layers() {
    assert_eq!(layer_of_file("core/dispatch.rs").map(|l| l.1), Some("core"));
    assert_eq!(layer_of_file("lib.rs").map(|l| l.1), Some("face"));
    assert_eq!(
        layer_of_file("era/legacy/session/mod.rs").map(|l| l.1),
        Some("era")
    );
    let parsed =
        syn::parse_file("use crate::transport::http::Sessions; fn f() { crate::core::Core::x(); }")
            .expect("parses");
    let mut paths = Paths { found: Vec::new() };
    paths.visit_file(&parsed);
    let found: Vec<String> = paths.found.iter().map(|p| p.join("::")).collect();
    assert!(
        found.contains(&"crate::transport::http::Sessions".to_owned()),
        "{found:?}"
    );
    assert!(
        found.iter().any(|p| p.starts_with("crate::core::Core")),
        "{found:?}"
    );
    assert!(contract("registry", "RequestContext"));
    assert!(!contract("registry", "Core"));
}
