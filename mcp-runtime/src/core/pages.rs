//! Paged tool results: [`Cursor<S>`] in, [`Page<T>`] out.
//!
//! A tool that can return more items than belong in a model's context takes a
//! `Cursor<S>` parameter, where `S` is its own position (the last id it returned, an
//! offset, a search-after key), and returns a `Page<T>`. The macro publishes an optional
//! `cursor` string argument; the runtime seals the position into that cursor (the same
//! authenticated encryption as list cursors) bound to the tool, the other arguments and
//! the caller, with an expiry. A cursor from another tool, other arguments, another
//! caller, an altered or an expired cursor is refused before the handler runs, as an
//! argument error the model can read; the handler only ever sees positions it issued.

use std::sync::Arc;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::clock::{millis, now_ms};
use crate::policy::seal::{Sealer, Unsealed};
use crate::protocol::{CallToolResult, Content, StructuredContent};
use crate::registry::spec::{CURSOR_ARGUMENT, MAX_CURSOR_CHARS};
use crate::registry::ParamSpec;

use super::extract::{CallParts, Rejection, ToolParam};
use super::returns::tool::IntoToolResult;
use super::RequestContext;

/// How long a page cursor opens unless the server says otherwise.
pub(crate) const DEFAULT_CURSOR_TTL: Duration = Duration::from_secs(3600);

/// What a page cursor carries, sealed.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The handler's position.
    p: Value,
    /// How many items the earlier pages held.
    n: u64,
    /// When it stops opening, milliseconds since the epoch.
    e: u64,
}

/// One paged call's binding: what its cursors are sealed to. Set by the core before the
/// handler runs, for tools that take a [`Cursor`].
pub(crate) struct Paging {
    sealer: Sealer,
    /// `page:<tool>`, a zero byte, and the digest of the caller and the arguments.
    bound: Vec<u8>,
    ttl: Duration,
    tool: String,
}

/// Why a cursor that does not open is refused (never which check failed).
const NOT_OURS: &str =
    "it was not issued by this tool for these arguments and this caller, or it was altered";

impl Paging {
    /// The binding of a call of `tool` with `arguments` (the cursor already taken out) by
    /// the caller of `ctx`.
    pub(crate) fn new(
        sealer: &Sealer,
        ttl: Duration,
        tool: &str,
        arguments: &Map<String, Value>,
        ctx: &RequestContext,
    ) -> Paging {
        let principal = ctx.principal();
        let mut hash = Sha256::new();
        super::canonical::hash_caller(&mut hash, tool, principal);
        hash.update([u8::from(principal.is_some())]);
        let mut canonical = Vec::with_capacity(64);
        super::canonical::canonical_object(arguments, &mut canonical);
        hash.update(&canonical);
        let mut bound = format!("page:{tool}").into_bytes();
        bound.push(0);
        bound.extend_from_slice(&hash.finalize());
        Paging {
            sealer: sealer.clone(),
            bound,
            ttl,
            tool: tool.to_owned(),
        }
    }

    fn seal(&self, position: Value, served: u64) -> Result<String, String> {
        let sealed = Sealed {
            p: position,
            n: served,
            e: now_ms().saturating_add(millis(self.ttl)),
        };
        let plain = serde_json::to_vec(&sealed).map_err(|e| e.to_string())?;
        let cursor = self.sealer.seal_with(&self.bound, &plain)?;
        if cursor.len() > MAX_CURSOR_CHARS {
            return Err(format!(
                "the position is too large for a cursor ({} characters, at most {MAX_CURSOR_CHARS}): keep it to an id or a few keys",
                cursor.len()
            ));
        }
        Ok(cursor)
    }

    fn open(&self, cursor: &str) -> Result<Sealed, &'static str> {
        let plain = self
            .sealer
            .open_with(&self.bound, cursor, MAX_CURSOR_CHARS)
            .map_err(|why| match why {
                Unsealed::OtherKey => self.sealer.other_key(),
                _ => NOT_OURS,
            })?;
        let sealed: Sealed = serde_json::from_slice(&plain).map_err(|_| NOT_OURS)?;
        if sealed.e <= now_ms() {
            return Err("it has expired");
        }
        Ok(sealed)
    }
}

