//! `server/discover` and the four list methods (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`), answered from the pages built at start.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::protocol::RpcError;
use crate::registry::{ListPage, Listed};

use super::super::live::Snapshot;
use super::super::search::Listing;

use super::super::dispatch::{CacheHints, Call, Core, Reply};
use super::super::served::PagedList;

impl Core {
    pub(crate) fn discover(&self) -> Reply {
        let mut body = Map::new();
        body.insert("supportedVersions".into(), json!(self.supported_versions));
        body.insert("capabilities".into(), self.capabilities());
        if let Some(instructions) = &self.instructions {
            body.insert("instructions".into(), Value::String(instructions.clone()));
        }
        Reply::Result {
            body,
            cache: Some(self.discover_cache),
        }
    }

    pub(crate) fn list(&self, list: &PagedList, call: &Call) -> Reply {
        self.list_page(list, call, AppOnly::None)
    }

    /// `tools/list`, when the catalog `has_app_only` tools or not. App-only tools are for
    /// a host's views: a client that did not declare the MCP Apps extension has none, and
    /// the extension forbids showing them to the model, so they are left out of its list
    /// (and refused if called).
    ///
    /// With search on (`Server::tool_search`), a caller who may see more tools than the
    /// threshold gets the pinned ones and `search_tools` instead.
    pub(crate) fn tools_list(&self, snapshot: &Snapshot, call: &Call) -> Reply {
        let app_only = if snapshot.catalog.app_only() {
            AppOnly::Varies {
                shown: crate::registry::view::declared(call.ctx.client_capabilities().as_map()),
            }
        } else {
            AppOnly::None
        };
        if let (Some(search), Some(_)) = (&self.search, &snapshot.index) {
            let hide_app_only = matches!(app_only, AppOnly::Varies { shown: false });
            let sees = |item: &Listed<'_>| {
                !(hide_app_only && is_app_only(item)) && self.lists_show(&call.ctx, item)
            };
            if let Listing::Searched(page) = search.listing(&snapshot.catalog, &sees) {
                let cache = match (self.lists_vary(), app_only) {
                    (false, AppOnly::None) => self.list_cache,
                    _ => self.private_list_cache(),
                };
                return Reply::Page {
                    field: snapshot.lists.tools.field,
                    page,
                    next_cursor: None,
                    cache,
                };
            }
        }
        self.list_page(&snapshot.lists.tools, call, app_only)
    }

    /// The freshness of a list that depends on who asks, or on what the client
    /// declared: never shared.
    fn private_list_cache(&self) -> CacheHints {
        CacheHints {
            ttl: self.list_cache.ttl,
            scope: crate::protocol::cache::CacheScope::Private,
        }
    }

    /// A page of a list (`tools/list` with what its app-only tools make of it; every other
    /// list passes [`AppOnly::None`]).
    fn list_page(&self, list: &PagedList, call: &Call, app_only: AppOnly) -> Reply {
        let page = match call.params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => match list.cursors.page_of(cursor) {
                Ok(page) => page,
                Err(why) => {
                    let why = why.map_or_else(
                        || format!("it was not issued by this server's {}", list.method),
                        str::to_owned,
                    );
                    return Reply::Error(
                        RpcError::invalid_params(format!(
                            "Invalid cursor: {why}; list again without a cursor"
                        ))
                        .with_data(json!({ "cursor": cursor })),
                    );
                }
            },
            Some(_) => return Reply::Error(RpcError::invalid_params("cursor must be a string")),
        };
        let next_cursor = |more: bool| {
            more.then(|| list.cursors.cursor_for(page + 1))
                .flatten()
                .map(str::to_owned)
        };
        let private = self.private_list_cache();
        let hide_app_only = matches!(app_only, AppOnly::Varies { shown: false });
        let (items, more, cache) = match (self.lists_vary(), hide_app_only) {
            (false, false) => {
                let cache = match app_only {
                    AppOnly::None => self.list_cache,
                    AppOnly::Varies { .. } => private,
                };
                return match list.pages.get(page) {
                    Some(items) => Reply::Page {
                        field: list.field,
                        page: items.clone(),
                        next_cursor: next_cursor(page + 1 < list.pages.len()),
                        cache,
                    },
                    // Cursors name only pages that exist; this is an empty list's only page.
                    None => Reply::Page {
                        field: list.field,
                        page: Arc::new(ListPage::new(Vec::new())),
                        next_cursor: None,
                        cache,
                    },
                };
            }
            _ => {
                // The same pages, of the entries this caller may see.
                let visible: Vec<&Value> = list
                    .entries
                    .iter()
                    .filter(|(listed, _)| !(hide_app_only && is_app_only(listed)))
                    .filter(|(listed, _)| self.lists_show(&call.ctx, listed))
                    .map(|(_, value)| value)
                    .collect();
                let mut pages = visible.chunks(list.page_size);
                let items: Vec<Value> = pages
                    .nth(page)
                    .map(|chunk| chunk.iter().map(|v| (*v).clone()).collect())
                    .unwrap_or_default();
                let more = pages.next().is_some();
                (Value::Array(items), more, private)
            }
        };
        let mut body = Map::new();
        body.insert(list.field.into(), items);
        if let Some(next) = next_cursor(more) {
            body.insert("nextCursor".into(), Value::String(next));
        }
        Reply::Result {
            body,
            cache: Some(cache),
        }
    }
}

/// What app-only tools (`visibility = app`) make of a `tools/list`.
#[derive(Clone, Copy)]
enum AppOnly {
    /// There are none: the list is the same for every client.
    None,
    /// There are some: `shown` when the client declared the MCP Apps extension.
    Varies {
        /// The client takes views, so it lists them (its host keeps them from the model).
        shown: bool,
    },
}

fn is_app_only(listed: &Listed<'_>) -> bool {
    matches!(listed, Listed::Tool(def) if def.visibility == crate::registry::Visibility::App)
}
