//! Lossless spill-over: a tool result larger than the inline limit is stored whole as an
//! artifact, and the model gets its link, its size and how it begins instead.

use serde_json::json;

use crate::protocol::{CallToolResult, Content};
use crate::registry::spec::SPILLED_KEY;

use super::{human_size, Artifact, Artifacts};
use crate::core::RequestContext;

/// How much of a spilled body the model is shown.
const PREVIEW_CHARS: usize = 2048;
const PREVIEW_LINES: usize = 20;

/// Counts bytes written, and fails once there are more than `limit`, so measuring a large
/// result stops early.
struct Counter {
    count: usize,
    limit: usize,
}

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.count = self.count.saturating_add(buf.len());
        if self.count > self.limit {
            return Err(std::io::Error::other("over the limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether `result`, serialized, is larger than `limit` bytes. Most results are far
/// smaller: a bound on their size, counted without writing anything, settles it; only a
/// result near the limit is measured by serializing it.
fn result_size(result: &CallToolResult, limit: usize) -> bool {
    if bound(result, limit) <= limit {
        return false;
    }
    let mut counter = Counter { count: 0, limit };
    serde_json::to_writer(&mut counter, result).is_err() && counter.count > limit
}

/// At least the serialized size of `result`, or more than `limit` once it is sure to be
/// more: every character of a text block counted as the longest escape (`\u00XX`, 6
/// bytes), structured content at its size (it is held as JSON text), and a fixed
/// allowance for names and punctuation.
fn bound(result: &CallToolResult, limit: usize) -> usize {
    const FRAME: usize = 256;
    let mut total = FRAME;
    for block in &result.content {
        total = total.saturating_add(match block {
            Content::Text { text, .. } => text.len().saturating_mul(6).saturating_add(FRAME),
            // Rare in large results, and not worth a bound of their own.
            _ => return usize::MAX,
        });
        if total > limit {
            return total;
        }
    }
    if let Some(structured) = &result.structured_content {
        total = total.saturating_add(structured.json().len());
    }
    if result.meta.is_some() {
        return usize::MAX;
    }
    total
}

/// The body a spilled result is stored as: what it carries, nothing cut.
fn body_of(result: &CallToolResult) -> Result<(Vec<u8>, &'static str), serde_json::Error> {
    match (&result.structured_content, result.content.as_slice()) {
        // One text block and nothing else: the text itself.
        (None, [Content::Text { text, .. }]) => Ok((text.clone().into_bytes(), "text/plain")),
        // Structured output whose text block is its JSON (the usual shape): the JSON.
        (Some(structured), blocks) => {
            let json = structured.json();
            let redundant = match blocks {
                [] => true,
                [Content::Text { text, .. }] => text == json,
                _ => false,
            };
            if redundant {
                Ok((json.as_bytes().to_vec(), "application/json"))
            } else {
                Ok((whole(result)?, "application/json"))
            }
        }
        _ => Ok((whole(result)?, "application/json")),
    }
}

/// The result's content and structured content as one JSON object.
fn whole(result: &CallToolResult) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&json!({
        "content": result.content,
        "structuredContent": result.structured_content,
    }))
}

/// The first lines of a body, for the model to see what it is.
fn preview(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body.get(..PREVIEW_CHARS * 4).unwrap_or(body));
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i == PREVIEW_LINES {
            break;
        }
        for c in line.chars() {
            if out.chars().count() >= PREVIEW_CHARS {
                out.push('…');
                return out;
            }
            out.push(c);
        }
        out.push('\n');
    }
    out
}

/// `result` of `tool`, or, when it is larger than `limit`, the link to the artifact it is
/// stored whole as. `structured`: the tool has an output schema, which admits the spilled
/// shape.
pub(crate) async fn spill_over(
    artifacts: &Artifacts,
    ctx: &RequestContext,
    tool: &str,
    result: CallToolResult,
    limit: Option<usize>,
    structured: bool,
) -> CallToolResult {
    match limit {
        // Boxed: storing is rare, and would otherwise make every call's future larger.
        Some(limit) if result_size(&result, limit) => {
            Box::pin(spill(artifacts, ctx, tool, result, limit, structured)).await
        }
        _ => result,
    }
}

