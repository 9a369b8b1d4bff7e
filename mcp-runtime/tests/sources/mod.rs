//! The Rust source files under a folder, for the tests that read the crate's own code
//! (`layers.rs`, `imports.rs`).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, at any depth, added to `out`.
pub fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
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
