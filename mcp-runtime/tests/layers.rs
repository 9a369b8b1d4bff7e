//! The crate's architecture, checked: which part may import which.
//!
//! Each source file under `src/` belongs to one part, and every `crate::` path in its code
//! (doc links, `cfg` conditions and `#[cfg(test)]` code are not imports) names a part. An
//! import of another part must follow one of the [`ARROWS`], and none may ever follow one
//! of the [`NEVERS`]; an import that follows neither is refused too, so a new arrow is a
//! decision, written here with why.
//!
//! The parts, and what each may import (the arrows):
//!
//! - the testing kit: the face, the core, the modern era adapter (the in-process client
//!   calls it), policy, the store (`check_store`) and the wire;
//! - the face (crate root, `Server` builder, process helpers, gateway): everything of the
//!   server below it, and the client, from the gateway alone, which forwards through it;
//! - the transports: the eras, the core (they hold the `Arc<Core>` they hand to the era
//!   adapter), policy, observability and the wire;
//! - the eras: the core, the registry (a reply carries the catalog's list page), policy,
//!   observability and the wire;
//! - the core: the store, policy, the registry, observability and the wire;
//! - policy: the wire, the registry (an `Action` names the definition; filters see what is
//!   listed), and of the core only the `RequestContext` its `Authorize` hook sees;
//! - the registry: the wire, and of the core only the `RequestContext` and
//!   `CompletionRequest` the generated glue's function types name;
//! - the store and observability: the wire;
//! - the client: the wire only. It speaks the protocol and has its own transports; it
//!   never sees the server's core, eras, transports, registry or builder;
//! - the wire (`protocol`, `validate`, `clock`): nothing.
//!
//! The `mcp` command (`mcp-cli`) may import the client alone.
//!
//! The nevers are the pairs the architecture rules out with a reason (the core knows no
//! transport or era, nothing below the face imports the crate root, the server never
//! calls out as a client and the client never reaches into the server, ..): each is also
//! outside the arrows, and a test checks that the two lists never contradict.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

mod sources;
use sources::sources;

/// A part of the architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Face,
    Testing,
    Cli,
    Transport,
    Client,
    Era,
    Core,
    Observe,
    Store,
    Policy,
    Registry,
    Protocol,
    Macros,
}

use Part::*;

/// What of the target part an arrow lets its source name.
#[derive(Debug, Clone, Copy)]
enum Only {
    /// Anything.
    Any,
    /// These names alone: a type-only contract.
    Names(&'static [&'static str]),
    /// Anything, but from these files alone (under `src/`).
    Files(&'static [&'static str]),
}

/// An allowed import: `from` may name `to`, within `only`.
#[derive(Debug, Clone, Copy)]
struct Arrow {
    from: Part,
    to: Part,
    only: Only,
    why: &'static str,
}

const fn any(from: Part, to: Part) -> Arrow {
    Arrow {
        from,
        to,
        only: Only::Any,
        why: "",
    }
}

const fn because(from: Part, to: Part, why: &'static str) -> Arrow {
    Arrow {
        from,
        to,
        only: Only::Any,
        why,
    }
}

const fn names(from: Part, to: Part, names: &'static [&'static str], why: &'static str) -> Arrow {
    Arrow {
        from,
        to,
        only: Only::Names(names),
        why,
    }
}

const fn files(from: Part, to: Part, files: &'static [&'static str], why: &'static str) -> Arrow {
    Arrow {
        from,
        to,
        only: Only::Files(files),
        why,
    }
}

