//! `mcp openapi SPEC --out DIR`: a crate of tools generated from an OpenAPI document.
//!
//! Files the generator owns (`src/api/`) are written again every time; the team's files
//! (`Cargo.toml`, `src/lib.rs`, `src/main.rs`, `mcp-openapi.toml`) only when absent, so a
//! regeneration keeps what the team wrote. The curation file is read from `--config`, or
//! from `mcp-openapi.toml` in the output folder when there is one.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;
use mcp_openapi::generate::{self, Dependency, Owner};
use mcp_openapi::Curation;

use crate::{safe, Failure};

/// What `mcp openapi` takes.
#[derive(Args)]
pub(crate) struct OpenApiArgs {
    /// The OpenAPI document (3.0 or 3.1, JSON or YAML).
    spec: PathBuf,
    /// The crate's folder (created when absent).
    #[arg(long)]
    out: PathBuf,
    /// The curation file [default: OUT/mcp-openapi.toml, when present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The crate's name [default: from the document's title].
    #[arg(long)]
    name: Option<String>,
    /// Depend on mcp-runtime at this path (relative to the crate) instead of crates.io.
    #[arg(long, value_name = "PATH")]
    runtime_path: Option<String>,
    /// Print what was mapped and skipped without writing anything.
    #[arg(long)]
    dry_run: bool,
}

impl OpenApiArgs {
    /// The arguments of `mcp new --template openapi`: the document, the new crate's folder
    /// and name, and where it takes mcp-runtime from.
    pub(crate) fn new(
        spec: PathBuf,
        out: PathBuf,
        name: String,
        runtime_path: Option<String>,
    ) -> OpenApiArgs {
        OpenApiArgs {
            spec,
            out,
            config: None,
            name: Some(name),
            runtime_path,
            dry_run: false,
        }
    }
}

pub(crate) fn run(args: OpenApiArgs) -> Result<(), Failure> {
    let text = std::fs::read_to_string(&args.spec)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", args.spec.display())))?;
    let config = args
        .config
        .clone()
        .or_else(|| Some(args.out.join("mcp-openapi.toml")).filter(|p| p.exists()));
    let curation = match &config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
            Curation::from_toml(&text).map_err(|e| Failure::Usage(e.to_string()))?
        }
        None => Curation::default(),
    };
    let api = mcp_openapi::map(&text, &curation)
        .map_err(|e| Failure::Usage(format!("{}: {e}", args.spec.display())))?;
    for skipped in &api.skipped {
        eprintln!(
            "skipped {}: {}",
            safe::line(&skipped.operation),
            safe::line(&skipped.reason)
        );
    }
    for warning in &api.warnings {
        let place = warning
            .operation
            .as_deref()
            .map(|o| format!("{}: ", safe::line(o)))
            .unwrap_or_default();
        eprintln!("warning: {place}{}", safe::line(&warning.message));
    }
    eprintln!(
        "{} tools, {} operations skipped, {} warnings",
        api.operations.len(),
        api.skipped.len(),
        api.warnings.len()
    );
    if args.dry_run {
        return Ok(());
    }
    if api.operations.is_empty() {
        return Err(Failure::Usage(
            "no operation could be made a tool; nothing written".into(),
        ));
    }
    // The name given, else the name of the crate generated before, else one from the title.
    let crate_name = args
        .name
        .clone()
        .or_else(|| existing_name(&args.out.join("Cargo.toml")))
        .unwrap_or_else(|| crate_name(&api.title));
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", args.out.display())))?;
    let document = relative(&args.spec, &args.out);
    let options = generate::Options {
        crate_name,
        runtime: match &args.runtime_path {
            Some(path) => Dependency::Path(path.clone()),
            None => Dependency::Version("0.1".into()),
        },
        document,
    };
    // The generator's files of the last generation go, so a tool no longer generated leaves
    // no file behind; only files that say they were generated are removed.
    remove_generated(&args.out.join("src/api"))?;
    let mut written = Vec::new();
    for file in generate::generate(&api, &options) {
        let path = args.out.join(&file.path);
        if file.owner == Owner::Team && path.exists() {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, &file.contents)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        if path.extension().is_some_and(|e| e == "rs") {
            written.push(path);
        }
    }
    format(&written);
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// Remove the files under `dir` that carry the generator's header, and the folders left
/// empty.
fn remove_generated(dir: &Path) -> Result<(), Failure> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            remove_generated(&path)?;
            let _ = std::fs::remove_dir(&path);
            continue;
        }
        let generated = std::fs::read_to_string(&path)
            .map(|text| {
                text.lines()
                    .take(6)
                    .any(|l| l.contains("Generated by `mcp openapi`"))
            })
            .unwrap_or(false);
        if generated {
            std::fs::remove_file(&path)
                .map_err(|e| Failure::Usage(format!("cannot remove {}: {e}", path.display())))?;
        }
    }
    Ok(())
}

/// The generated code as rustfmt lays it out, so that a regeneration's diff shows only what
/// changed. Without rustfmt the files stay as written, which compile the same.
pub(crate) fn format(files: &[PathBuf]) {
    if files.is_empty() {
        return;
    }
    let status = Command::new("rustfmt")
        .args(["--edition", "2021"])
        .args(files)
        .status();
    if !matches!(status, Ok(s) if s.success()) {
        eprintln!("warning: rustfmt did not run; the generated files are left unformatted");
    }
}

/// The package name of an existing manifest.
fn existing_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    text.lines()
        .skip_while(|line| line.trim() != "[package]")
        .find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "name").then(|| value.trim().trim_matches('"').to_owned())
        })
}

/// A crate name from a title: lowercase words joined by `-`, ending in `-mcp`.
fn crate_name(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(str::to_ascii_lowercase)
        .collect();
    let base = if words.is_empty() {
        "api".to_owned()
    } else {
        words.join("-")
    };
    let base = if base.starts_with(|c: char| c.is_ascii_digit()) {
        format!("api-{base}")
    } else {
        base
    };
    format!("{base}-mcp")
}

/// `spec` as seen from `out`, for the regeneration command the files quote.
fn relative(spec: &Path, out: &Path) -> String {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let spec_abs = absolute(spec);
    let out_abs = absolute(out);
    let spec_parts: Vec<_> = spec_abs.components().collect();
    let out_parts: Vec<_> = out_abs.components().collect();
    let common = spec_parts
        .iter()
        .zip(&out_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return spec.display().to_string();
    }
    let mut relative = PathBuf::new();
    for _ in common..out_parts.len() {
        relative.push("..");
    }
    for part in &spec_parts[common..] {
        relative.push(part);
    }
    relative.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_come_from_titles() {
        assert_eq!(
            crate_name("Swagger Petstore - OpenAPI 3.0"),
            "swagger-petstore-openapi-3-mcp"
        );
        assert_eq!(crate_name("1Password Connect"), "api-1password-connect-mcp");
        assert_eq!(crate_name("ÅÄÖ"), "api-mcp");
    }
}
