//! Search instead of the whole list: past a number of tools, `tools/list` shows a caller
//! the tools pinned by tag and one more, `search_tools`, which finds the others by what
//! the model asks for and hands back their descriptions and input schemas, so the model
//! calls them by name. Calling a tool that is not listed works as always (scopes, the
//! `Authorize` hook and visibility decide); the search only names tools the caller may
//! see.
//!
//! `index` ranks (BM25 over the words of each tool's fields); this file holds the
//! settings, the list a caller sees, and the `search_tools` call.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::protocol::{CallToolResult, Tool, ToolAnnotations};
use crate::registry::{Catalog, CatalogTool, ListPage, Listed};

pub(crate) mod index;

pub(crate) use index::SearchIndex;

/// The name of the tool that searches the others.
pub const SEARCH_TOOL: &str = "search_tools";

/// What a search that finds nothing answers beside its empty list.
const NOTHING_FOUND: &str = "No tool matched these words. Search again describing the task with the words its API would use for the thing it acts on (an invoice, a channel, a meeting), or with fewer words.";

/// Longest query `search_tools` takes, in characters.
const MAX_QUERY_CHARS: usize = 1_000;

/// Most tags one search may filter by.
const MAX_QUERY_TAGS: usize = 32;

/// Search instead of the whole list ([`Server::tool_search`](crate::Server::tool_search)):
/// when a caller may see more tools than the threshold, its `tools/list` holds the tools
/// pinned by tag and `search_tools`.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::ToolSearch;
///
/// let server = Server::new("shop", "1.0.0").tool_search(
///     ToolSearch::new()
///         .threshold(40)
///         .pin_tags(["core"])
///         .max_results(10),
/// );
/// # let _ = server;
/// ```
#[derive(Debug, Clone)]
pub struct ToolSearch {
    threshold: usize,
    pinned: Vec<String>,
    default_results: usize,
    max_results: usize,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::new()
    }
}

impl ToolSearch {
    /// Search past 50 tools; no tool pinned; 5 results unless the model asks for more, at
    /// most 20.
    pub fn new() -> Self {
        ToolSearch {
            threshold: 50,
            pinned: Vec::new(),
            default_results: 5,
            max_results: 20,
        }
    }

    /// Search when a caller may see more than `tools` tools (0: always); up to that, it
    /// gets the whole list.
    pub fn threshold(mut self, tools: usize) -> Self {
        self.threshold = tools;
        self
    }

    /// Keep the tools carrying one of these tags in the list beside `search_tools`.
    pub fn pin_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.pinned.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Most results one search returns (at least 1; the default is 20). A search that
    /// names no `limit` returns 5, or this when it is lower.
    pub fn max_results(mut self, results: usize) -> Self {
        self.max_results = results.max(1);
        self
    }

    fn pinned(&self, tool: &CatalogTool) -> bool {
        tool.def
            .tags
            .iter()
            .any(|tag| self.pinned.iter().any(|p| p == tag))
    }

    /// The `search_tools` entry of `tools/list`.
    pub(crate) fn entry(&self) -> Tool {
        Tool {
            name: SEARCH_TOOL.to_owned(),
            title: Some("Search tools".to_owned()),
            description: Some(format!(
                "Find the tools of this server that fit a task, by describing the task in plain words. Only some tools are listed; this finds the others. Each result has the tool's name, description and input schema: call it by that name as if it were listed. Returns {} results unless `limit` says otherwise (at most {}).",
                self.default_results.min(self.max_results),
                self.max_results
            )),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_QUERY_CHARS,
                        "description": "What you want to do, in plain words, such as \"refund a customer's last payment\"."
                    },
                    "tags": {
                        "type": "array",
                        "items": {"type": "string"},
                        "maxItems": MAX_QUERY_TAGS,
                        "description": "Only tools carrying at least one of these tags."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": self.max_results,
                        "description": "How many tools to return, best first."
                    }
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            output_schema: Some(json!({
                "type": "object",
                "properties": {
                    "tools": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "title": {"type": "string"},
                                "description": {"type": "string"},
                                "inputSchema": {"type": "object"},
                                "annotations": {"type": "object"},
                                "tags": {"type": "array", "items": {"type": "string"}}
                            },
                            "required": ["name", "inputSchema"]
                        }
                    },
                    "note": {"type": "string"}
                },
                "required": ["tools"]
            })),
            annotations: ToolAnnotations {
                title: None,
                read_only_hint: Some(true),
                destructive_hint: Some(false),
                idempotent_hint: Some(true),
                open_world_hint: Some(false),
            },
            meta: None,
        }
    }
}

/// What a caller's `tools/list` is when search is on.
pub(crate) enum Listing {
    /// The caller may see no more tools than the threshold: the whole list.
    Whole,
    /// The pinned tools the caller may see, then `search_tools`.
    Searched(Arc<ListPage>),
}

