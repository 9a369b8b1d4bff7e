//! What the macros emit, and the catalog built from it once at start.
//!
//! `#[tool]`, `#[resource]` and `#[prompt]` expand to a `static` definition plus an
//! `inventory` submission. At `Server` build time the definitions are filtered, checked for
//! duplicates (and overlapping URI templates), turned into schemas and compiled validators,
//! sorted, and their list pages serialized ahead of time.
//!
//! The registry sits below the core and carries data, not behaviour. Its one arrow up is a
//! type-only contract: the function-pointer types of the generated glue name the
//! handler's `RequestContext` and the completer's `CompletionRequest` (checked by
//! `tests/layers.rs`).

mod build_error;
mod catalog;
pub(crate) mod dynamic;
mod listed;
mod listing;
mod prompt;
mod resource;
pub(crate) mod spec;
mod tool;
pub mod uri;
pub(crate) mod view;

pub use catalog::{BuildError, Catalog, CatalogTool, Defs, ListPage, Listing};
pub(crate) use catalog::{CatalogPrompt, CatalogResource, ResourceAt};
pub use listed::Listed;
pub use prompt::{
    CompleteFuture, Completer, PromptDef, PromptFuture, PromptItem, PromptRef, PromptRegistration,
};
pub use resource::{
    ReadFuture, ReadRequest, ResourceDef, ResourceItem, ResourceRef, ResourceRegistration,
};
pub use spec::ParamSpec;
pub use tool::{
    ErrorDetail, InlineLimit, TaskSupport, ToolDef, ToolItem, ToolRef, ToolRegistration,
};
pub use view::{Permissions, ViewDef, Visibility};
