//! Content safety for hosts: what a server sends is untrusted input, so a host can bound
//! the size and the kinds of content that reach its user or its model ([`ContentPolicy`]),
//! and is told of everything removed ([`Removal`]); and what a server says of its tools is
//! its claim, not a fact ([`ToolHints`]).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The `_meta` key under which a [`Client`](super::Client) with a [`ContentPolicy`] lists
/// what the policy removed from a result (an array of [`Removal`]s; absent when nothing
/// was). Whatever the server itself put under this key is dropped first, so the list is the
/// client's own. Read it with [`Removal::in_result`].
pub const REMOVED_META_KEY: &str = "mcp-runtime/contentRemoved";

/// What a server says of one of its tools in its `annotations`: claims, not facts.
///
/// A server can say anything of its tools, and the specification has clients treat the
/// annotations of a server they do not trust as untrusted. A tool said to be read-only may
/// delete; one said to be idempotent may charge twice. Use these hints to present a tool
/// (a label, a grouping), never to skip a confirmation, a permission or a check before a
/// retry, unless the host trusts this server for other reasons of its own. Each hint is
/// `None` where the server said nothing; the specification's defaults for a missing hint
/// are the cautious ones (destructive, open-world, neither read-only nor idempotent).
///
/// ```
/// use mcp_runtime::client::ToolHints;
/// use serde_json::json;
///
/// let tool = json!({"name": "drop_database", "inputSchema": {"type": "object"},
///     "annotations": {"readOnlyHint": true, "title": "Harmless lookup"}});
/// let claims = ToolHints::of(&tool);
/// assert_eq!(claims.read_only, Some(true)); // what the server says, nothing more
/// assert_eq!(claims.destructive, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolHints {
    /// The display name the server gives (`annotations.title`).
    pub title: Option<String>,
    /// The server claims the tool changes nothing (`readOnlyHint`).
    pub read_only: Option<bool>,
    /// The server claims the tool may destroy or overwrite (`destructiveHint`).
    pub destructive: Option<bool>,
    /// The server claims calling the tool again with the same arguments does nothing more
    /// (`idempotentHint`).
    pub idempotent: Option<bool>,
    /// The server claims the tool reaches beyond a closed set of things (`openWorldHint`).
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// The hints of `tool`, a tool object as a server lists it. Hints of the wrong type
    /// are taken as not given.
    pub fn of(tool: &Value) -> ToolHints {
        let annotations = tool.get("annotations");
        let flag = |name: &str| {
            annotations
                .and_then(|a| a.get(name))
                .and_then(Value::as_bool)
        };
        ToolHints {
            title: annotations
                .and_then(|a| a.get("title"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            read_only: flag("readOnlyHint"),
            destructive: flag("destructiveHint"),
            idempotent: flag("idempotentHint"),
            open_world: flag("openWorldHint"),
        }
    }
}

/// The block type a refused one is replaced with, and the MIME type text blocks count as.
const TEXT_MIME: &str = "text/plain";
/// The MIME type of binary content that names none.
const UNNAMED_BINARY_MIME: &str = "application/octet-stream";

/// Limits on the content a server sends: the size of each block, the size of all of a
/// result's blocks together, and the MIME types allowed.
///
/// It applies to the blocks of tool results (`content`), of resource reads (`contents`)
/// and of prompts (each message's `content`). A block it refuses is replaced, where it
/// was, by a text block saying what was removed (its MIME type and size) and why, so
/// nothing disappears silently; the removals are also listed in the result's `_meta`
/// under [`REMOVED_META_KEY`] (see [`Removal::in_result`]). Give it to a client with
/// [`ClientBuilder::content_policy`](super::ClientBuilder::content_policy); without one
/// (the default) a client hands content over as the server sent it.
///
/// How blocks are measured and typed: a text block is its text's UTF-8 bytes, of type
/// `text/plain`; an image, an audio clip or a binary resource is its decoded bytes (from
/// the base64 length), of its `mimeType` (`application/octet-stream` if it names none); an
/// embedded resource or resource contents with text are its text, of its `mimeType`
/// (`text/plain` if none). A block of a type this client does not know is its JSON's
/// length, with no MIME type, so an allow-list refuses it. Resource links (`resource_link`)
/// carry no content and pass as they are: the client never follows a link by itself,
/// whatever the policy. `structuredContent` is data for the program, not content, and is
/// not touched.
///
/// The total counts the blocks kept, in order: a block that would take the total past the
/// limit is removed, and a later, smaller one may still fit.
///
/// ```
/// use mcp_runtime::client::{ContentPolicy, Removal};
/// use serde_json::json;
///
/// let policy = ContentPolicy::new()
///     .max_block_bytes(1 << 20)
///     .max_total_bytes(4 << 20)
///     .allow_mime(["text/*", "image/png", "application/json"]);
/// let mut result = json!({"content": [
///     {"type": "text", "text": "Here is the chart:"},
///     {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4="},
/// ]});
/// let removed = policy.apply("tools/call", &mut result);
/// assert_eq!(removed.len(), 1);
/// assert_eq!(removed[0].at, "/content/1");
/// assert_eq!(result["content"][1]["type"], "text");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ContentPolicy {
    max_block: Option<usize>,
    max_total: Option<usize>,
    allowed: Option<Vec<String>>,
}

