//! The served catalog as it is now, and the handle that changes it while the server runs.
//!
//! Requests read an immutable [`Snapshot`] (catalog, pre-serialized list pages, which
//! methods are served). A change through [`ServerHandle`] builds and checks a whole new
//! snapshot, swaps it in, and tells `subscriptions/listen` streams what changed. A change
//! that would make the catalog invalid (a duplicate name, overlapping templates) is
//! refused and the running catalog stays as it was.

use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::broadcast;

use crate::policy::seal::Sealer;
use crate::registry::{BuildError, Catalog, Defs, PromptRef, ResourceRef, ToolRef};

use super::served::{Lists, PagedList, Served};
use super::StateMap;

/// One consistent view of what is served.
pub(crate) struct Snapshot {
    pub(crate) catalog: Catalog,
    pub(crate) lists: Lists,
    pub(crate) served: Served,
    /// The index `search_tools` ranks by, when the server searches.
    pub(crate) index: Option<super::search::SearchIndex>,
}

/// What changed, as told to listeners.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    Tools,
    Prompts,
    Resources,
    ResourceUpdated(String),
}

/// How each snapshot's lists are shaped: entries per page, and the largest output schema
/// a tool publishes whole (`Server::page_size`, `Server::max_output_schema_bytes`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shaping {
    pub(crate) page_size: usize,
    pub(crate) output_schema_bytes: usize,
}

pub(crate) struct Live {
    current: RwLock<Arc<Snapshot>>,
    defs: Mutex<Defs>,
    shaping: Shaping,
    sealer: Sealer,
    states: Arc<StateMap>,
    /// Whether each snapshot gets a search index (`Server::tool_search`).
    search: bool,
    changes: broadcast::Sender<Change>,
    /// Told of every change before it is announced: the response cache's generations
    /// (`Server::cache_responses`).
    invalidates: Option<Arc<dyn Invalidate>>,
}

/// What is told of every change before it is announced.
pub(crate) trait Invalidate: Send + Sync {
    /// `change` happened.
    fn changed(&self, change: &Change);
}

impl Live {
    pub(crate) fn new(
        defs: Defs,
        shaping: Shaping,
        sealer: Sealer,
        states: Arc<StateMap>,
        search: bool,
    ) -> Result<Live, Vec<BuildError>> {
        let snapshot = build(&defs, shaping, &sealer, &states, search)?;
        let (changes, _) = broadcast::channel(256);
        Ok(Live {
            current: RwLock::new(Arc::new(snapshot)),
            defs: Mutex::new(defs),
            shaping,
            sealer,
            states,
            search,
            changes,
            invalidates: None,
        })
    }

    /// Tell `invalidates` of every change from now on, before it is announced.
    pub(crate) fn invalidating(mut self, invalidates: Arc<dyn Invalidate>) -> Live {
        self.invalidates = Some(invalidates);
        self
    }

    /// Tell the response cache and the listeners that `change` happened.
    fn announce(&self, change: Change) {
        if let Some(invalidates) = &self.invalidates {
            invalidates.changed(&change);
        }
        // No listener is not an error.
        let _ = self.changes.send(change);
    }

    /// The key cursors and states are sealed with.
    pub(crate) fn sealer(&self) -> &Sealer {
        &self.sealer
    }

