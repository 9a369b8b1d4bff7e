//! `server/discover` and the four list methods (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`), answered from the pages built at start.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::protocol::RpcError;
use crate::registry::ListPage;

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
        let page = match call.params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => match list.cursors.page_of(cursor) {
                Some(page) => page,
                None => {
                    return Reply::Error(
                        RpcError::invalid_params(format!(
                            "Invalid cursor: it was not issued by this server's {}; list again without a cursor",
                            list.method
                        ))
                        .with_data(json!({ "cursor": cursor })),
                    )
                }
            },
            Some(_) => return Reply::Error(RpcError::invalid_params("cursor must be a string")),
        };
        let next_cursor = |more: bool| {
            more.then(|| list.cursors.cursor_for(page + 1))
                .flatten()
                .map(str::to_owned)
        };
        let (items, more, cache) = match &self.list_filter {
            None => {
                return match list.pages.get(page) {
                    Some(items) => Reply::Page {
                        field: list.field,
                        page: items.clone(),
                        next_cursor: next_cursor(page + 1 < list.pages.len()),
                        cache: self.list_cache,
                    },
                    // Cursors name only pages that exist; this is an empty list's only page.
                    None => Reply::Page {
                        field: list.field,
                        page: Arc::new(ListPage::new(Vec::new())),
                        next_cursor: None,
                        cache: self.list_cache,
                    },
                };
            }
            Some(filter) => {
                // The same pages, of the entries this caller may see: such a list depends on
                // who asks, so no cache may share it.
                let principal = call.ctx.principal();
                let visible: Vec<&Value> = list
                    .entries
                    .iter()
                    .filter(|(listed, _)| filter(principal, listed))
                    .map(|(_, value)| value)
                    .collect();
                let mut pages = visible.chunks(list.page_size);
                let items: Vec<Value> = pages
                    .nth(page)
                    .map(|chunk| chunk.iter().map(|v| (*v).clone()).collect())
                    .unwrap_or_default();
                let more = pages.next().is_some();
                let cache = CacheHints {
                    ttl: self.list_cache.ttl,
                    scope: crate::protocol::cache::CacheScope::Private,
                };
                (Value::Array(items), more, cache)
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
