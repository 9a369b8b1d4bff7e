//! A request's method and target, resolved once against the catalog when the request
//! arrives, and carried with it down to the handler.
//!
//! The transport's header checks (the mirrored `Mcp-Param-*` headers of a tool), the
//! trace span and the metrics label, the method's routing and the call itself all read
//! this one [`Resolved`], so a request looks its target up once, in one snapshot of the
//! catalog, whatever else is on.

use std::sync::Arc;

use crate::protocol::method::{Method, TargetKind};
use crate::protocol::mirror::Mirrored;
use crate::protocol::Params;
use crate::registry::uri::{UriParams, MAX_URI_BYTES};
use crate::registry::{CatalogPrompt, CatalogResource, CatalogTool, ResourceAt};

use super::live::Snapshot;

/// A request's method, read once, and what its target is in the catalog it is served
/// from.
#[derive(Clone)]
pub(crate) struct Resolved {
    method: Option<Method>,
    snapshot: Arc<Snapshot>,
    found: Found,
}

/// What the catalog holds under a request's target.
#[derive(Clone)]
enum Found {
    /// The method has no target in the catalog (a list, a task), or the request names
    /// none.
    Nothing,
    /// The request names a target the catalog does not serve.
    Unknown,
    Tool(usize),
    Prompt(usize),
    Resource(ResourceAt, UriParams),
}

impl Resolved {
    /// Read `method` and look its target up in `snapshot` (`Core::resolve`).
    pub(crate) fn new(snapshot: Arc<Snapshot>, method: &str, params: Option<&Params>) -> Resolved {
        let method = Method::parse(method);
        let kind = method.and_then(Method::target);
        let catalog = &snapshot.catalog;
        let found = match (kind, params.and_then(|p| p.target(method))) {
            (Some(TargetKind::Tool), Some(name)) => {
                catalog.find_tool(name).map_or(Found::Unknown, Found::Tool)
            }
            (Some(TargetKind::Prompt), Some(name)) => catalog
                .find_prompt(name)
                .map_or(Found::Unknown, Found::Prompt),
            (Some(TargetKind::Resource), Some(uri)) if uri.len() <= MAX_URI_BYTES => catalog
                .find_resource(uri)
                .map_or(Found::Unknown, |(at, params)| Found::Resource(at, params)),
            (Some(TargetKind::Resource), Some(_)) => Found::Unknown,
            _ => Found::Nothing,
        };
        Resolved {
            method,
            snapshot,
            found,
        }
    }

    /// The method, when it is one a server answers.
    pub(crate) fn method(&self) -> Option<Method> {
        self.method
    }

    /// Whether the server answers the method (known, and its family served).
    pub(crate) fn is_served(&self) -> bool {
        self.method
            .is_some_and(|method| self.snapshot.served.serves(method))
    }

    /// The catalog (and what is served) as it was when the request arrived.
    pub(crate) fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The tool a `tools/call` names, when it is served.
    pub(crate) fn tool(&self) -> Option<&CatalogTool> {
        match self.found {
            Found::Tool(i) => self.snapshot.catalog.tool_at(i),
            _ => None,
        }
    }

    /// The prompt a `prompts/get` names, when it is served.
    pub(crate) fn prompt(&self) -> Option<&CatalogPrompt> {
        match self.found {
            Found::Prompt(i) => self.snapshot.catalog.prompt_at(i),
            _ => None,
        }
    }

    /// The resource a `resources/read` (or a subscription) names, with the variables of
    /// its URI, when it is served.
    pub(crate) fn resource(&self) -> Option<(&CatalogResource, &UriParams)> {
        match &self.found {
            Found::Resource(at, params) => Some((self.snapshot.catalog.resource_at(*at)?, params)),
            _ => None,
        }
    }

    /// The arguments of the tool called that are mirrored into HTTP headers.
    pub(crate) fn mirrored(&self) -> &[Mirrored] {
        self.tool().map_or(&[], |tool| &tool.mirrored)
    }

    /// The `name` label of the request's metrics: the served tool or prompt, the URI or
    /// template of the served resource, `(unknown)` for any other target a client named,
    /// empty for a method without one.
    pub(crate) fn metric_label(&self) -> &str {
        match &self.found {
            Found::Nothing => "",
            Found::Unknown => "(unknown)",
            Found::Tool(_) => self.tool().map_or("", |tool| tool.def.name),
            Found::Prompt(_) => self.prompt().map_or("", |prompt| prompt.def.name),
            Found::Resource(..) => self
                .resource()
                .map_or("", |(resource, _)| resource.published.as_str()),
        }
    }
}
