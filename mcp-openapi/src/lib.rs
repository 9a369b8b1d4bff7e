//! From an OpenAPI document to MCP tools.
//!
//! [`map`] reads a document (OpenAPI 3.0 or 3.1, JSON or YAML) and a team's curation
//! ([`Curation`], the `mcp-openapi.toml` file) and gives an [`Api`]: one [`Operation`] per
//! selected operation, with its arguments, body, result and errors as JSON Schema 2020-12,
//! its annotations from the HTTP method, its retry key, paging and scopes, and the
//! operations it could not map, each with the reason. `mcp openapi` generates a crate of
//! `#[tool]`s from it; the runtime's serving mode registers its operations as tools.
//!
//! ```
//! let document = r#"
//! openapi: 3.0.3
//! info: { title: Inventory, version: "1" }
//! paths:
//!   /items/{itemId}:
//!     delete:
//!       operationId: deleteItem
//!       parameters:
//!         - { name: itemId, in: path, required: true, schema: { type: integer } }
//!       responses: { "204": { description: deleted } }
//! "#;
//! let api = mcp_openapi::map(document, &mcp_openapi::Curation::default()).unwrap();
//! let tool = &api.operations[0];
//! assert_eq!(tool.tool, "delete_item");
//! assert!(tool.annotations.destructive && tool.confirm);
//! assert_eq!(tool.params[0].argument, "itemId");
//! assert_eq!(tool.params[0].field, "item_id");
//! ```

mod curation;
pub mod generate;
mod load;
mod map;
mod model;
mod names;
mod refs;
mod schema;

pub use curation::{ArgumentCuration, AsCaller, Curation, From, OperationCuration, Select};
pub use load::Version;
pub use map::map;
pub use model::{
    Annotations, Api, Body, Caller, Credential, ErrorResponse, Hidden, Location, Method, Operation,
    Output, OutputKind, PageBy, Pagination, Param, Placement, Skipped, Style, Warning,
};
pub use names::{env_name, type_name, MAX_TOOL_NAME};

/// Why a document, or a curation of it, cannot be mapped at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The document is unreadable, or not OpenAPI 3.0 or 3.1.
    Document(String),
    /// The curation file is malformed, or names what the document does not have.
    Curation(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Document(message) | Error::Curation(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
