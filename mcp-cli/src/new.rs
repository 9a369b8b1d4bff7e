//! `mcp new NAME [--template minimal|business-api|openapi SPEC]`: a crate that builds and
//! whose tests pass without edits, with a README giving its two commands, a Dockerfile
//! for the production build and a CI workflow.
//!
//! The templates are files under `mcp-cli/templates/` with `{{..}}` placeholders, built
//! into `mcp`; the test command generates each, then builds, lints and tests it
//! (`scripts/mcp-new.sh`). The dependency on `mcp-runtime` is a path into the checkout
//! `mcp` was built from while that checkout is there, else a version from crates.io;
//! `--runtime-path` and `--runtime-version` choose.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::openapi::{self, OpenApiArgs};
use crate::Failure;

/// What `mcp new` takes.
#[derive(Args)]
pub(crate) struct NewArgs {
    /// The crate's name, and its folder's (created; it must not exist yet).
    name: String,
    /// What the crate starts with.
    #[arg(long, value_enum, default_value_t = Template::Minimal)]
    template: Template,
    /// The OpenAPI document the `openapi` template generates tools from.
    #[arg(value_name = "SPEC")]
    spec: Option<PathBuf>,
    /// Depend on mcp-runtime at this path (relative to the new crate).
    #[arg(long, value_name = "PATH", conflicts_with = "runtime_version")]
    runtime_path: Option<String>,
    /// Depend on this version of mcp-runtime from crates.io.
    #[arg(long, value_name = "VERSION")]
    runtime_version: Option<String>,
}

/// The templates.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Template {
    /// A tool, a resource and their tests.
    Minimal,
    /// A business API: a store, API keys with two scopes, a paged tool, an idempotent one,
    /// a destructive one that asks the user first, and a view with its page.
    BusinessApi,
    /// Tools generated from an OpenAPI document (`mcp openapi`), with a test.
    Openapi,
}

impl Template {
    fn name(self) -> &'static str {
        match self {
            Template::Minimal => "minimal",
            Template::BusinessApi => "business-api",
            Template::Openapi => "openapi",
        }
    }

    /// The template's own files: path and text, placeholders unfilled.
    fn files(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Template::Minimal => &[
                (
                    "Cargo.toml",
                    include_str!("../templates/minimal/Cargo.toml"),
                ),
                (
                    "src/lib.rs",
                    include_str!("../templates/minimal/src/lib.rs"),
                ),
                (
                    "src/main.rs",
                    include_str!("../templates/minimal/src/main.rs"),
                ),
                (
                    "tests/server.rs",
                    include_str!("../templates/minimal/tests/server.rs"),
                ),
            ],
            Template::BusinessApi => &[
                (
                    "Cargo.toml",
                    include_str!("../templates/business-api/Cargo.toml"),
                ),
                (
                    "src/lib.rs",
                    include_str!("../templates/business-api/src/lib.rs"),
                ),
                (
                    "src/main.rs",
                    include_str!("../templates/business-api/src/main.rs"),
                ),
                (
                    "src/desk.rs",
                    include_str!("../templates/business-api/src/desk.rs"),
                ),
                (
                    "src/tickets.html",
                    include_str!("../templates/business-api/src/tickets.html"),
                ),
                (
                    "tests/desk.rs",
                    include_str!("../templates/business-api/tests/desk.rs"),
                ),
            ],
            Template::Openapi => &[(
                "tests/tools.rs",
                include_str!("../templates/openapi/tests/tools.rs"),
            )],
        }
    }
}

/// The files every template has.
const COMMON: &[(&str, &str)] = &[
    ("README.md", include_str!("../templates/common/README.md")),
    ("Dockerfile", include_str!("../templates/common/Dockerfile")),
    (
        ".dockerignore",
        include_str!("../templates/common/.dockerignore"),
    ),
    (".gitignore", include_str!("../templates/common/.gitignore")),
    (
        ".github/workflows/ci.yml",
        include_str!("../templates/common/.github/workflows/ci.yml"),
    ),
];

/// How the README's production section has the server tell callers apart, per template.
fn production(template: Template) -> &'static str {
    match template {
        Template::Minimal => {
            "`docker run -e API_KEY=$(openssl rand -hex 32) -p 8080:8080 {{name}}`; clients\n\
             send the key as a bearer token."
        }
        Template::BusinessApi => {
            "`docker run -e API_KEY_WRITE=$(openssl rand -hex 32) -p 8080:8080 {{name}}`\n\
             (and `API_KEY_READ` for callers that only read); clients send a key as a bearer\n\
             token."
        }
        Template::Openapi => {
            "the generated server checks no caller yet, so until `server()` in `src/lib.rs`\n\
             gives it a token verifier (`Server::verify_tokens`, see the book's \"Securing a\n\
             server\"), it refuses to listen on all interfaces and the image does not start."
        }
    }
}

