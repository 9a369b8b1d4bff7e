//! What changed between two catalog snapshots of a server, and what it means for its
//! callers: `mcp catalog diff OLD NEW`.
//!
//! A snapshot is a JSON object holding what a server lists (`tools`, `resources`,
//! `resourceTemplates`, `prompts`, each keyed by name or URI, the entry as the server lists
//! it without that key) and who it is (`server`). [`diff`] reads two of them and sorts
//! every difference into a [`Class`], seen from a caller's side (a model or an agent that
//! calls the tools): what it sends (a tool's `inputSchema`, a prompt's arguments) may widen
//! but not narrow, what it receives (a tool's `outputSchema`) may narrow but not widen.
//! Where the direction of a change cannot be proven, the change is [`Class::Unknown`],
//! which counts as breaking: the diff never calls compatible what it is unsure of.
//!
//! Each [`Change`] names where it is by a JSON pointer (RFC 6901) into the new snapshot, or
//! into the old one for what was removed, and says in one line what changed and why it is
//! of its class. The JSON Schema comparison lives in `schema`, the catalog's entries in
//! `entries`.

use std::collections::HashSet;
use std::fmt;

use serde_json::{json, Value};

use crate::safe;

mod entries;
mod json;
mod schema;
#[cfg(test)]
mod tests;

/// How a change reads to a caller. Declared from the most severe to the least, so the
/// derived order sorts breaking changes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A caller that worked with the old catalog may fail with the new one.
    Breaking,
    /// Something changed whose effect on callers cannot be told; treated as breaking.
    Unknown,
    /// Something was added or widened: every caller of the old catalog still works.
    Compatible,
    /// Nothing a caller relies on changed (a description, a version label, a default).
    Informational,
}

impl Class {
    /// The class as `--json` and the human report write it: `breaking`, `unknown`,
    /// `compatible` or `informational`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Unknown => "unknown",
            Class::Compatible => "compatible",
            Class::Informational => "informational",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The version bump a set of changes calls for, by semantic versioning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bump {
    /// Nothing changed.
    None,
    /// Informational changes only.
    Patch,
    /// Compatible additions or widenings, nothing breaking.
    Minor,
    /// At least one breaking or unknown change.
    Major,
}

impl Bump {
    /// `none`, `patch`, `minor` or `major`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One difference between the snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// How it reads to a caller.
    pub class: Class,
    /// Where it is: a JSON pointer (RFC 6901) into the new snapshot, or into the old one
    /// when what changed is only there (a removal), e.g.
    /// `/tools/add/inputSchema/properties/b`. Where a schema says the same thing in another
    /// form than the keyword named (a union's branch, a `$ref`), it points at the schema
    /// the keyword belongs to.
    pub pointer: String,
    /// One line of plain English: what changed, and why that makes it of its class.
    pub message: String,
}

/// Every difference between two snapshots, the most severe first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The differences: breaking, then unknown, compatible and informational ones, each
    /// class in the order the snapshots were read.
    pub changes: Vec<Change>,
}

impl Report {
    /// Whether a caller of the old catalog may fail with the new one: some change is
    /// breaking, or cannot be told not to be.
    pub fn breaking(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c.class, Class::Breaking | Class::Unknown))
    }

    /// The version bump the changes call for: major for a breaking or unknown change,
    /// minor for a compatible one, patch for informational ones alone, none for none.
    pub fn bump(&self) -> Bump {
        self.changes
            .iter()
            .map(|c| match c.class {
                Class::Breaking | Class::Unknown => Bump::Major,
                Class::Compatible => Bump::Minor,
                Class::Informational => Bump::Patch,
            })
            .max()
            .unwrap_or(Bump::None)
    }

    /// The report for scripts: `{"changes": [{"class", "pointer", "message"}],
    /// "breaking": bool, "bump": "major" | "minor" | "patch" | "none"}`. Strings are as
    /// the snapshots hold them, unescaped.
    pub fn to_json(&self) -> Value {
        let changes: Vec<Value> = self
            .changes
            .iter()
            .map(|c| {
                json!({
                    "class": c.class.as_str(),
                    "pointer": c.pointer,
                    "message": c.message,
                })
            })
            .collect();
        json!({
            "changes": changes,
            "breaking": self.breaking(),
            "bump": self.bump().as_str(),
        })
    }

    /// The report for people: one line per change, `class  pointer  message`, breaking
    /// first, then unknown, compatible and informational, and last `suggested version
    /// bump: major` (or minor, patch, none). Each line ends with a newline. Names in the
    /// snapshots come from servers, so control characters in them are shown escaped
    /// ([`safe::line`]) instead of reaching the terminal.
    pub fn human(&self) -> String {
        let mut sorted: Vec<&Change> = self.changes.iter().collect();
        // Stable, so each class keeps the order the snapshots were read in.
        sorted.sort_by_key(|c| c.class);
        let mut out = String::new();
        for change in sorted {
            let pointer = if change.pointer.is_empty() {
                // The empty pointer is the whole document; shown as nothing, the line
                // would look as if a column were missing.
                "(the whole snapshot)"
            } else {
                change.pointer.as_str()
            };
            out.push_str(change.class.as_str());
            out.push_str("  ");
            out.push_str(&safe::line(pointer));
            out.push_str("  ");
            out.push_str(&safe::line(&change.message));
            out.push('\n');
        }
        out.push_str("suggested version bump: ");
        out.push_str(self.bump().as_str());
        out.push('\n');
        out
    }
}

/// Compare two catalog snapshots: what changed from `old` to `new`, each change classed as
/// a caller of the tools, prompts and resources sees it. Identical snapshots give no
/// changes. Never fails: a part of a snapshot this version cannot read is reported as an
/// [`Class::Unknown`] change where it differs.
pub fn diff(old: &Value, new: &Value) -> Report {
    let mut changes = entries::snapshot(old, new);
    // The same `$defs` entry reached from two places, or a change seen both as a keyword
    // and as a branch, is one change: say it once.
    let mut seen = HashSet::new();
    changes.retain(|c| seen.insert((c.class, c.pointer.clone(), c.message.clone())));
    changes.sort_by_key(|c| c.class);
    Report { changes }
}
