//! Wire shapes of the handshake revisions: what each one's schema defines, and nothing
//! the stateless revision added (`resultType`, `ttlMs`, `cacheScope`, result `serverInfo`).

use serde_json::{json, Map, Value};

use crate::protocol::extensions;
use crate::protocol::{
    codes, CallToolResult, Content, Implementation, RpcError, StructuredContent,
};

/// The handshake revisions' "resource not found" code.
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;

/// Revisions compare as their dates.
fn before(version: &str, than: &str) -> bool {
    version < than
}

/// The server capabilities announced in `InitializeResult`.
pub(crate) fn capabilities(_version: &str, mut core: Value) -> Value {
    // The core announces what every handshake revision defines (tools, resources with
    // subscribe, prompts, completions, logging, each with listChanged where it applies),
    // plus the Tasks extension, which handshake-era sessions never get (S-377, S-379).
    // The MCP Apps extension was defined for `initialize` and stays.
    if let Value::Object(caps) = &mut core {
        let empty = match caps.get_mut("extensions") {
            Some(Value::Object(extensions)) => {
                extensions.remove(extensions::TASKS);
                extensions.is_empty()
            }
            _ => true,
        };
        if empty {
            caps.remove("extensions");
        }
    }
    core
}

/// `serverInfo`, limited to the fields the revision defines.
pub(crate) fn server_info(version: &str, info: &Implementation) -> Value {
    let mut value = serde_json::to_value(info).unwrap_or_else(|_| json!({}));
    if let Value::Object(map) = &mut value {
        if before(version, "2025-11-25") {
            map.remove("description");
            map.remove("websiteUrl");
            map.remove("icons");
        }
        if before(version, "2025-06-18") {
            map.remove("title");
        }
    }
    value
}

/// A complete result in the revision's shape.
pub(crate) fn result(
    version: &str,
    method: &str,
    mut body: Map<String, Value>,
) -> Map<String, Value> {
    match method {
        // Structured content is an object in every handshake revision, and did not exist
        // before 2025-06-18: the text content carries the same value.
        "tools/call" => {
            let keep = !before(version, "2025-06-18")
                && body.get("structuredContent").is_some_and(Value::is_object);
            if !keep {
                body.remove("structuredContent");
            }
            if before(version, "2025-06-18") {
                if let Some(Value::Array(content)) = body.get_mut("content") {
                    content.iter_mut().for_each(link_as_text);
                }
            }
        }
        "tools/list" => {
            if let Some(Value::Array(tools)) = body.get_mut("tools") {
                for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                    let object_schema = tool
                        .get("outputSchema")
                        .and_then(|s| s.get("type"))
                        .is_some_and(|t| t == "object");
                    if !object_schema || before(version, "2025-06-18") {
                        tool.remove("outputSchema");
                    }
                }
            }
        }
        _ => {}
    }
    body
}

/// A `tools/call` result in the revision's shape as the typed result, when the revision
/// takes it with no more than its structured content dropped (what [`result`] does to
/// the same result as a JSON map); given back when its blocks must be rewritten as text.
pub(crate) fn tool_result(
    version: &str,
    mut result: CallToolResult,
) -> Result<CallToolResult, CallToolResult> {
    let old = before(version, "2025-06-18");
    if old
        || !result
            .structured_content
            .as_ref()
            .is_some_and(StructuredContent::is_object)
    {
        result.structured_content = None;
    }
    if old
        && result
            .content
            .iter()
            .any(|block| matches!(block, Content::ResourceLink(_)))
    {
        return Err(result);
    }
    Ok(result)
}