/// Every import one part may make of another.
const ARROWS: &[Arrow] = &[
    any(Face, Transport),
    any(Face, Era),
    any(Face, Core),
    any(Face, Policy),
    any(Face, Store),
    any(Face, Registry),
    any(Face, Observe),
    any(Face, Protocol),
    any(Face, Macros),
    files(
        Face,
        Client,
        &["gateway.rs"],
        "gateway.rs forwards through the client",
    ),
    any(Testing, Face),
    any(Testing, Core),
    any(Testing, Policy),
    any(Testing, Protocol),
    because(Testing, Era, "in-process client calls the modern adapter"),
    because(Testing, Store, "check_store: the Store contract as a test"),
    any(Transport, Era),
    because(
        Transport,
        Core,
        "holds Arc<Core>, passes it to the era adapter",
    ),
    any(Transport, Policy),
    any(Transport, Observe),
    any(Transport, Protocol),
    any(Era, Core),
    because(Era, Registry, "Reply carries the catalog's ListPage"),
    any(Era, Policy),
    any(Era, Observe),
    any(Era, Protocol),
    any(Core, Store),
    any(Core, Policy),
    any(Core, Registry),
    any(Core, Observe),
    any(Core, Protocol),
    names(
        Policy,
        Core,
        &["RequestContext"],
        "type-only: Authorize sees the context",
    ),
    because(Policy, Registry, "Action names the def; filters see Listed"),
    any(Policy, Protocol),
    names(
        Registry,
        Core,
        &["RequestContext", "CompletionRequest"],
        "type-only: the glue's fn types",
    ),
    any(Registry, Protocol),
    any(Store, Protocol),
    any(Observe, Protocol),
    any(Client, Protocol),
    names(
        Client,
        Observe,
        &["record_target", "network_transport", "trace_context"],
        "a client request's span is named as the server's, and carries its trace context out",
    ),
    any(Cli, Client),
    names(
        Cli,
        Face,
        &["init_logging", "flush_telemetry"],
        "the command line sets up logs and trace export as a server process does",
    ),
    because(Macros, Face, "emitted text: ::mcp_runtime::__private"),
];

/// Imports that must never be, with why.
const NEVERS: &[(Part, Part, &str)] = &[
    (Core, Transport, "the core knows no wire"),
    (Core, Era, "the core never sees an era's shapes"),
    (
        Core,
        Face,
        "the core does not import the builder or the crate root",
    ),
    (
        Era,
        Transport,
        "eras map messages; bytes and HTTP belong to the transport",
    ),
    (
        Policy,
        Transport,
        "policies decide; the transport renders their answers",
    ),
    (Policy, Era, "policies are era-neutral"),
    (Registry, Era, "the catalog is era-neutral"),
    (Registry, Transport, "the catalog knows no wire"),
    (
        Store,
        Core,
        "the task runtime lives in the core; storage only stores",
    ),
    (Store, Era, "storage is era-neutral"),
    (Protocol, Core, "wire types have no behaviour above them"),
    (Protocol, Policy, "wire types have no behaviour above them"),
    (
        Protocol,
        Registry,
        "wire types have no behaviour above them",
    ),
    (
        Transport,
        Face,
        "nothing below the face imports the crate root",
    ),
    (Era, Face, "nothing below the face imports the crate root"),
    (Registry, Policy, "the catalog carries data, not policy"),
    (Observe, Core, "trace events take labels, not core types"),
    (
        Client,
        Core,
        "the client speaks the wire; it never sees the server's core",
    ),
    (
        Client,
        Era,
        "the client speaks the wire; era adapters are the server's",
    ),
    (Client, Transport, "the client has its own transports"),
    (
        Core,
        Client,
        "the server's core does not call out as a client",
    ),
    (Era, Client, "era adapters do not call out as a client"),
    (
        Transport,
        Client,
        "server transports do not call out as a client",
    ),
    (Cli, Core, "the command line is a client, not a server"),
];

/// The part of a file, by its path under `src/`.
fn part_of_file(relative: &str) -> Option<Part> {
    let top = relative.split('/').next().unwrap_or(relative);
    let top = top.strip_suffix(".rs").unwrap_or(top);
    part_of_module(top)
}

