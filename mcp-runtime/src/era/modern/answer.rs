//! The 2026-07-28 response: [`Answer`] keeps a result as the core made it and writes it
//! straight to the wire with the members this revision adds (`resultType`, cache hints,
//! `serverInfo`), without building a JSON tree of the whole response.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

#[cfg(any(test, feature = "testing"))]
use crate::core::Reply;
use crate::protocol::cache::CacheHints;
use crate::protocol::jsonrpc::error_response;
#[cfg(any(test, feature = "testing"))]
use crate::protocol::jsonrpc::result_response;
use crate::protocol::{meta, CallToolResult, RequestId, RpcError};
use crate::registry::ListPage;

/// A response ready for a transport, with the HTTP status the specification asks for.
///
/// A result is kept as the core made it and serialized straight to the wire with its
/// 2026-07-28 members (`resultType`, cache hints, `serverInfo`) added on the way: no JSON
/// tree of the whole response is built on the common path.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// HTTP status (200, or 400/403/404 for the errors the specification maps).
    pub status: u16,
    body: Body,
    /// The scopes a refusal for want of them names (its 403's challenge).
    required_scopes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Body {
    /// A response built as a JSON tree (errors).
    Tree(Value),
    /// A result.
    Result(Box<Completed>),
}

impl Answer {
    /// An error answer.
    pub fn error(id: Option<&RequestId>, error: &RpcError, status: u16) -> Self {
        Answer {
            status,
            body: Body::Tree(error_response(id, error)),
            required_scopes: Vec::new(),
        }
    }

    /// A refusal for want of `scopes` (HTTP 403).
    pub(crate) fn refused(id: &RequestId, error: &RpcError, scopes: Vec<String>) -> Self {
        Answer {
            status: 403,
            body: Body::Tree(error_response(Some(id), error)),
            required_scopes: scopes,
        }
    }

    /// The scopes this answer refuses its caller for want of (empty for any other
    /// answer): an HTTP transport names them in its `insufficient_scope` challenge.
    pub(crate) fn challenge_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    /// The JSON-RPC response as it goes on the wire.
    pub fn to_bytes(&self) -> Vec<u8> {
        let written = match &self.body {
            Body::Tree(message) => serde_json::to_vec(message),
            Body::Result(completed) => {
                let mut out = Vec::with_capacity(256);
                completed.write(&mut out).map(|()| out)
            }
        };
        written.unwrap_or_else(|e| {
            // Only a map with non-string keys fails here, and a `Map` has none.
            tracing::error!("could not serialize a response: {e}");
            Vec::new()
        })
    }

    /// The JSON-RPC response as a JSON tree (for the in-process test client).
    #[cfg(any(test, feature = "testing"))]
    pub fn into_message(self) -> Value {
        match self.body {
            Body::Tree(message) => message,
            Body::Result(completed) => completed.into_value(),
        }
    }

    /// The `error` member, when this answers with an error.
    pub fn error_member(&self) -> Option<&Value> {
        match &self.body {
            Body::Tree(message) => message.get("error"),
            Body::Result(_) => None,
        }
    }

    pub(super) fn result(
        server_info: &Arc<RawValue>,
        id: RequestId,
        result_type: &'static str,
        body: Map<String, Value>,
        cache: Option<CacheHints>,
    ) -> Self {
        Answer {
            status: 200,
            body: Body::Result(Box::new(Completed {
                id,
                result_type,
                body,
                page: None,
                tool: None,
                cache,
                server_info: server_info.clone(),
            })),
            required_scopes: Vec::new(),
        }
    }