/// A `resource_link` block (2025-06-18 on) as the text block an older client can show:
/// the URI it reads with `resources/read`, and what the link said about it.
fn link_as_text(block: &mut Value) {
    if block.get("type").and_then(Value::as_str) != Some("resource_link") {
        return;
    }
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or_default();
    let mut text = format!("Resource {} ({})", field("uri"), field("name"));
    if let Some(mime) = block.get("mimeType").and_then(Value::as_str) {
        text.push_str(&format!(", {mime}"));
    }
    if let Some(size) = block.get("size").and_then(Value::as_u64) {
        text.push_str(&format!(", {size} bytes"));
    }
    if let Some(description) = block.get("description").and_then(Value::as_str) {
        text.push_str(&format!(": {description}"));
    }
    *block = json!({"type": "text", "text": text});
}

/// An error in the revision's shape: "resource not found" has its own code there.
pub(crate) fn error(mut error: RpcError) -> RpcError {
    let not_found = error.code == codes::INVALID_PARAMS
        && error.message == "Resource not found"
        && error.data.as_ref().is_some_and(|d| d.get("uri").is_some());
    if not_found {
        error.code = RESOURCE_NOT_FOUND;
    }
    error
}

/// The params of a server-to-client request, as the revision defines them.
pub(crate) fn input_request(
    version: &str,
    method: &str,
    mut params: Value,
) -> Result<Value, RpcError> {
    if method != "elicitation/create" {
        return Ok(params);
    }
    let Some(map) = params.as_object_mut() else {
        return Ok(params);
    };
    let url_mode = map.get("mode").and_then(Value::as_str) == Some("url");
    if before(version, "2025-11-25") {
        if url_mode {
            // The client could not have declared it; say what is missing.
            return Err(RpcError::missing_capability(
                json!({"elicitation": {"url": {}}}),
            ));
        }
        // `mode` arrived with 2025-11-25; form is all there was before.
        map.remove("mode");
        if let Some(Value::Object(properties)) = map
            .get_mut("requestedSchema")
            .and_then(|schema| schema.get_mut("properties"))
        {
            for property in properties.values_mut() {
                titled_enum_as_enum_names(property);
            }
        }
    } else if url_mode {
        let id = crate::policy::seal::random_token(16)
            .map_err(|e| RpcError::internal(format!("Internal error: {e}")))?;
        map.insert("elicitationId".into(), Value::String(id));
    }
    Ok(params)
}

