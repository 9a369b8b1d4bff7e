//! What the macros emit, and the catalog built from it once at start.
//!
//! `#[tool]` expands to a `static ToolDef` plus an `inventory` submission. At `Server`
//! build time the definitions are filtered, checked for duplicates, turned into schemas and
//! compiled validators, sorted by name, and their list pages serialized ahead of time.

mod catalog;
mod spec;
mod tool;

pub use catalog::{BuildError, Catalog, CatalogTool};
pub use spec::ParamSpec;
pub use tool::{ToolDef, ToolItem, ToolRef, ToolRegistration};