    /// The current snapshot.
    pub(crate) fn load(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Apply `edit` to the served definitions; rebuild, check, swap, announce.
    fn change(
        &self,
        kind: Change,
        edit: impl FnOnce(&mut Defs) -> bool,
    ) -> Result<bool, Vec<BuildError>> {
        self.change_all(&[kind], edit)
    }

    /// As `change`, announcing each of `kinds`.
    fn change_all(
        &self,
        kinds: &[Change],
        edit: impl FnOnce(&mut Defs) -> bool,
    ) -> Result<bool, Vec<BuildError>> {
        let mut defs = self.defs.lock().unwrap_or_else(|p| p.into_inner());
        let mut next = defs.clone();
        if !edit(&mut next) {
            return Ok(false);
        }
        let snapshot = build(&next, self.shaping, &self.sealer, &self.states, self.search)?;
        *defs = next;
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(snapshot);
        for kind in kinds {
            self.announce(kind.clone());
        }
        Ok(true)
    }
}

fn build(
    defs: &Defs,
    shaping: Shaping,
    sealer: &Sealer,
    states: &StateMap,
    search: bool,
) -> Result<Snapshot, Vec<BuildError>> {
    let inline_limit = states
        .get::<super::artifacts::Artifacts>()
        .and_then(|artifacts| artifacts.config.inline_limit);
    let page_size = shaping.page_size;
    let catalog = Catalog::build(
        defs.clone(),
        page_size,
        &|id| states.contains(id),
        inline_limit,
        shaping.output_schema_bytes,
    )?;
    let paged = |method, field, listing| {
        PagedList::new(sealer, method, field, listing, page_size.max(1))
            .map_err(|e| vec![BuildError::Config(e)])
    };
    let lists = Lists {
        tools: paged("tools/list", "tools", catalog.tool_listing())?,
        resources: paged("resources/list", "resources", catalog.resource_listing())?,
        templates: paged(
            "resources/templates/list",
            "resourceTemplates",
            catalog.template_listing(),
        )?,
        prompts: paged("prompts/list", "prompts", catalog.prompt_listing())?,
    };
    let served = Served::of(&catalog);
    let index = if search {
        if catalog.get(super::search::SEARCH_TOOL).is_some() {
            return Err(vec![BuildError::InvalidTool {
                name: super::search::SEARCH_TOOL.to_owned(),
                problems: vec![
                    "the server searches its tools (Server::tool_search), and the tool that searches is named so: rename this one".to_owned(),
                ],
            }]);
        }
        Some(super::search::SearchIndex::build(catalog.tools()))
    } else {
        None
    };
    Ok(Snapshot {
        catalog,
        lists,
        served,
        index,
    })
}

/// A handle on a running server: change what it serves, announce updated resources.
///
/// Get it from [`App::handle`](crate::App::handle), or inside a handler from
/// [`RequestContext::server`](crate::RequestContext::server). Every change is checked
/// like the catalog at start (names, templates, state) and, when it applies, clients
/// listening with `subscriptions/listen` are told that the list changed. Cheap to clone.
///
/// A handle changes the catalog of this process: with several instances behind a load
/// balancer, make the same change on each (from the configuration each reads at start,
/// say).
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Shown only while a maintenance window is open.
/// #[tool]
/// async fn drain_queue() -> &'static str {
///     "drained"
/// }
///
/// # fn demo(app: mcp_runtime::App) -> Result<(), mcp_runtime::Error> {
/// let server = app.handle();
/// server.remove_tool("drain_queue");
/// // .. later ..
/// server.add_tools(tools![drain_queue])?;
/// server.resource_updated("orders://42");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ServerHandle(pub(crate) Arc<Live>);

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerHandle(..)")
    }
}