/// The part of a top-level module, by its name (`crate::<name>`).
fn part_of_module(name: &str) -> Option<Part> {
    // `crate::Name`: a name the crate root re-exports.
    if name.chars().next().is_some_and(char::is_uppercase) {
        return Some(Face);
    }
    Some(match name {
        // `openapi` re-exports the builder's OpenAPI serving (server/openapi.rs).
        // `downstream` re-exports calling other APIs as the caller (core, policy).
        "lib" | "server" | "process" | "props" | "gateway" | "prelude" | "__private"
        | "openapi" | "downstream" => Face,
        "testing" => Testing,
        "transport" => Transport,
        "client" => Client,
        "era" => Era,
        "core" => Core,
        "observe" | "metrics" | "otel" => Observe,
        "store" => Store,
        "policy" => Policy,
        "registry" => Registry,
        "protocol" | "validate" | "clock" => Protocol,
        _ => return None,
    })
}

/// Why `from` may not name `path` of `to` (in the file `relative`), or `None` when an
/// arrow allows it.
fn refusal(from: Part, to: Part, relative: &str, path: &str) -> Option<String> {
    if from == to {
        return None;
    }
    if let Some((_, _, why)) = NEVERS.iter().find(|(f, t, _)| *f == from && *t == to) {
        return Some(format!(
            "{relative}: {from:?} imports `{path}` of {to:?}, which must never be: {why}"
        ));
    }
    let Some(arrow) = ARROWS.iter().find(|a| a.from == from && a.to == to) else {
        return Some(format!(
            "{relative}: {from:?} imports `{path}` of {to:?}, and no arrow runs {from:?} -> {to:?} (if it is meant, add it to ARROWS with why)"
        ));
    };
    match arrow.only {
        Only::Any => None,
        Only::Names(names) => {
            let last = path.rsplit("::").next().unwrap_or(path);
            (!names.contains(&last)).then(|| {
                format!(
                    "{relative}: {from:?} imports `{path}` of {to:?}, which may name only {names:?} ({})",
                    arrow.why
                )
            })
        }
        Only::Files(files) => (!files.contains(&relative)).then(|| {
            format!(
                "{relative}: {from:?} imports `{path}` of {to:?}, which only {files:?} may ({})",
                arrow.why
            )
        }),
    }
}