/// Where a paged tool resumes: the position its previous page ended at, or none on the
/// first call.
///
/// Take it as a parameter of a tool that returns a [`Page`]; `S` is your own position
/// type (`u64` for "the last id returned", a struct for a compound key). The tool then
/// publishes an optional `cursor` argument, whatever the parameter is called.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{Cursor, Page};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Row {
///     id: u64,
/// }
///
/// /// Lists rows, 50 at a time.
/// #[tool(read_only)]
/// async fn rows(after: Cursor<u64>) -> Page<Row> {
///     let start = after.position().copied().unwrap_or(0);
///     let rows: Vec<Row> = (start + 1..=(start + 50).min(1_000)).map(|id| Row { id }).collect();
///     let next = rows.last().map(|row| row.id).filter(|id| *id < 1_000);
///     after.page(rows, next).total(1_000)
/// }
/// ```
pub struct Cursor<S> {
    position: Option<S>,
    served: u64,
    paging: Option<Arc<Paging>>,
}

impl<S> Cursor<S> {
    /// The position the previous page ended at; `None` for the first page.
    pub fn position(&self) -> Option<&S> {
        self.position.as_ref()
    }

    /// Whether this is the first page.
    pub fn is_first(&self) -> bool {
        self.position.is_none()
    }

    /// How many items the earlier pages held.
    pub fn served(&self) -> u64 {
        self.served
    }

    /// The page of `items`; `next` is where the next page starts, `None` when this is the
    /// last one.
    pub fn page<T>(self, items: Vec<T>, next: Option<S>) -> Page<T>
    where
        S: Serialize,
    {
        let next = match next {
            None => Next::End,
            Some(position) => {
                let served = self.served.saturating_add(items.len() as u64);
                let sealed = serde_json::to_value(&position)
                    .map_err(|e| format!("the position could not be serialized: {e}"))
                    .and_then(|position| match &self.paging {
                        Some(paging) => paging.seal(position, served),
                        None => Err("this call has no cursor binding".to_owned()),
                    });
                match sealed {
                    Ok(cursor) => Next::Cursor(cursor, self.paging.map(|p| p.tool.clone())),
                    Err(problem) => Next::Failed(problem),
                }
            }
        };
        Page {
            items,
            first: self.served.saturating_add(1),
            next,
            total: None,
        }
    }
}

impl<S: DeserializeOwned + Send> ToolParam for Cursor<S> {
    fn describe(spec: &mut ParamSpec, _: &'static str, description: Option<&'static str>) {
        spec.cursor(description);
    }

    fn extract(parts: &mut CallParts<'_>, _: &'static str) -> Result<Self, Rejection> {
        let paging = parts.context().paging().cloned();
        let refuse = |why: &str| {
            Rejection::Argument {
            name: CURSOR_ARGUMENT.to_owned(),
            message: format!(
                "this cursor cannot be used: {why}; call the tool again without `cursor` to start from the first page"
            ),
        }
        };
        let cursor = match parts.take_argument(CURSOR_ARGUMENT) {
            None | Some(Value::Null) => {
                return Ok(Cursor {
                    position: None,
                    served: 0,
                    paging,
                })
            }
            Some(Value::String(cursor)) => cursor,
            Some(_) => return Err(refuse("it is not a string")),
        };
        let Some(binding) = &paging else {
            return Err(refuse("this call has no cursor binding"));
        };
        let sealed = binding.open(&cursor).map_err(refuse)?;
        // The position was sealed by this server from the handler's own value, so it
        // decodes unless the handler changed its position type since.
        let position = serde_json::from_value(sealed.p)
            .map_err(|_| refuse("it was issued by an earlier version of this tool"))?;
        Ok(Cursor {
            position: Some(position),
            served: sealed.n,
            paging,
        })
    }
}

enum Next {
    End,
    /// The sealed cursor and the tool it continues.
    Cursor(String, Option<String>),
    Failed(String),
}

/// How many items there are in all, as a tool knows it.
#[derive(Clone, Copy)]
enum Total {
    Exact(u64),
    About(u64),
}

