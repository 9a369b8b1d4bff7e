//! The static description of one `#[resource]` function.

use futures_util::future::BoxFuture;

use crate::core::RequestContext;
use crate::protocol::cache::CacheScope;
use crate::protocol::{ResourceContents, Role, RpcError};

use super::uri::{Piece, UriParams};
use super::view::ViewDef;
use super::{Completer, ParamSpec};

/// The future a resource read runs as.
pub type ReadFuture = BoxFuture<'static, Result<Vec<ResourceContents>, RpcError>>;

/// A read of one concrete URI that matched a resource's template.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    /// The URI as the client sent it.
    pub uri: String,
    /// Its variables, percent-decoded.
    pub params: UriParams,
}

/// Everything `#[resource("...")]` knows about a function at compile time.
#[derive(Debug)]
pub struct ResourceDef {
    /// Programmatic name (default: the function's name).
    pub name: &'static str,
    /// Display title.
    pub title: Option<&'static str>,
    /// What the resource holds (from the doc comment or `description = ".."`).
    pub description: Option<&'static str>,
    /// The template as written in the attribute (`<name>` syntax).
    pub uri: &'static str,
    /// The template, split by the macro.
    pub template: &'static [Piece],
    /// MIME type of its contents.
    pub mime: Option<&'static str>,
    /// Size in bytes, when known ahead of time.
    pub size: Option<u64>,
    /// Intended audience.
    pub audience: Option<&'static [Role]>,
    /// Importance from 0.0 to 1.0.
    pub priority: Option<f64>,
    /// `ttl = ".."`: overrides the server's read freshness, in milliseconds.
    pub ttl_ms: Option<u64>,
    /// `cache = public|private`: overrides the server's read cache scope.
    pub cache_scope: Option<CacheScope>,
    /// `scopes(..)`: OAuth scopes a caller needs; the server checks them before any
    /// `Authorize` hook.
    pub scopes: &'static [&'static str],
    /// `tags(..)`: labels a server enables, disables and shows by.
    pub tags: &'static [&'static str],
    /// `#[view]`: it is a view of the MCP Apps extension, served with `_meta.ui`.
    pub view: Option<ViewDef>,
    /// `module_path!()` where the function is defined.
    pub module_path: &'static str,
    /// Source file, for error messages about duplicates.
    pub file: &'static str,
    /// Source line.
    pub line: u32,
    /// Describes the extractor parameters (state needs) into a [`ParamSpec`].
    pub params: fn(&mut ParamSpec),
    /// Runs the function for one matched URI.
    pub read: fn(RequestContext, ReadRequest) -> ReadFuture,
    /// Completers for template variables, from `complete(var = function)`.
    pub completions: &'static [Completer],
}

impl ResourceDef {
    /// Whether the URI has no variables (listed in `resources/list`, not as a template).
    pub fn is_static(&self) -> bool {
        super::uri::is_static(self.template)
    }
}

registered!(
    ResourceDef,
    ResourceRegistration,
    ResourceItem,
    ResourceRef,
    "#[resource]",
    "resources"
);