/// A titled single-select (`oneOf: [{const, title}]`, 2025-11-25) in the form 2025-06-18
/// knows: `enum` with `enumNames`.
fn titled_enum_as_enum_names(property: &mut Value) {
    let Some(map) = property.as_object_mut() else {
        return;
    };
    let Some(Value::Array(options)) = map.get("oneOf") else {
        return;
    };
    let pairs: Option<Vec<(Value, Value)>> = options
        .iter()
        .map(|o| Some((o.get("const")?.clone(), o.get("title")?.clone())))
        .collect();
    if let Some(pairs) = pairs {
        let (values, names): (Vec<Value>, Vec<Value>) = pairs.into_iter().unzip();
        map.remove("oneOf");
        map.insert("enum".into(), Value::Array(values));
        map.insert("enumNames".into(), Value::Array(names));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // S-377, S-379: no Tasks extension in the handshake era; the MCP Apps extension,
    // defined for `initialize`, is kept.
    #[test]
    fn initialize_keeps_the_ui_extension_and_drops_tasks() {
        let ui = json!({"mimeTypes": [extensions::UI_MIME]});
        let both = json!({"tools": {}, "extensions": {
            extensions::TASKS: {},
            extensions::UI: ui,
        }});
        assert_eq!(
            capabilities("2025-11-25", both),
            json!({"tools": {}, "extensions": {extensions::UI: ui}})
        );
        let tasks = json!({"tools": {}, "extensions": {extensions::TASKS: {}}});
        assert_eq!(capabilities("2025-06-18", tasks), json!({"tools": {}}));
    }

    #[test]
    fn structured_content_is_kept_only_as_an_object_from_2025_06_18() {
        let body = |sc: Value| {
            let mut m = Map::new();
            m.insert("content".into(), json!([]));
            m.insert("structuredContent".into(), sc);
            m
        };
        let kept = result("2025-11-25", "tools/call", body(json!({"sum": 5})));
        assert_eq!(kept["structuredContent"], json!({"sum": 5}));
        let scalar = result("2025-11-25", "tools/call", body(json!(5)));
        assert!(!scalar.contains_key("structuredContent"));
        let old = result("2025-03-26", "tools/call", body(json!({"sum": 5})));
        assert!(!old.contains_key("structuredContent"));
        // Resource links arrived with 2025-06-18: older clients get the link as text.
        let link = json!({"type": "resource_link", "uri": "artifact://abc", "name": "export",
            "mimeType": "text/csv", "size": 12, "description": "3 rows"});
        let mut m = Map::new();
        m.insert("content".into(), json!([link.clone()]));
        let old = result("2025-03-26", "tools/call", m.clone());
        assert_eq!(
            old["content"][0],
            json!({"type": "text", "text": "Resource artifact://abc (export), text/csv, 12 bytes: 3 rows"})
        );
        assert_eq!(result("2025-06-18", "tools/call", m)["content"][0], link);
    }

    #[test]
    fn output_schemas_that_are_not_objects_are_dropped() {
        let mut body = Map::new();
        body.insert(
            "tools".into(),
            json!([
                {"name": "a", "outputSchema": {"type": "object"}},
                {"name": "b", "outputSchema": {"type": "integer"}}
            ]),
        );
        let shaped = result("2025-06-18", "tools/list", body.clone());
        assert!(shaped["tools"][0].get("outputSchema").is_some());
        assert!(shaped["tools"][1].get("outputSchema").is_none());
        let old = result("2025-03-26", "tools/list", body);
        assert!(old["tools"][0].get("outputSchema").is_none());
    }

    #[test]
    fn resource_not_found_uses_the_handshake_code() {
        let e = error(RpcError::resource_not_found("x://1"));
        assert_eq!(e.code, -32002);
        assert_eq!(e.data, Some(json!({"uri": "x://1"})));
        let other = error(RpcError::invalid_params("Unknown tool: x"));
        assert_eq!(other.code, -32602);
    }

    #[test]
    fn elicitation_params_follow_the_revision() {
        let form = json!({"mode": "form", "message": "m", "requestedSchema": {}});
        let old = input_request("2025-06-18", "elicitation/create", form.clone()).unwrap();
        assert!(old.get("mode").is_none());
        let new = input_request("2025-11-25", "elicitation/create", form).unwrap();
        assert_eq!(new["mode"], "form");
        let url = json!({"mode": "url", "message": "m", "url": "https://x"});
        let with_id = input_request("2025-11-25", "elicitation/create", url.clone()).unwrap();
        assert!(with_id["elicitationId"]
            .as_str()
            .is_some_and(|s| s.len() > 10));
        let refused = input_request("2025-06-18", "elicitation/create", url).unwrap_err();
        assert_eq!(refused.code, -32021);
    }

    #[test]
    fn titled_options_become_enum_names_before_2025_11_25() {
        let form = json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {
            "speed": {"type": "string", "oneOf": [{"const": "std", "title": "Standard"}, {"const": "exp", "title": "Express"}]},
            "note": {"type": "string"}
        }}});
        let old = input_request("2025-06-18", "elicitation/create", form.clone()).unwrap();
        let speed = &old["requestedSchema"]["properties"]["speed"];
        assert_eq!(speed["enum"], json!(["std", "exp"]));
        assert_eq!(speed["enumNames"], json!(["Standard", "Express"]));
        assert!(speed.get("oneOf").is_none());
        assert_eq!(
            old["requestedSchema"]["properties"]["note"],
            json!({"type": "string"})
        );
        let new = input_request("2025-11-25", "elicitation/create", form).unwrap();
        assert!(new["requestedSchema"]["properties"]["speed"]["oneOf"].is_array());
    }
}
