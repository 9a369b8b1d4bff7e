//! What this server serves, decided at start (and again when the tool set changes) from
//! the catalog: which method families are on, and each list method's pages and cursors.
//! [`Live`](super::live::Live) holds one of each per snapshot.

use std::sync::Arc;

use serde_json::Value;

use crate::policy::paging::Cursors;
use crate::protocol::method::Method;
use crate::registry::{Catalog, ListPage, Listed, Listing};

/// Which primitives are served, decided once at start from the catalog.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Served {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    /// Some prompt or resource template declares a completer.
    pub(crate) completions: bool,
    /// Some tool may run as a task.
    pub(crate) tasks: bool,
}

impl Served {
    /// Whether `method`'s family is on (the core answers only the methods of its families,
    /// `server/discover` and `subscriptions/listen`).
    pub(crate) fn serves(&self, method: Method) -> bool {
        match method {
            Method::Discover | Method::Listen => true,
            Method::ToolsList | Method::ToolsCall => self.tools,
            Method::ResourcesList | Method::TemplatesList | Method::ResourcesRead => self.resources,
            Method::PromptsList | Method::PromptsGet => self.prompts,
            Method::Complete => self.completions,
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => self.tasks,
            // The handshake era's own methods are its adapter's.
            Method::Initialize
            | Method::Ping
            | Method::ResourcesSubscribe
            | Method::ResourcesUnsubscribe
            | Method::SetLevel => false,
        }
    }

    pub(crate) fn of(catalog: &Catalog) -> Served {
        Served {
            tools: !catalog.tools().is_empty(),
            // Any tool may hand out an artifact (`resource_link`), read with resources/read.
            resources: !catalog.resources().is_empty()
                || !catalog.templates().is_empty()
                || !catalog.tools().is_empty(),
            prompts: !catalog.prompts().is_empty(),
            completions: catalog
                .prompts()
                .iter()
                .any(|p| !p.def.completions.is_empty())
                || catalog
                    .templates()
                    .iter()
                    .any(|t| !t.def.completions.is_empty()),
            tasks: catalog
                .tools()
                .iter()
                .any(|t| t.def.task != crate::registry::TaskSupport::Forbidden),
        }
    }
}

/// One list method's pages and cursors.
pub(crate) struct PagedList {
    pub(crate) method: &'static str,
    pub(crate) field: &'static str,
    pub(crate) pages: Vec<Arc<ListPage>>,
    pub(crate) entries: Vec<(Listed<'static>, Value)>,
    pub(crate) page_size: usize,
    pub(crate) cursors: Cursors,
}

impl PagedList {
    pub(crate) fn new(
        sealer: &crate::policy::seal::Sealer,
        method: &'static str,
        field: &'static str,
        listing: Listing,
        page_size: usize,
    ) -> Result<Self, String> {
        let cursors = Cursors::new(sealer, method, listing.pages.len(), listing.fingerprint)?;
        Ok(PagedList {
            method,
            field,
            pages: listing.pages,
            entries: listing.entries,
            page_size,
            cursors,
        })
    }
}

/// The four list methods.
pub(crate) struct Lists {
    pub(crate) tools: PagedList,
    pub(crate) resources: PagedList,
    pub(crate) templates: PagedList,
    pub(crate) prompts: PagedList,
}