impl ToolSearch {
    /// The `tools/list` of the caller `sees` decides for, over `catalog`.
    pub(crate) fn listing(&self, catalog: &Catalog, sees: &dyn Fn(&Listed<'_>) -> bool) -> Listing {
        let visible = catalog
            .tools()
            .iter()
            .filter(|tool| sees(&Listed::Tool(tool.def)));
        if visible.clone().nth(self.threshold).is_none() {
            return Listing::Whole;
        }
        let mut entries: Vec<Value> = visible
            .filter(|tool| self.pinned(tool))
            .map(|tool| serde_json::to_value(&tool.tool).unwrap_or(Value::Null))
            .collect();
        entries.push(serde_json::to_value(self.entry()).unwrap_or(Value::Null));
        Listing::Searched(Arc::new(ListPage::new(entries)))
    }

    /// Answer a `search_tools` call: the tools of `catalog` that `index` ranks best for
    /// the query, among those the caller `sees` (and carrying one of the asked tags).
    pub(crate) fn call(
        &self,
        catalog: &Catalog,
        index: &SearchIndex,
        arguments: &Map<String, Value>,
        sees: &dyn Fn(&Listed<'_>) -> bool,
    ) -> CallToolResult {
        let query = match Query::read(arguments, self) {
            Ok(query) => query,
            Err(problem) => return CallToolResult::error(problem),
        };
        let tools = catalog.tools();
        let found: Vec<Value> = index
            .rank(&query.text)
            .into_iter()
            .filter_map(|at| tools.get(at))
            .filter(|tool| {
                query.tags.is_empty()
                    || tool.def.tags.iter().any(|t| query.tags.iter().any(|q| q == t))
            })
            // App-only tools are for a host's views, never for the model.
            .filter(|tool| tool.def.visibility != crate::registry::Visibility::App)
            .filter(|tool| sees(&Listed::Tool(tool.def)))
            .take(query.limit)
            .map(result_entry)
            .collect();
        if found.is_empty() {
            // An empty list alone leaves the model to guess why; say what to try.
            return CallToolResult::structured(json!({ "tools": found, "note": NOTHING_FOUND }));
        }
        CallToolResult::structured(json!({ "tools": found }))
    }
}

/// One search result: what the model needs to call the tool.
fn result_entry(tool: &CatalogTool) -> Value {
    let entry = &tool.tool;
    let mut out = Map::new();
    out.insert("name".into(), json!(entry.name));
    if let Some(title) = &entry.title {
        out.insert("title".into(), json!(title));
    }
    if let Some(description) = &entry.description {
        out.insert("description".into(), json!(description));
    }
    out.insert("inputSchema".into(), entry.input_schema.clone());
    if !entry.annotations.is_empty() {
        out.insert(
            "annotations".into(),
            serde_json::to_value(&entry.annotations).unwrap_or(Value::Null),
        );
    }
    if !tool.def.tags.is_empty() {
        out.insert("tags".into(), json!(tool.def.tags));
    }
    Value::Object(out)
}

/// A `search_tools` call's arguments, checked.
struct Query {
    text: String,
    tags: Vec<String>,
    limit: usize,
}

impl Query {
    fn read(arguments: &Map<String, Value>, search: &ToolSearch) -> Result<Query, String> {
        if let Some(unknown) = arguments
            .keys()
            .find(|k| !matches!(k.as_str(), "query" | "tags" | "limit"))
        {
            return Err(format!(
                "search_tools takes `query`, `tags` and `limit`, not `{unknown}`"
            ));
        }
        let text = match arguments.get("query") {
            Some(Value::String(text)) if text.trim().is_empty() => {
                return Err("`query` is empty: describe the task in a few words".to_owned())
            }
            Some(Value::String(text)) if text.chars().count() > MAX_QUERY_CHARS => {
                return Err(format!(
                    "`query` is longer than {MAX_QUERY_CHARS} characters: describe the task in a few words"
                ))
            }
            Some(Value::String(text)) => text.clone(),
            _ => {
                return Err(
                    "`query` is required: a string describing the task in plain words".to_owned(),
                )
            }
        };
        let tags = match arguments.get("tags") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(tags)) if tags.len() <= MAX_QUERY_TAGS => tags
                .iter()
                .map(|t| t.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or("`tags` is a list of strings")?,
            Some(_) => {
                return Err(format!(
                    "`tags` is a list of at most {MAX_QUERY_TAGS} strings"
                ))
            }
        };
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => search.default_results.min(search.max_results),
            Some(limit) => match limit.as_u64() {
                Some(n) if n >= 1 && n <= search.max_results as u64 => n as usize,
                _ => {
                    return Err(format!(
                        "`limit` is a whole number from 1 to {}",
                        search.max_results
                    ))
                }
            },
        };
        Ok(Query { text, tags, limit })
    }
}