/// What the README says beyond the common part, per template.
fn readme(template: Template) -> &'static str {
    match template {
        Template::Minimal => "",
        Template::BusinessApi => include_str!("../templates/business-api/README.part.md"),
        Template::Openapi => include_str!("../templates/openapi/README.part.md"),
    }
}

pub(crate) fn run(args: NewArgs) -> Result<(), Failure> {
    check_name(&args.name)?;
    let dir = PathBuf::from(&args.name);
    if dir.exists() {
        return Err(Failure::Usage(format!(
            "{} exists already: give a new folder's name",
            dir.display()
        )));
    }
    let spec = match (args.template, &args.spec) {
        (Template::Openapi, Some(spec)) => Some(spec.clone()),
        (Template::Openapi, None) => {
            return Err(Failure::Usage(
                "the openapi template needs the document: mcp new NAME --template openapi SPEC"
                    .into(),
            ))
        }
        (_, Some(_)) => {
            return Err(Failure::Usage(
                "a document is for the openapi template only (--template openapi)".into(),
            ))
        }
        (_, None) => None,
    };
    let runtime = runtime_dependency(&args, &dir)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", dir.display())))?;
    if let Some(spec) = spec {
        openapi::run(OpenApiArgs::new(
            spec,
            dir.clone(),
            args.name.clone(),
            runtime.path(),
        ))?;
        let manifest = dir.join("Cargo.toml");
        let mut text = std::fs::read_to_string(&manifest)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", manifest.display())))?;
        text.push_str(&format!(
            "\n[dev-dependencies]\nmcp-runtime = {}\nserde_json = \"1\"\ntokio = {{ version = \"1\", features = [\"full\"] }}\n",
            runtime.with_features(&["testing"])
        ));
        text.push_str(&workspace_table(&dir));
        write(&manifest, &text)?;
    }
    let values = Values {
        name: &args.name,
        krate: args.name.replace('-', "_"),
        template: args.template.name(),
        runtime: runtime.with_features(&[]),
        runtime_sqlite: runtime.with_features(&["sqlite"]),
        runtime_testing: runtime.with_features(&["testing"]),
        workspace: workspace_table(&dir),
        readme: readme(args.template),
        production: production(args.template),
    };
    let mut sources = Vec::new();
    for (path, text) in args.template.files().iter().chain(COMMON) {
        let path = dir.join(path);
        write(&path, &values.fill(text))?;
        if path.extension().is_some_and(|e| e == "rs") {
            sources.push(path);
        }
    }
    // The names filled in change line lengths: the files as rustfmt lays them out, as
    // the CI workflow checks them.
    openapi::format(&sources);
    eprintln!(
        "created {} ({} template): cd {} && cargo test",
        dir.display(),
        args.template.name(),
        dir.display()
    );
    Ok(())
}

/// A crate name cargo takes and that reads as a folder: lowercase letters, digits and
/// `-`, starting with a letter.
fn check_name(name: &str) -> Result<(), Failure> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-')
        && name.len() <= 64;
    if ok {
        Ok(())
    } else {
        Err(Failure::Usage(format!(
            "`{}` is not a crate name for `mcp new`: use lowercase letters, digits and `-`, starting with a letter (such as support-desk)",
            crate::safe::line(name)
        )))
    }
}

/// Where the crate takes `mcp-runtime` from.
enum Runtime {
    Path(String),
    Version(String),
}

impl Runtime {
    /// The dependency's value in `Cargo.toml`, with these features.
    fn with_features(&self, features: &[&str]) -> String {
        let source = match self {
            Runtime::Path(path) => format!("path = {path:?}"),
            Runtime::Version(version) => format!("version = {version:?}"),
        };
        if features.is_empty() {
            format!("{{ {source} }}")
        } else {
            let list: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
            format!("{{ {source}, features = [{}] }}", list.join(", "))
        }
    }

    /// The path, for the generator of the openapi template.
    fn path(&self) -> Option<String> {
        match self {
            Runtime::Path(path) => Some(path.clone()),
            Runtime::Version(_) => None,
        }
    }
}