/// Store `result` of `tool` whole as an artifact and answer with its link. When storing
/// fails the result cannot be sent whole either: the model is told so, as a tool error.
async fn spill(
    artifacts: &Artifacts,
    ctx: &RequestContext,
    tool: &str,
    result: CallToolResult,
    limit: usize,
    structured: bool,
) -> CallToolResult {
    let (body, mime) = match body_of(&result) {
        Ok(body) => body,
        Err(e) => {
            return CallToolResult::error(format!("The tool's result could not be serialized: {e}"))
        }
    };
    let size = body.len() as u64;
    let shown = preview(&body);
    let artifact = Artifact::bytes(body)
        .mime(mime)
        .name(format!("{tool} result"))
        .summary(format!(
            "The whole result of `{tool}` ({}), stored because it is larger than this server sends inline ({})",
            human_size(size),
            human_size(limit as u64)
        ));
    let link = match artifacts.save(ctx, tool, artifact).await {
        Ok(link) => link,
        Err(problem) => {
            tracing::warn!(tool = %tool, "a large result could not be stored: {problem}");
            return CallToolResult::error(format!(
                "The result is {}, larger than this server sends inline ({}), and could not be stored for reading: {problem}",
                human_size(size),
                human_size(limit as u64)
            ));
        }
    };
    tracing::debug!(tool = %tool, size, uri = %link.uri, "result spilled to an artifact");
    let text = format!("{}\nIt begins:\n{shown}", link.describe());
    let structured_content = structured.then(|| json!({ SPILLED_KEY: link }).into());
    CallToolResult {
        content: vec![Content::text(text), link.content()],
        structured_content,
        is_error: result.is_error,
        meta: result.meta,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_never_below_the_size() {
        let results = [
            CallToolResult::success(vec![Content::text("\u{1}\"quoted\"\n")]),
            CallToolResult::structured(
                json!({"a": [1, -2.5e300, null, true, "\u{7f}é"], "b": {"c": ""}}),
            ),
            CallToolResult::error("no"),
        ];
        for result in results {
            let size = serde_json::to_vec(&result).unwrap().len();
            assert!(bound(&result, usize::MAX) >= size, "{result:?}");
            assert!(!result_size(&result, size));
            assert!(result_size(&result, size - 1));
        }
    }

    #[test]
    fn measuring_stops_past_the_limit() {
        let small = CallToolResult::success(vec![Content::text("hi")]);
        assert!(!result_size(&small, 1024));
        let large = CallToolResult::success(vec![Content::text("x".repeat(5000))]);
        assert!(result_size(&large, 1024));
        assert!(!result_size(&large, 10_000));
    }

    #[test]
    fn the_stored_body_is_the_payload_uncut() {
        let text = CallToolResult::success(vec![Content::text("a\nb")]);
        assert_eq!(body_of(&text).unwrap(), (b"a\nb".to_vec(), "text/plain"));
        let structured = CallToolResult::structured(json!({"rows": [1, 2]}));
        assert_eq!(
            body_of(&structured).unwrap(),
            (br#"{"rows":[1,2]}"#.to_vec(), "application/json")
        );
        let mixed = CallToolResult {
            content: vec![Content::text("summary"), Content::text("more")],
            ..Default::default()
        };
        let (body, mime) = body_of(&mixed).unwrap();
        assert_eq!(mime, "application/json");
        let back: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(back["content"][1]["text"], "more");
    }

    #[test]
    fn previews_are_short() {
        let body = (0..100).map(|i| format!("line {i}\n")).collect::<String>();
        let shown = preview(body.as_bytes());
        assert_eq!(shown.lines().count(), PREVIEW_LINES);
        assert!(preview("y".repeat(10_000).as_bytes()).chars().count() <= PREVIEW_CHARS + 2);
    }
}