/// One block a [`ContentPolicy`] removed from a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Removal {
    /// Where the block was, and its replacement now is: a JSON pointer into the result
    /// (`/content/2`, `/contents/0`, `/messages/1/content`).
    pub at: String,
    /// The block's MIME type (`None` for a block of an unknown type).
    pub mime_type: Option<String>,
    /// The block's size, measured as [`ContentPolicy`] says.
    pub bytes: usize,
    /// Why it was removed.
    pub reason: RemovalReason,
}

/// Why a [`ContentPolicy`] removed a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RemovalReason {
    /// The block was larger than the per-block limit.
    BlockTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Keeping the block would have taken the result's total past its limit.
    TotalTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The block's MIME type (or its lack of one) is not in the allow-list.
    MimeNotAllowed,
}

impl Removal {
    /// The removals a client's [`ContentPolicy`] listed in `result` (empty when it removed
    /// nothing, or when the client has no policy).
    pub fn in_result(result: &Value) -> Vec<Removal> {
        result
            .get("_meta")
            .and_then(|meta| meta.get(REMOVED_META_KEY))
            .and_then(|list| serde_json::from_value(list.clone()).ok())
            .unwrap_or_default()
    }
}

impl ContentPolicy {
    /// A policy that allows everything, to narrow with the methods below.
    pub fn new() -> ContentPolicy {
        ContentPolicy::default()
    }

    /// Remove each block larger than `bytes`.
    pub fn max_block_bytes(mut self, bytes: usize) -> ContentPolicy {
        self.max_block = Some(bytes);
        self
    }

    /// Remove the blocks that would take one result's total past `bytes`.
    pub fn max_total_bytes(mut self, bytes: usize) -> ContentPolicy {
        self.max_total = Some(bytes);
        self
    }

    /// Allow only the blocks whose MIME type matches one of `patterns` (added to those
    /// already allowed): `image/png`, `image/*` (any image), `*/*` or `*` (anything with a
    /// MIME type). Matching ignores case and parameters (`text/plain; charset=utf-8` is
    /// `text/plain`). Text blocks count as `text/plain`. Without this call every MIME type
    /// is allowed.
    pub fn allow_mime<I, S>(mut self, patterns: I) -> ContentPolicy
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let allowed = self.allowed.get_or_insert_with(Vec::new);
        allowed.extend(
            patterns
                .into_iter()
                .map(|p| p.into().trim().to_ascii_lowercase()),
        );
        self
    }

    /// Apply the policy to `result`, the result of `method` (`tools/call`,
    /// `resources/read` or `prompts/get`; any other is left alone): replace each refused
    /// block by a text block that says what was removed and why, and return the removals.
    pub fn apply(&self, method: &str, result: &mut Value) -> Vec<Removal> {
        let mut pass = Pass {
            policy: self,
            total: 0,
            removed: Vec::new(),
        };
        match method {
            "tools/call" => {
                if let Some(Value::Array(blocks)) = result.get_mut("content") {
                    for (i, block) in blocks.iter_mut().enumerate() {
                        pass.block(format!("/content/{i}"), block);
                    }
                }
            }
            "resources/read" => {
                if let Some(Value::Array(contents)) = result.get_mut("contents") {
                    for (i, contents) in contents.iter_mut().enumerate() {
                        pass.contents(format!("/contents/{i}"), contents);
                    }
                }
            }
            "prompts/get" => {
                if let Some(Value::Array(messages)) = result.get_mut("messages") {
                    for (i, message) in messages.iter_mut().enumerate() {
                        match message.get_mut("content") {
                            Some(Value::Array(blocks)) => {
                                for (j, block) in blocks.iter_mut().enumerate() {
                                    pass.block(format!("/messages/{i}/content/{j}"), block);
                                }
                            }
                            Some(block) => pass.block(format!("/messages/{i}/content"), block),
                            None => {}
                        }
                    }
                }
            }
            _ => {}
        }
        pass.removed
    }

    /// Apply the policy as a client does: also list the removals in the result's `_meta`,
    /// in place of anything the server put under that key.
    pub(crate) fn enforce(&self, method: &str, result: &mut Value) {
        if let Some(Value::Object(meta)) = result.get_mut("_meta") {
            meta.remove(REMOVED_META_KEY);
        }
        let removed = self.apply(method, result);
        if removed.is_empty() {
            return;
        }
        let Value::Object(result) = result else {
            return;
        };
        let meta = result
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Value::Object(meta) = meta {
            meta.insert(REMOVED_META_KEY.into(), json!(removed));
        }
    }

    fn allows(&self, mime: Option<&str>) -> bool {
        let Some(allowed) = &self.allowed else {
            return true;
        };
        let Some(mime) = mime else {
            return false;
        };
        let mime = essence(mime);
        allowed.iter().any(|pattern| {
            let pattern = essence(pattern);
            pattern == "*"
                || pattern == "*/*"
                || pattern == mime
                || pattern
                    .strip_suffix("/*")
                    .is_some_and(|kind| mime.split('/').next() == Some(kind))
        })
    }
}