/// The paths in code that start with `root` (`crate`, or a crate's name).
struct Paths {
    root: &'static str,
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.first().is_some_and(|s| s == self.root) {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut prefixes = Vec::new();
        collect_use(&item.tree, &mut Vec::new(), &mut prefixes);
        for path in prefixes {
            if path.first().is_some_and(|s| s == self.root) {
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

/// Each `.rs` file under `dir`, sorted, with its path relative to `dir`.
fn files_under(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    sources(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let relative = file
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            (relative, file)
        })
        .collect()
}

/// The paths starting with `root` in the code of the file, or why it could not be read.
fn paths_in(file: &Path, root: &'static str) -> Result<Vec<Vec<String>>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot be read: {e}"))?;
    let parsed = syn::parse_file(&text).map_err(|e| format!("does not parse: {e}"))?;
    let mut paths = Paths {
        root,
        found: Vec::new(),
    };
    paths.visit_file(&parsed);
    Ok(paths.found)
}

/// Each import in the crate's sources that no arrow allows.
fn imports_against_the_arrows() -> Vec<String> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    for (relative, file) in files_under(&src) {
        let Some(from) = part_of_file(&relative) else {
            problems.push(format!(
                "{relative}: belongs to no part (add it to part_of_module)"
            ));
            continue;
        };
        let paths = match paths_in(&file, "crate") {
            Ok(paths) => paths,
            Err(e) => {
                problems.push(format!("{relative}: {e}"));
                continue;
            }
        };
        for path in paths {
            let Some(to) = path.get(1).and_then(|m| part_of_module(m)) else {
                continue;
            };
            problems.extend(refusal(from, to, &relative, &path.join("::")));
        }
    }
    problems
}

#[test]
fn every_import_follows_an_arrow_and_none_a_never() {
    let problems = imports_against_the_arrows();
    assert!(
        problems.is_empty(),
        "imports the architecture does not allow:\n  {}",
        problems.join("\n  ")
    );
}

/// The `mcp` command imports the client and nothing else of the runtime.
#[test]
fn the_cli_imports_only_the_client() {
    let cli = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mcp-cli/src");
    // Where the runtime is built alone (from its package), there is no command to check.
    let mut problems = Vec::new();
    for (relative, file) in files_under(&cli) {
        let paths = match paths_in(&file, "mcp_runtime") {
            Ok(paths) => paths,
            Err(e) => {
                problems.push(format!("mcp-cli/src/{relative}: {e}"));
                continue;
            }
        };
        for path in paths {
            let to = path.get(1).and_then(|m| part_of_module(m)).unwrap_or(Face);
            problems.extend(refusal(
                Cli,
                to,
                &format!("mcp-cli/src/{relative}"),
                &path.join("::"),
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the command's imports the architecture does not allow:\n  {}",
        problems.join("\n  ")
    );
}

/// No pair is both an arrow and a never, and no arrow is written twice.
#[test]
fn the_arrows_and_the_nevers_agree() {
    for (from, to, why) in NEVERS {
        assert!(
            !ARROWS.iter().any(|a| a.from == *from && a.to == *to),
            "{from:?} -> {to:?} is an arrow and a never ({why})"
        );
    }
    for (i, arrow) in ARROWS.iter().enumerate() {
        assert!(
            !ARROWS[..i]
                .iter()
                .any(|a| a.from == arrow.from && a.to == arrow.to),
            "{:?} -> {:?} is written twice",
            arrow.from,
            arrow.to
        );
    }
}

/// The check sees imports at all, knows the parts and applies the arrows' limits.
#[test]
fn the_check_reads_imports_and_knows_the_parts() {
    assert_eq!(part_of_file("core/dispatch.rs"), Some(Core));
    assert_eq!(part_of_file("lib.rs"), Some(Face));
    assert_eq!(part_of_file("gateway.rs"), Some(Face));
    assert_eq!(part_of_file("client/http/mod.rs"), Some(Client));
    assert_eq!(part_of_file("store/task_record.rs"), Some(Store));
    assert_eq!(part_of_file("era/legacy/session/mod.rs"), Some(Era));
    assert_eq!(part_of_file("tasks/mod.rs"), None);
    // Serving OpenAPI documents is the builder's: no layer below the face may use it.
    assert_eq!(part_of_file("server/openapi/request.rs"), Some(Face));
    assert_eq!(part_of_module("openapi"), Some(Face));

    let parsed =
        syn::parse_file("use crate::transport::http::Sessions; fn f() { crate::core::Core::x(); }")
            .expect("parses");
    let mut paths = Paths {
        root: "crate",
        found: Vec::new(),
    };
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

    let allowed = |from, to, file: &str, path: &str| refusal(from, to, file, path).is_none();
    // Type-only contracts.
    assert!(allowed(
        Registry,
        Core,
        "registry/tool.rs",
        "crate::core::RequestContext"
    ));
    assert!(!allowed(
        Registry,
        Core,
        "registry/tool.rs",
        "crate::core::Core"
    ));
    // The client sits low: the wire, and nothing of the server.
    assert!(allowed(
        Client,
        Protocol,
        "client/wire.rs",
        "crate::protocol::Params"
    ));
    for server in [Core, Era, Transport, Face, Registry, Policy, Store] {
        assert!(!allowed(Client, server, "client/wire.rs", "crate::x"));
    }
    // Only the gateway calls out as a client.
    assert!(allowed(Face, Client, "gateway.rs", "crate::client::Client"));
    assert!(!allowed(
        Face,
        Client,
        "server/mod.rs",
        "crate::client::Client"
    ));
    for server in [Core, Era, Transport, Testing] {
        assert!(!allowed(server, Client, "x.rs", "crate::client::Client"));
    }
    // A never names its reason.
    let never = refusal(Core, Era, "core/x.rs", "crate::era::Answer").unwrap_or_default();
    assert!(never.contains("never"), "{never}");
}

/// The core's functions that answer for the transport what the era adapter should: the
/// scopes a request needs, and the live catalog.
const CORE_FUNCTIONS: &[&str] = &["required_scopes", "live"];

/// Each place in `text`'s code (tests aside) that names one of [`CORE_FUNCTIONS`]: a
/// method call or field of that name (`core.required_scopes(..)`, `core.live`), or a path
/// through the core to it (`crate::core::live::Live`, `Core::required_scopes`).
fn core_functions_named(text: &str) -> Result<Vec<String>, String> {
    struct Names(Vec<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let method = call.method.to_string();
            if CORE_FUNCTIONS.contains(&method.as_str()) {
                self.0.push(format!(".{method}(..)"));
            }
            syn::visit::visit_expr_method_call(self, call);
        }

        fn visit_expr_field(&mut self, field: &'ast syn::ExprField) {
            if let syn::Member::Named(name) = &field.member {
                let name = name.to_string();
                if CORE_FUNCTIONS.contains(&name.as_str()) {
                    self.0.push(format!(".{name}"));
                }
            }
            syn::visit::visit_expr_field(self, field);
        }

        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.named(&segments);
            syn::visit::visit_path(self, path);
        }

        fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
            let mut paths = Vec::new();
            collect_use(&item.tree, &mut Vec::new(), &mut paths);
            for path in paths {
                self.named(&path);
            }
        }

        fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !is_test(&item.attrs) {
                syn::visit::visit_item_mod(self, item);
            }
        }

        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            if !is_test(&item.attrs) {
                syn::visit::visit_item_fn(self, item);
            }
        }
    }
    impl Names {
        /// A path that reaches one of the functions through the core.
        fn named(&mut self, segments: &[String]) {
            let Some(core) = segments.iter().position(|s| s == "core" || s == "Core") else {
                return;
            };
            if segments[core + 1..]
                .iter()
                .any(|s| CORE_FUNCTIONS.contains(&s.as_str()))
            {
                self.0.push(segments.join("::"));
            }
        }
    }
    let parsed = syn::parse_file(text).map_err(|e| format!("does not parse: {e}"))?;
    let mut names = Names(Vec::new());
    names.visit_file(&parsed);
    Ok(names.0)
}