/// The dependency the arguments ask for; else a path into the checkout `mcp` was built
/// from, while it is there; else the version of `mcp` itself from crates.io.
fn runtime_dependency(args: &NewArgs, dir: &Path) -> Result<Runtime, Failure> {
    if let Some(path) = &args.runtime_path {
        return Ok(Runtime::Path(path.clone()));
    }
    if let Some(version) = &args.runtime_version {
        return Ok(Runtime::Version(version.clone()));
    }
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime");
    if checkout.join("Cargo.toml").is_file() {
        let current = std::env::current_dir()
            .map_err(|e| Failure::Usage(format!("cannot read the current folder: {e}")))?;
        let target = std::fs::canonicalize(&checkout).unwrap_or(checkout);
        return Ok(Runtime::Path(relative(&target, &current.join(dir))));
    }
    Ok(Runtime::Version(
        env!("CARGO_PKG_VERSION")
            .rsplit_once('.')
            .map_or(env!("CARGO_PKG_VERSION"), |(major_minor, _)| major_minor)
            .to_owned(),
    ))
}

/// `target` as seen from `from` (both absolute), with `/` between the parts.
fn relative(target: &Path, from: &Path) -> String {
    let target: Vec<_> = target.components().collect();
    let from: Vec<_> = from.components().collect();
    let common = target.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        target
            .iter()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// An empty `[workspace]` table when the new crate sits inside another workspace's folder
/// (cargo would otherwise take it for a member that workspace does not list), else
/// nothing.
fn workspace_table(dir: &Path) -> String {
    let start = std::env::current_dir()
        .map(|cwd| cwd.join(dir))
        .unwrap_or_else(|_| dir.to_path_buf());
    let inside = start.ancestors().skip(1).any(|folder| {
        std::fs::read_to_string(folder.join("Cargo.toml"))
            .is_ok_and(|text| text.lines().any(|line| line.trim() == "[workspace]"))
    });
    if inside {
        "\n# A workspace of its own: it sits in another workspace's folder. Delete this table\n\
         # to make it a member of that workspace instead (and list it there).\n[workspace]\n"
            .to_owned()
    } else {
        String::new()
    }
}

/// The values of the placeholders.
struct Values<'a> {
    name: &'a str,
    krate: String,
    template: &'a str,
    runtime: String,
    runtime_sqlite: String,
    runtime_testing: String,
    workspace: String,
    readme: &'a str,
    production: &'a str,
}

impl Values<'_> {
    fn fill(&self, text: &str) -> String {
        // The README part first: it has placeholders of its own.
        text.replace("{{readme}}", self.readme)
            .replace("{{production}}", self.production)
            .replace("{{name}}", self.name)
            .replace("{{crate}}", &self.krate)
            .replace("{{template}}", self.template)
            .replace("{{runtime_sqlite}}", &self.runtime_sqlite)
            .replace("{{runtime_testing}}", &self.runtime_testing)
            .replace("{{runtime}}", &self.runtime)
            .replace("{{workspace}}", &self.workspace)
    }
}

fn write(path: &Path, text: &str) -> Result<(), Failure> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, text)
        .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_crate_names() {
        assert!(check_name("support-desk").is_ok());
        assert!(check_name("desk2").is_ok());
        for bad in [
            "Support", "2desk", "desk_", "desk-", "", "a b", "../x", "désk",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_are_relative_to_the_new_crate() {
        assert_eq!(
            relative(
                Path::new("/src/mcp/mcp-runtime"),
                Path::new("/src/mcp/target/new/desk")
            ),
            "../../../mcp-runtime"
        );
        assert_eq!(
            relative(
                Path::new("/src/mcp/mcp-runtime"),
                Path::new("/home/ada/desk")
            ),
            "../../../src/mcp/mcp-runtime"
        );
    }

    #[test]
    fn every_placeholder_of_every_template_is_filled() {
        for template in [Template::Minimal, Template::BusinessApi, Template::Openapi] {
            let values = Values {
                name: "desk",
                krate: "desk".into(),
                template: template.name(),
                runtime: "{ version = \"0.1\" }".into(),
                runtime_sqlite: "s".into(),
                runtime_testing: "t".into(),
                workspace: String::new(),
                readme: readme(template),
                production: production(template),
            };
            for (path, text) in template.files().iter().chain(COMMON) {
                let filled = values.fill(text);
                assert!(
                    !filled.contains("{{"),
                    "{} {path}: {filled}",
                    template.name()
                );
            }
        }
    }
}