/// A MIME type without its parameters, lower-cased.
fn essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The bytes base64 `data` decodes to (from its length: the data itself is not decoded).
fn decoded_len(data: &str) -> usize {
    let data = data.trim_end().trim_end_matches('=');
    data.len() * 3 / 4
}

/// One application of a policy to one result.
struct Pass<'a> {
    policy: &'a ContentPolicy,
    total: usize,
    removed: Vec<Removal>,
}

impl Pass<'_> {
    /// A content block (`ContentBlock`).
    fn block(&mut self, at: String, block: &mut Value) {
        let (mime, bytes) = match block.get("type").and_then(Value::as_str) {
            Some("text") => (
                Some(TEXT_MIME.to_owned()),
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .map_or(0, str::len),
            ),
            Some("image" | "audio") => (
                Some(
                    block
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or(UNNAMED_BINARY_MIME)
                        .to_owned(),
                ),
                block
                    .get("data")
                    .and_then(Value::as_str)
                    .map_or(0, decoded_len),
            ),
            Some("resource") => match block.get("resource") {
                Some(resource) => measure_contents(resource),
                None => (None, block.to_string().len()),
            },
            // A link is not content: nothing to measure, nothing fetched.
            Some("resource_link") => return,
            _ => (None, block.to_string().len()),
        };
        if let Some(text) = self.judge(at, mime, bytes) {
            *block = json!({"type": "text", "text": text});
        }
    }

    /// One `ResourceContents` of a read.
    fn contents(&mut self, at: String, contents: &mut Value) {
        let (mime, bytes) = measure_contents(contents);
        if let Some(text) = self.judge(at, mime, bytes) {
            let uri = contents.get("uri").cloned().unwrap_or(Value::Null);
            *contents = json!({"uri": uri, "mimeType": TEXT_MIME, "text": text});
        }
    }

    /// Keep the block (`None`), or record its removal and give the text replacing it.
    fn judge(&mut self, at: String, mime: Option<String>, bytes: usize) -> Option<String> {
        let policy = self.policy;
        let reason = if !policy.allows(mime.as_deref()) {
            RemovalReason::MimeNotAllowed
        } else if let Some(limit) = policy.max_block.filter(|limit| bytes > *limit) {
            RemovalReason::BlockTooLarge { limit }
        } else if let Some(limit) = policy
            .max_total
            .filter(|limit| self.total.saturating_add(bytes) > *limit)
        {
            RemovalReason::TotalTooLarge { limit }
        } else {
            self.total += bytes;
            return None;
        };
        let what = match &mime {
            Some(mime) => format!("{mime} content of {bytes} bytes"),
            None => format!("content of an unknown type, {bytes} bytes"),
        };
        let why = match reason {
            RemovalReason::BlockTooLarge { limit } => {
                format!("it is larger than the limit of {limit} bytes per block")
            }
            RemovalReason::TotalTooLarge { limit } => {
                format!("it would take the result past its limit of {limit} bytes")
            }
            RemovalReason::MimeNotAllowed => "its type is not allowed".to_owned(),
        };
        self.removed.push(Removal {
            at,
            mime_type: mime,
            bytes,
            reason,
        });
        Some(format!(
            "[removed by the client's content policy: {what}, because {why}]"
        ))
    }
}