    /// A list page: its entries are written from the text made at start.
    pub(super) fn page(
        server_info: &Arc<RawValue>,
        id: RequestId,
        (field, page): (&'static str, Arc<ListPage>),
        next_cursor: Option<String>,
        cache: CacheHints,
    ) -> Self {
        let mut body = Map::new();
        if let Some(next) = next_cursor {
            body.insert("nextCursor".into(), Value::String(next));
        }
        Answer {
            status: 200,
            body: Body::Result(Box::new(Completed {
                id,
                result_type: "complete",
                body,
                page: Some((field, page)),
                tool: None,
                cache: Some(cache),
                server_info: server_info.clone(),
            })),
            required_scopes: Vec::new(),
        }
    }

    /// A `tools/call` result: written from the handler's result, not through a JSON tree.
    pub(super) fn tool(server_info: &Arc<RawValue>, id: RequestId, result: CallToolResult) -> Self {
        Answer {
            status: 200,
            body: Body::Result(Box::new(Completed {
                id,
                result_type: "complete",
                body: Map::new(),
                page: None,
                tool: Some(result),
                cache: None,
                server_info: server_info.clone(),
            })),
            required_scopes: Vec::new(),
        }
    }
}

/// A result response: the core's result members and what the 2026-07-28 revision adds.
#[derive(Debug, Clone)]
struct Completed {
    id: RequestId,
    /// `resultType`: complete, input_required or task.
    result_type: &'static str,
    /// The core's result members; a `_meta` here is the handler's.
    body: Map<String, Value>,
    /// A list page's entries and the member they go in, besides `body`.
    page: Option<(&'static str, Arc<ListPage>)>,
    /// A tool's result, whose members (and `_meta`) stand in for `body`'s.
    tool: Option<CallToolResult>,
    /// `ttlMs` and `cacheScope`, for cacheable results.
    cache: Option<CacheHints>,
    /// The server's name and version, serialized once at start.
    server_info: Arc<RawValue>,
}

impl Completed {
    /// The response as a JSON tree, the result's members moved in (what `Serialize` writes).
    #[cfg(any(test, feature = "testing"))]
    fn into_value(self) -> Value {
        let Completed {
            id,
            result_type,
            mut body,
            page,
            tool,
            cache,
            server_info,
        } = self;
        if let Some((field, page)) = page {
            body.insert(field.into(), page.items().clone());
        }
        if let Some(tool) = tool {
            match Reply::tool_body(tool) {
                Ok(members) => body.extend(members),
                Err(error) => return error_response(Some(&id), &error),
            }
        }
        body.insert("resultType".into(), Value::String(result_type.into()));
        if let Some(cache) = cache {
            body.insert("ttlMs".into(), Value::from(cache.ttl_ms()));
            body.insert(
                "cacheScope".into(),
                serde_json::to_value(cache.scope).unwrap_or(Value::Null),
            );
        }
        let info = serde_json::from_str(server_info.get()).unwrap_or(Value::Null);
        let meta = body
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        // A handler's `_meta` that is no object is sent as it is.
        if let Value::Object(meta) = meta {
            meta.insert(meta::SERVER_INFO.into(), info);
        }
        result_response(&id, Value::Object(body))
    }
}

impl PartialEq for Completed {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.result_type == other.result_type
            && self.body == other.body
            && self.page == other.page
            && self.tool == other.tool
            && self.cache == other.cache
            && self.server_info.get() == other.server_info.get()
    }
}

impl Completed {
    /// The response onto `out`. The envelope's and this revision's member names are
    /// constants written as they are; only the id, the core's members and the result's
    /// values go through their `Serialize`. That saves escaping and copying a dozen fixed
    /// strings piece by piece on every call.
    fn write(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut *out, &self.id)?;
        out.extend_from_slice(br#","result":{"#);
        let cache = self.cache.as_ref();
        // Members this revision sets win over the core's members of the same name.
        let set_here = |key: &str| match key {
            "resultType" | "_meta" => true,
            "ttlMs" | "cacheScope" => cache.is_some(),
            _ => false,
        };
        if let Some((field, page)) = &self.page {
            serde_json::to_writer(&mut *out, field)?;
            out.push(b':');
            serde_json::to_writer(&mut *out, &**page)?;
            out.push(b',');
        }
        if let Some(tool) = &self.tool {
            // The members `CallToolResult`'s own `Serialize` writes, `_meta` aside.
            out.extend_from_slice(br#""content":"#);
            serde_json::to_writer(&mut *out, &tool.content)?;
            out.push(b',');
            if let Some(structured) = &tool.structured_content {
                out.extend_from_slice(br#""structuredContent":"#);
                out.extend_from_slice(structured.json().as_bytes());
                out.push(b',');
            }
            if tool.is_error {
                out.extend_from_slice(br#""isError":true,"#);
            }
        }
        for (key, value) in self.body.iter().filter(|(key, _)| !set_here(key)) {
            serde_json::to_writer(&mut *out, key)?;
            out.push(b':');
            serde_json::to_writer(&mut *out, value)?;
            out.push(b',');
        }
        out.extend_from_slice(br#""resultType":"#);
        serde_json::to_writer(&mut *out, self.result_type)?;
        if let Some(cache) = cache {
            out.extend_from_slice(br#","ttlMs":"#);
            serde_json::to_writer(&mut *out, &cache.ttl_ms())?;
            out.extend_from_slice(br#","cacheScope":"#);
            serde_json::to_writer(&mut *out, &cache.scope)?;
        }
        out.extend_from_slice(br#","_meta":"#);
        let handler_meta = match &self.tool {
            Some(tool) => tool.meta.as_ref(),
            None => match self.body.get("_meta") {
                Some(Value::Object(meta)) => Some(meta),
                // A handler's `_meta` that is no object is sent as it is.
                Some(other) => {
                    serde_json::to_writer(&mut *out, other)?;
                    out.extend_from_slice(b"}}");
                    return Ok(());
                }
                None => None,
            },
        };
        // `_meta["io.modelcontextprotocol/serverInfo"]` after any `_meta` the handler set.
        out.push(b'{');
        for (key, value) in handler_meta.into_iter().flatten() {
            if key != meta::SERVER_INFO {
                serde_json::to_writer(&mut *out, key)?;
                out.push(b':');
                serde_json::to_writer(&mut *out, value)?;
                out.push(b',');
            }
        }
        // The key needs no escaping.
        out.push(b'"');
        out.extend_from_slice(meta::SERVER_INFO.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(self.server_info.get().as_bytes());
        out.extend_from_slice(b"}}}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::protocol::cache::CacheScope;
    use crate::protocol::codes;

    fn info() -> Arc<RawValue> {
        Arc::from(serde_json::value::to_raw_value(&json!({"name": "s", "version": "1"})).unwrap())
    }

    fn body(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// The bytes a transport sends and the tree the test client returns are one message.
    fn both(answer: Answer) -> Value {
        let sent: Value = serde_json::from_slice(&answer.to_bytes()).unwrap();
        assert_eq!(sent, answer.clone().into_message());
        sent
    }

    #[test]
    fn a_result_carries_its_type_cache_hints_and_server_info() {
        let cache = CacheHints {
            ttl: Duration::from_millis(1500),
            scope: CacheScope::Public,
        };
        let id = RequestId::Number(7.into());
        let answer = Answer::result(
            &info(),
            id,
            "complete",
            body(json!({"tools": []})),
            Some(cache),
        );
        assert_eq!(answer.status, 200);
        assert_eq!(answer.error_member(), None);
        // S-005, S-237, S-238: the result carries its resultType, ttlMs in whole
        // milliseconds and cacheScope "public"; S-037: under the reserved prefix only the
        // specification's own serverInfo.
        assert_eq!(
            both(answer),
            json!({"jsonrpc": "2.0", "id": 7, "result": {
                "tools": [], "resultType": "complete", "ttlMs": 1500, "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}
            }})
        );
    }

    #[test]
    fn members_this_revision_sets_win_over_the_bodys() {
        // A handler's own _meta entries stay beside serverInfo; a stale serverInfo, a
        // resultType or cache hints in the body give way to the server's (S-037: a reserved
        // key holds only what the specification says it holds).
        let members = json!({
            "content": [], "resultType": "bogus", "ttlMs": 1, "cacheScope": "nope",
            "_meta": {"app/trace": "t-1", "io.modelcontextprotocol/serverInfo": "stale"}
        });
        let cache = CacheHints {
            ttl: Duration::from_secs(2),
            scope: CacheScope::Private,
        };
        let id = RequestId::String("a".into());
        let answer = Answer::result(&info(), id, "complete", body(members), Some(cache));
        assert_eq!(
            both(answer)["result"],
            json!({
                "content": [], "resultType": "complete", "ttlMs": 2000, "cacheScope": "private",
                "_meta": {"app/trace": "t-1",
                          "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}
            })
        );
        // Without cache hints, the body's own ttlMs is the body's business.
        let answer = Answer::result(
            &info(),
            RequestId::Number(1.into()),
            "task",
            body(json!({"taskId": "x", "ttlMs": 60000})),
            None,
        );
        let sent = both(answer);
        assert_eq!(sent["result"]["ttlMs"], 60000);
        assert_eq!(sent["result"]["resultType"], "task");
    }

    #[test]
    fn a_list_page_is_written_from_its_text_and_reads_as_its_tree() {
        let entries = vec![
            json!({"name": "add", "inputSchema": {"type": "object", "properties": {}}}),
            json!({"name": "z\u{e9}ro \"quoted\"", "inputSchema": {"type": "object"}}),
        ];
        let page = Arc::new(ListPage::new(entries.clone()));
        assert_eq!(
            page.json().map(RawValue::get),
            Some(serde_json::to_string(&entries).unwrap().as_str())
        );
        let cache = CacheHints {
            ttl: Duration::from_secs(60),
            scope: CacheScope::Public,
        };
        let expected = |next: Option<&str>| {
            let mut result = json!({
                "tools": entries, "resultType": "complete", "ttlMs": 60000,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}
            });
            if let Some(next) = next {
                result["nextCursor"] = json!(next);
            }
            json!({"jsonrpc": "2.0", "id": 4, "result": result})
        };
        for next in [None, Some("c-2")] {
            let answer = Answer::page(
                &info(),
                RequestId::Number(4.into()),
                ("tools", page.clone()),
                next.map(str::to_owned),
                cache,
            );
            assert_eq!(both(answer), expected(next));
        }
    }

    #[test]
    fn a_tool_result_is_written_as_its_members_would_be() {
        use crate::protocol::{Annotations, Content};
        let mut meta = Map::new();
        meta.insert("app/trace".into(), json!("t-9"));
        meta.insert(meta::SERVER_INFO.into(), json!("stale"));
        let results = [
            CallToolResult::success(vec![Content::text("5")]),
            CallToolResult::structured(json!({"sum": 5})),
            CallToolResult::error("a and b must be integers"),
            CallToolResult {
                content: vec![
                    Content::text("hi").with_annotations(Annotations {
                        priority: Some(0.5),
                        ..Default::default()
                    }),
                    Content::image([1, 2, 3], "image/png"),
                    Content::link("file:///r.txt", "r"),
                ],
                structured_content: Some(json!([1, "two"]).into()),
                is_error: true,
                meta: Some(meta),
            },
            CallToolResult::default(),
        ];
        for result in results {
            let id = RequestId::Number(9.into());
            let members = Reply::tool_body(result.clone()).unwrap();
            let expected = both(Answer::result(
                &info(),
                id.clone(),
                "complete",
                members,
                None,
            ));
            let answer = Answer::tool(&info(), id, result.clone());
            assert_eq!(both(answer), expected, "{result:?}");
        }
    }

    #[test]
    fn a_meta_that_is_no_object_is_sent_as_it_is() {
        let id = RequestId::Number(2.into());
        let answer = Answer::result(&info(), id, "complete", body(json!({"_meta": 5})), None);
        assert_eq!(both(answer)["result"]["_meta"], 5);
    }

    #[test]
    fn an_error_answer_exposes_its_error_member() {
        let error = RpcError::invalid_params("bad").with_data(json!({"retryAfterMs": 10}));
        let answer = Answer::error(Some(&RequestId::Number(3.into())), &error, 429);
        assert_eq!(
            answer
                .error_member()
                .and_then(|e| e.pointer("/data/retryAfterMs")),
            Some(&json!(10))
        );
        let sent = both(answer);
        assert_eq!(sent["error"]["code"], codes::INVALID_PARAMS);
        assert_eq!(sent["id"], 3);
    }
}