/// No transport module names the core's scope or live-catalog functions: the era
/// adapter resolves a request's target once, and the transport reads what it resolved.
#[test]
fn transport_names_no_core_scope_or_catalog_function() {
    let transport = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/transport");
    let mut problems = Vec::new();
    for (relative, file) in files_under(&transport) {
        let found = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot be read: {e}"))
            .and_then(|text| core_functions_named(&text));
        match found {
            Ok(names) => problems.extend(
                names
                    .into_iter()
                    .map(|name| format!("transport/{relative}: names `{name}`")),
            ),
            Err(e) => problems.push(format!("transport/{relative}: {e}")),
        }
    }
    assert!(
        problems.is_empty(),
        "the transport reaches past the era adapter into the core:\n  {}",
        problems.join("\n  ")
    );
}

/// The transport check finds the calls it looks for, and nothing else.
#[test]
fn the_transport_check_sees_the_core_functions_and_nothing_else() {
    let found = core_functions_named(
        "fn f(core: &Core) { let s = core.required_scopes(m, p); let snap = core.live.load(); }
         use crate::core::live::Live;",
    )
    .expect("parses");
    assert_eq!(
        found,
        [".required_scopes(..)", ".live", "crate::core::live::Live"],
        "{found:?}"
    );
    let clean = core_functions_named(
        "use crate::core::{Core, Transport};
         fn f(core: &Core, live: u8) -> u8 { core.handle(call); let keep_alive = live; keep_alive }
         #[cfg(test)] mod tests { fn g(core: &Core) { core.required_scopes(m, p); } }",
    )
    .expect("parses");
    assert!(clean.is_empty(), "{clean:?}");
}