/// The MIME type and size of a `ResourceContents` (text or blob).
fn measure_contents(contents: &Value) -> (Option<String>, usize) {
    let named = contents
        .get("mimeType")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(text) = contents.get("text").and_then(Value::as_str) {
        return (named.or_else(|| Some(TEXT_MIME.to_owned())), text.len());
    }
    if let Some(blob) = contents.get("blob").and_then(Value::as_str) {
        return (
            named.or_else(|| Some(UNNAMED_BINARY_MIME.to_owned())),
            decoded_len(blob),
        );
    }
    (None, contents.to_string().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: usize) -> Value {
        json!({"type": "text", "text": "t".repeat(bytes)})
    }

    fn image(mime: &str, bytes: usize) -> Value {
        // Three bytes are four base64 characters.
        json!({"type": "image", "mimeType": mime, "data": "AAAA".repeat(bytes / 3)})
    }

    fn tool_result(blocks: Vec<Value>) -> Value {
        json!({"content": blocks})
    }

    fn removed_text(result: &Value, at: &str) -> String {
        let block = result.pointer(at).cloned().unwrap_or_default();
        assert_eq!(block["type"], "text", "{block}");
        block["text"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn the_default_policy_changes_nothing() {
        let original = tool_result(vec![text(10_000), image("image/svg+xml", 3000)]);
        let mut result = original.clone();
        assert!(ContentPolicy::new()
            .apply("tools/call", &mut result)
            .is_empty());
        assert_eq!(result, original);
    }

    #[test]
    fn a_block_over_the_limit_is_replaced_by_a_text_saying_what_and_why() {
        let policy = ContentPolicy::new().max_block_bytes(100);
        let mut result = tool_result(vec![text(100), image("image/png", 300), text(101)]);
        let removed = policy.apply("tools/call", &mut result);
        assert_eq!(
            removed,
            vec![
                Removal {
                    at: "/content/1".into(),
                    mime_type: Some("image/png".into()),
                    bytes: 300,
                    reason: RemovalReason::BlockTooLarge { limit: 100 },
                },
                Removal {
                    at: "/content/2".into(),
                    mime_type: Some("text/plain".into()),
                    bytes: 101,
                    reason: RemovalReason::BlockTooLarge { limit: 100 },
                },
            ]
        );
        assert_eq!(result["content"][0], text(100));
        let said = removed_text(&result, "/content/1");
        assert!(
            said.contains("image/png") && said.contains("300 bytes"),
            "{said}"
        );
        assert!(said.contains("limit of 100 bytes per block"), "{said}");
    }

    #[test]
    fn blocks_past_the_total_are_removed_and_later_smaller_ones_still_fit() {
        let policy = ContentPolicy::new().max_total_bytes(100);
        let mut result = tool_result(vec![text(60), text(50), text(40), text(1)]);
        let removed = policy.apply("tools/call", &mut result);
        let at: Vec<_> = removed.iter().map(|r| r.at.as_str()).collect();
        assert_eq!(at, ["/content/1", "/content/3"]);
        assert_eq!(
            removed[0].reason,
            RemovalReason::TotalTooLarge { limit: 100 }
        );
        assert_eq!(result["content"][2], text(40));
        assert!(removed_text(&result, "/content/1").contains("limit of 100 bytes"));
    }

    #[test]
    fn mime_patterns_match_types_wildcards_case_and_parameters() {
        let policy = ContentPolicy::new().allow_mime(["image/*", "Application/JSON"]);
        let mut result = json!({"contents": [
            {"uri": "a://1", "mimeType": "image/png", "blob": "AAAA"},
            {"uri": "a://2", "mimeType": "application/json; charset=utf-8", "text": "{}"},
            {"uri": "a://3", "mimeType": "image/SVG+xml", "blob": "AAAA"},
            {"uri": "a://4", "text": "plain"},
            {"uri": "a://5", "mimeType": "imagery/png", "blob": "AAAA"},
            {"uri": "a://6", "blob": "AAAA"},
        ]});
        let removed = policy.apply("resources/read", &mut result);
        let refused: Vec<_> = removed
            .iter()
            .map(|r| (r.at.as_str(), r.mime_type.as_deref(), r.reason))
            .collect();
        assert_eq!(
            refused,
            [
                (
                    "/contents/3",
                    Some("text/plain"),
                    RemovalReason::MimeNotAllowed
                ),
                (
                    "/contents/4",
                    Some("imagery/png"),
                    RemovalReason::MimeNotAllowed
                ),
                (
                    "/contents/5",
                    Some("application/octet-stream"),
                    RemovalReason::MimeNotAllowed
                ),
            ]
        );
        // A refused resource keeps its URI and says why in text.
        assert_eq!(result["contents"][4]["uri"], "a://5");
        assert_eq!(result["contents"][4]["mimeType"], "text/plain");
        let said = result["contents"][4]["text"].as_str().unwrap_or_default();
        assert!(
            said.contains("imagery/png") && said.contains("not allowed"),
            "{said}"
        );

        for anything in ["*", "*/*"] {
            let policy = ContentPolicy::new().allow_mime([anything]);
            let mut result = tool_result(vec![image("x/y", 3), json!({"type": "hologram"})]);
            let removed = policy.apply("tools/call", &mut result);
            // Anything with a MIME type; an unknown block type has none.
            assert_eq!(removed.len(), 1, "{anything}");
            assert_eq!(removed[0].at, "/content/1");
            assert_eq!(removed[0].mime_type, None);
        }
    }

    #[test]
    fn sizes_are_decoded_bytes_and_text_bytes() {
        let policy = ContentPolicy::new().max_block_bytes(3);
        // "AAAA" is 3 bytes, "AAAAAA==" is 4.
        let mut result = tool_result(vec![
            json!({"type": "audio", "mimeType": "audio/wav", "data": "AAAA"}),
            json!({"type": "audio", "mimeType": "audio/wav", "data": "AAAAAA=="}),
            json!({"type": "resource", "resource": {"uri": "a://x", "text": "abc"}}),
            json!({"type": "resource", "resource": {"uri": "a://y", "text": "é é"}}),
        ]);
        let removed = policy.apply("tools/call", &mut result);
        let sizes: Vec<_> = removed.iter().map(|r| (r.at.as_str(), r.bytes)).collect();
        assert_eq!(sizes, [("/content/1", 4), ("/content/3", 5)]);
    }

    #[test]
    fn resource_links_pass_untouched() {
        let link = json!({"type": "resource_link", "uri": "https://evil.example/x", "name": "x", "mimeType": "application/x-sh"});
        let policy = ContentPolicy::new()
            .allow_mime(["text/plain"])
            .max_block_bytes(0);
        let mut result = tool_result(vec![link.clone()]);
        assert!(policy.apply("tools/call", &mut result).is_empty());
        assert_eq!(result["content"][0], link);
    }

    #[test]
    fn prompt_messages_are_filtered_in_place() {
        let policy = ContentPolicy::new().allow_mime(["text/plain"]);
        let mut result = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "user", "content": image("image/png", 3)},
            {"role": "user", "content": [text(1), image("image/png", 3)]},
        ]});
        let removed = policy.apply("prompts/get", &mut result);
        let at: Vec<_> = removed.iter().map(|r| r.at.as_str()).collect();
        assert_eq!(at, ["/messages/1/content", "/messages/2/content/1"]);
        assert_eq!(result["messages"][1]["role"], "user");
        assert!(removed_text(&result, "/messages/1/content").contains("image/png"));
    }

    #[test]
    fn other_methods_and_structured_content_are_left_alone() {
        let policy = ContentPolicy::new()
            .max_block_bytes(0)
            .allow_mime(["image/png"]);
        let mut list = json!({"tools": [{"name": "t", "description": "x".repeat(100)}]});
        let before = list.clone();
        assert!(policy.apply("tools/list", &mut list).is_empty());
        assert_eq!(list, before);
        let mut result = json!({"content": [], "structuredContent": {"big": "x".repeat(100)}});
        let before = result.clone();
        assert!(policy.apply("tools/call", &mut result).is_empty());
        assert_eq!(result, before);
    }

    #[test]
    fn a_client_lists_its_removals_in_meta_and_drops_the_servers_own() {
        let policy = ContentPolicy::new().allow_mime(["text/plain"]);
        // A server pretending nothing was removed, or something else was.
        let forged = json!([{"at": "/content/0", "mimeType": null, "bytes": 0, "reason": {"kind": "mimeNotAllowed"}}]);
        let mut result = json!({"content": [image("image/png", 3)], "_meta": {REMOVED_META_KEY: forged, "other": 1}});
        policy.enforce("tools/call", &mut result);
        let removed = Removal::in_result(&result);
        assert_eq!(removed.len(), 1);
        assert_eq!(removed[0].mime_type.as_deref(), Some("image/png"));
        assert_eq!(result["_meta"]["other"], 1);

        let mut clean = json!({"content": [text(1)], "_meta": {REMOVED_META_KEY: forged}});
        policy.enforce("tools/call", &mut clean);
        assert!(Removal::in_result(&clean).is_empty());
        assert!(clean["_meta"].get(REMOVED_META_KEY).is_none());
    }
}
