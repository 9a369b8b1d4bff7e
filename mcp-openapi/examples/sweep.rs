//! Maps every document under a folder and prints, per document, the operations mapped and
//! skipped, the warnings and the time taken; the skip reasons most often given last. A
//! panic is reported as a failure of that document, and the run goes on. With
//! `SWEEP_VERBOSE=1`, each skipped operation is listed with its reason.
//!
//! `cargo run --release -p mcp-openapi --example sweep -- DIR`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: sweep DIR");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    collect(Path::new(&dir), &mut files);
    files.sort();
    let (mut mapped, mut skipped, mut failed, mut panics) = (0usize, 0usize, 0usize, 0usize);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    // `SWEEP_VERBOSE=1`: every skipped operation with its reason.
    let verbose = std::env::var_os("SWEEP_VERBOSE").is_some();
    std::panic::set_hook(Box::new(|_| {}));
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let started = Instant::now();
        let outcome =
            std::panic::catch_unwind(|| mcp_openapi::map(&text, &mcp_openapi::Curation::default()));
        let took = started.elapsed();
        match outcome {
            Ok(Ok(api)) => {
                mapped += api.operations.len();
                skipped += api.skipped.len();
                for skip in &api.skipped {
                    if verbose {
                        println!("  skipped {}: {}", skip.operation, skip.reason);
                    }
                    let kind: String = skip
                        .reason
                        .split(['`', ':'])
                        .next()
                        .unwrap_or("")
                        .chars()
                        .take(60)
                        .collect();
                    *reasons.entry(kind).or_default() += 1;
                }
                println!(
                    "{}\t{}\t{}\t{}\t{:.1} ms",
                    file.display(),
                    api.operations.len(),
                    api.skipped.len(),
                    api.warnings.len(),
                    took.as_secs_f64() * 1000.0
                );
            }
            Ok(Err(error)) => {
                failed += 1;
                println!("{}\terror\t{error}", file.display());
            }
            Err(_) => {
                panics += 1;
                println!("{}\tPANIC", file.display());
            }
        }
    }
    let mut common: Vec<_> = reasons.into_iter().collect();
    common.sort_by_key(|c| std::cmp::Reverse(c.1));
    for (reason, count) in common.iter().take(15) {
        eprintln!("{count:6}  {reason}");
    }
    eprintln!(
        "{} documents: {mapped} operations mapped, {skipped} skipped, {failed} documents refused, {panics} panics",
        files.len()
    );
    if panics > 0 {
        std::process::exit(1);
    }
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "yaml" | "yml")
        ) {
            files.push(path);
        }
    }
}