/// One page of a tool's results: the items as structured content, a short summary the
/// model reads first, and `nextCursor` when more pages follow.
///
/// Build it with [`Cursor::page`] (or [`Page::all`] when everything fits in one page).
/// The result's `structuredContent` is `{"items": [..], "nextCursor": "..", "total": n}`
/// (its output schema is derived from `T`); its text says which items these are and
/// how to get the next page, followed by the same JSON.
pub struct Page<T> {
    items: Vec<T>,
    first: u64,
    next: Next,
    total: Option<Total>,
}

impl<T> Page<T> {
    /// All the items, in one page with no continuation.
    pub fn all(items: Vec<T>) -> Self {
        let total = items.len() as u64;
        Page {
            items,
            first: 1,
            next: Next::End,
            total: Some(Total::Exact(total)),
        }
    }

    /// How many items there are in all.
    pub fn total(mut self, total: u64) -> Self {
        self.total = Some(Total::Exact(total));
        self
    }

    /// About how many items there are in all (an estimate, such as a database's row
    /// count statistics).
    pub fn total_about(mut self, total: u64) -> Self {
        self.total = Some(Total::About(total));
        self
    }

    /// The items of this page.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// The items and the next page's cursor (`None` on the last page), for a tool that
    /// returns them in a shape of its own; `Err` says why the cursor could not be made.
    pub fn into_parts(self) -> Result<(Vec<T>, Option<String>), String> {
        match self.next {
            Next::End => Ok((self.items, None)),
            Next::Cursor(cursor, _) => Ok((self.items, Some(cursor))),
            Next::Failed(problem) => Err(problem),
        }
    }
}

/// The structured content of a page, and its output schema.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PageBody<T> {
    /// The items of this page.
    items: Vec<T>,
    /// Pass this as the `cursor` argument, with the same other arguments, for the next
    /// page. Absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    /// How many items there are in all, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    /// Whether `total` is an estimate.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    total_is_estimate: bool,
}

/// A whole number with thousands separators, as the model reads counts.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl<T: Serialize + JsonSchema> IntoToolResult for Page<T> {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(PageBody::<T>::json_schema(generator))
    }

    fn into_tool_result(self) -> CallToolResult {
        let Page {
            items,
            first,
            next,
            total,
        } = self;
        let (next_cursor, tool) = match next {
            Next::End => (None, None),
            Next::Cursor(cursor, tool) => (Some(cursor), tool),
            Next::Failed(problem) => {
                tracing::error!("a page's cursor could not be made: {problem}");
                return CallToolResult::error(format!(
                    "The next page's cursor could not be made: {problem}"
                ));
            }
        };
        let count = items.len() as u64;
        let mut summary = if count == 0 {
            "No items".to_owned()
        } else {
            format!(
                "Items {}-{}",
                grouped(first),
                grouped(first.saturating_add(count - 1))
            )
        };
        match total {
            Some(Total::Exact(n)) => summary.push_str(&format!(" of {}", grouped(n))),
            Some(Total::About(n)) => summary.push_str(&format!(" of about {}", grouped(n))),
            None => {}
        }
        match (&next_cursor, &tool) {
            (Some(cursor), Some(tool)) => summary.push_str(&format!(
                ". More follow: call `{tool}` again with the same arguments and \"cursor\": \"{cursor}\"."
            )),
            (Some(cursor), None) => summary.push_str(&format!(
                ". More follow: call again with the same arguments and \"cursor\": \"{cursor}\"."
            )),
            (None, _) if count > 0 => summary.push_str("; this is the last page."),
            (None, _) => summary.push('.'),
        }
        let body = PageBody {
            items,
            next_cursor,
            total: total.map(|t| match t {
                Total::Exact(n) | Total::About(n) => n,
            }),
            total_is_estimate: matches!(total, Some(Total::About(_))),
        };
        match StructuredContent::new(&body) {
            Ok(value) => {
                let json = value.json().to_owned();
                CallToolResult {
                    content: vec![Content::text(summary), Content::text(json)],
                    structured_content: Some(value),
                    ..Default::default()
                }
            }
            Err(e) => {
                CallToolResult::error(format!("The tool's result could not be serialized: {e}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(4013), "4,013");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