impl ServerHandle {
    /// Add `items` to one list of definitions (skipping those already there).
    fn add<T: 'static>(
        &self,
        kind: Change,
        items: Vec<&'static T>,
        list: fn(&mut Defs) -> &mut Vec<&'static T>,
    ) -> Result<(), crate::core::Error> {
        self.0
            .change(kind, |defs| {
                let list = list(defs);
                let before = list.len();
                for item in items {
                    if !list.iter().any(|d| std::ptr::eq(*d, item)) {
                        list.push(item);
                    }
                }
                list.len() != before
            })
            .map(|_| ())
            .map_err(crate::core::Error::Build)
    }

    /// Apply `drop` (which drops definitions and says whether it dropped any) to the
    /// catalog's definitions of one kind.
    fn remove(&self, kind: Change, drop: impl FnOnce(&mut Defs) -> bool) -> bool {
        self.0
            .change(kind, drop)
            // Removing never breaks a valid catalog; an error leaves it unchanged.
            .unwrap_or(false)
    }

    /// Serve these tools too (those already served are left as they are).
    pub fn add_tools(
        &self,
        tools: impl IntoIterator<Item = ToolRef>,
    ) -> Result<(), crate::core::Error> {
        let tools = tools.into_iter().map(|t| t.0).collect();
        self.add(Change::Tools, tools, |d| &mut d.tools)
    }

    /// Stop serving the tool named `name`; `false` when no such tool was served.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(Change::Tools, |defs| {
            let before = defs.tools.len() + defs.dynamic.len();
            defs.tools.retain(|t| t.name != name);
            defs.dynamic.retain(|t| t.def.name != name);
            defs.tools.len() + defs.dynamic.len() != before
        })
    }

    /// Whether a tool named `name` is served now.
    pub fn serves_tool(&self, name: &str) -> bool {
        self.0.load().catalog.get(name).is_some()
    }

    /// Serve these prompts too.
    pub fn add_prompts(
        &self,
        prompts: impl IntoIterator<Item = PromptRef>,
    ) -> Result<(), crate::core::Error> {
        let prompts = prompts.into_iter().map(|p| p.0).collect();
        self.add(Change::Prompts, prompts, |d| &mut d.prompts)
    }

    /// Stop serving the prompt named `name`; `false` when no such prompt was served.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(Change::Prompts, |defs| {
            let before = defs.prompts.len() + defs.dynamic_prompts.len();
            defs.prompts.retain(|p| p.name != name);
            defs.dynamic_prompts.retain(|p| p.def.name != name);
            defs.prompts.len() + defs.dynamic_prompts.len() != before
        })
    }

    /// Whether a prompt named `name` is served now.
    pub fn serves_prompt(&self, name: &str) -> bool {
        self.0.load().catalog.prompt(name).is_some()
    }

    /// Serve these resources or resource templates too.
    pub fn add_resources(
        &self,
        resources: impl IntoIterator<Item = ResourceRef>,
    ) -> Result<(), crate::core::Error> {
        let resources = resources.into_iter().map(|r| r.0).collect();
        self.add(Change::Resources, resources, |d| &mut d.resources)
    }

    /// Stop serving the resource whose URI (or template, as written in the attribute or
    /// as published) is `uri`; `false` when none matched.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let matches = |r: &crate::registry::ResourceDef| {
            r.uri == uri || crate::registry::uri::rfc6570(r.template) == uri
        };
        self.remove(Change::Resources, |defs| {
            let before = defs.resources.len() + defs.dynamic_resources.len();
            defs.resources.retain(|r| !matches(r));
            defs.dynamic_resources.retain(|r| !matches(r.def));
            defs.resources.len() + defs.dynamic_resources.len() != before
        })
    }

    /// Stop serving the tools, resources and prompts tagged `tag` (as
    /// [`Server::disable_tags`](crate::Server::disable_tags) does at start); clients
    /// listening are told that the lists changed. `false` when it was disabled already.
    pub fn disable_tag(&self, tag: &str) -> bool {
        self.0
            .change_all(&[Change::Tools, Change::Resources, Change::Prompts], |defs| {
                if defs.disabled_tags.iter().any(|t| t == tag) {
                    return false;
                }
                defs.disabled_tags.push(tag.to_owned());
                true
            })
            // Disabling only takes items away, which leaves a valid catalog valid.
            .unwrap_or(false)
    }

    /// Serve again what carries `tag` (unless another of its tags is disabled); clients
    /// listening are told that the lists changed. `false` when it was not disabled. An
    /// error, leaving the catalog as it was, when what comes back clashes with what is
    /// served (a name added at run time since, say).
    pub fn enable_tag(&self, tag: &str) -> Result<bool, crate::core::Error> {
        self.0
            .change_all(
                &[Change::Tools, Change::Resources, Change::Prompts],
                |defs| {
                    let before = defs.disabled_tags.len();
                    defs.disabled_tags.retain(|t| t != tag);
                    defs.disabled_tags.len() != before
                },
            )
            .map_err(crate::core::Error::Build)
    }

    /// The tags disabled now.
    pub fn disabled_tags(&self) -> Vec<String> {
        self.0
            .defs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .disabled_tags
            .clone()
    }

    /// Tell listeners subscribed to `uri` (`resourceSubscriptions`) that it changed; the
    /// response cache ([`Server::cache_responses`](crate::Server::cache_responses)) drops
    /// what it kept of it.
    pub fn resource_updated(&self, uri: &str) {
        self.0.announce(Change::ResourceUpdated(uri.to_owned()));
    }
}
