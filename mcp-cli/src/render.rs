//! Human-readable output: what `mcp` prints without `--json`. Pure functions from the
//! server's JSON to text, so the shapes are tested without a server. Every string from the
//! server goes through [`safe`](crate::safe) on its way out: one-line fields escape
//! newlines too, bodies (text results, resource text, prompt messages, instructions) keep
//! them.

use serde_json::Value;

use crate::safe;

/// What the server says about itself: name and version, protocol, capabilities and
/// instructions, from the JSON object `mcp info --json` prints.
pub fn info(info: &Value) -> String {
    let server = &info["serverInfo"];
    let mut out = String::new();
    put_line(
        &mut out,
        &format!(
            "{} {}",
            server["name"].as_str().unwrap_or("(unnamed)"),
            server["version"].as_str().unwrap_or("")
        ),
    );
    put_line(
        &mut out,
        &format!(
            "protocol: {} ({})",
            info["protocolVersion"].as_str().unwrap_or("?"),
            info["era"].as_str().unwrap_or("?")
        ),
    );
    put_line(
        &mut out,
        &format!("capabilities: {}", capability_names(&info["capabilities"])),
    );
    if let Some(instructions) = info["instructions"].as_str() {
        push_line(
            &mut out,
            &format!("instructions: {}", safe::text(instructions)),
        );
    }
    out
}

/// The capability names the server declared, e.g. `tools, resources, prompts`.
fn capability_names(capabilities: &Value) -> String {
    match capabilities.as_object() {
        Some(map) if !map.is_empty() => map.keys().cloned().collect::<Vec<_>>().join(", "),
        _ => "none".to_owned(),
    }
}

/// A list of tools: one line each with the name and the first line of its description,
/// then what its annotations claim, then its arguments indented (`*` marks the required
/// ones).
pub fn tools(tools: &[Value]) -> String {
    let mut out = String::new();
    for tool in tools {
        let name = str_of(tool, "name");
        put_line(&mut out, &with_summary(name, tool));
        if let Some(claims) = claims(tool) {
            put_line(&mut out, &format!("    server claims: {claims}"));
        }
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = schema["properties"].as_object() {
            for (arg, property) in properties {
                let mark = if required.contains(&arg.as_str()) {
                    "*"
                } else {
                    " "
                };
                let kind = kind_of(schema, property, 0);
                let description = summary(
                    property["description"]
                        .as_str()
                        .or_else(|| resolve(schema, property)["description"].as_str())
                        .unwrap_or(""),
                );
                let line = format!("    {mark}{arg}: {kind}");
                if description.is_empty() {
                    put_line(&mut out, &line);
                } else {
                    put_line(&mut out, &format!("{line}  {description}"));
                }
            }
        }
    }
    if tools.is_empty() {
        out.push_str("(no tools)\n");
    }
    out
}

/// A tool's annotations in words, e.g. `read-only, idempotent`, or `None` when it has
/// none. They are hints the server gives about its own tool, which nothing checks, so
/// they are shown as its claims.
fn claims(tool: &Value) -> Option<String> {
    const HINTS: [(&str, &str); 4] = [
        ("readOnlyHint", "read-only"),
        ("destructiveHint", "destructive"),
        ("idempotentHint", "idempotent"),
        ("openWorldHint", "open-world"),
    ];
    let annotations = &tool["annotations"];
    let mut said: Vec<String> = HINTS
        .iter()
        .filter_map(|(key, word)| match annotations[*key].as_bool()? {
            true => Some((*word).to_owned()),
            false => Some(format!("not {word}")),
        })
        .collect();
    // A title already shown on the tool's line would only repeat it.
    let shown = [tool["name"].as_str(), tool["title"].as_str()];
    if let Some(title) = annotations["title"]
        .as_str()
        .filter(|t| !shown.contains(&Some(*t)))
    {
        said.push(format!("title \"{title}\""));
    }
    (!said.is_empty()).then(|| said.join(", "))
}

/// Resources and resource templates, each with its URI (or template), name and MIME type.
pub fn resources(resources: &[Value], templates: &[Value]) -> String {
    let mut out = String::new();
    for resource in resources {
        let line = format!(
            "{}  {}",
            str_of(resource, "uri"),
            with_summary(str_of(resource, "name"), resource)
        );
        put_line(&mut out, &with_mime(line, resource));
    }
    for template in templates {
        let line = format!(
            "{}  {}",
            str_of(template, "uriTemplate"),
            with_summary(str_of(template, "name"), template)
        );
        put_line(
            &mut out,
            &format!("{}  (template)", with_mime(line, template)),
        );
    }
    if resources.is_empty() && templates.is_empty() {
        out.push_str("(no resources)\n");
    }
    out
}

/// Prompts, each with its arguments (`*` marks the required ones).
pub fn prompts(prompts: &[Value]) -> String {
    let mut out = String::new();
    for prompt in prompts {
        put_line(&mut out, &with_summary(str_of(prompt, "name"), prompt));
        for argument in prompt["arguments"].as_array().into_iter().flatten() {
            let mark = if argument["required"] == Value::Bool(true) {
                "*"
            } else {
                " "
            };
            let description = summary(argument["description"].as_str().unwrap_or(""));
            let name = str_of(argument, "name");
            let line = format!("    {mark}{name}");
            if description.is_empty() {
                put_line(&mut out, &line);
            } else {
                put_line(&mut out, &format!("{line}  {description}"));
            }
        }
    }
    if prompts.is_empty() {
        out.push_str("(no prompts)\n");
    }
    out
}

/// A tool's result: its text blocks as they are, other blocks described in one line each,
/// and the structured content (pretty JSON) when no block carries text.
pub fn call_result(result: &Value) -> String {
    let mut out = String::new();
    let mut texts = 0;
    for block in result["content"].as_array().into_iter().flatten() {
        if block["type"] == "text" {
            texts += 1;
        }
        push_line(&mut out, &content_block(block));
    }
    let structured = &result["structuredContent"];
    if texts == 0 && !structured.is_null() {
        // JSON escapes the C0 controls in strings, but not DEL, C1 or the bidi controls.
        push_line(&mut out, &safe::text(&pretty(structured)));
    }
    out
}

/// A resource's contents: text as it is, binary contents described.
pub fn read_result(result: &Value) -> String {
    let mut out = String::new();
    for contents in result["contents"].as_array().into_iter().flatten() {
        if let Some(text) = contents["text"].as_str() {
            push_line(&mut out, &safe::text(text));
        } else {
            put_line(&mut out, &binary("blob", contents, "blob"));
        }
    }
    out
}

/// A prompt's messages, each as `role: content`.
pub fn prompt_result(result: &Value) -> String {
    let mut out = String::new();
    if let Some(description) = result["description"].as_str() {
        put_line(&mut out, &format!("# {description}"));
    }
    for message in result["messages"].as_array().into_iter().flatten() {
        let role = safe::line(str_of(message, "role"));
        let content = content_block(&message["content"]);
        push_line(&mut out, &format!("{role}: {content}"));
    }
    out
}

/// One content block in a line (or, for text, as many lines as it has), escaped for the
/// terminal. Links are shown, never followed: what a server sends is data, not
/// instructions.
fn content_block(block: &Value) -> String {
    match block["type"].as_str() {
        Some("text") => safe::text(block["text"].as_str().unwrap_or("")).into_owned(),
        Some("image") => safe::line(&binary("image", block, "data")).into_owned(),
        Some("audio") => safe::line(&binary("audio", block, "data")).into_owned(),
        Some("resource_link") => {
            let link = format!(
                "[link {}{}]",
                str_of(block, "uri"),
                block["name"]
                    .as_str()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            );
            safe::line(&link).into_owned()
        }
        Some("resource") => {
            let resource = &block["resource"];
            let header = format!("[resource {}]", str_of(resource, "uri"));
            match resource["text"].as_str() {
                Some(text) => format!("{}\n{}", safe::line(&header), safe::text(text)),
                None => safe::line(&binary("resource", resource, "blob")).into_owned(),
            }
        }
        _ => safe::text(&pretty(block)).into_owned(),
    }
}

/// `[kind mime, N bytes]` for base64 data, without printing it.
fn binary(kind: &str, block: &Value, field: &str) -> String {
    let encoded = block[field].as_str().unwrap_or("");
    // Base64 carries 3 bytes in every 4 characters, less the padding.
    let padding = encoded.bytes().rev().take_while(|&b| b == b'=').count();
    let bytes = (encoded.len() / 4 * 3).saturating_sub(padding);
    let mime = block["mimeType"]
        .as_str()
        .unwrap_or("application/octet-stream");
    let uri = block["uri"]
        .as_str()
        .map(|u| format!(" {u}"))
        .unwrap_or_default();
    format!("[{kind}{uri} {mime}, {bytes} bytes]")
}

/// The schema a property's local `$ref` (`#/$defs/Name`, as schemars writes shared types)
/// points to, or the property itself.
fn resolve<'a>(schema: &'a Value, property: &'a Value) -> &'a Value {
    let Some(pointer) = property["$ref"].as_str().and_then(|r| r.strip_prefix('#')) else {
        return property;
    };
    schema.pointer(pointer).unwrap_or(property)
}

/// How deep `kind_of` follows `$ref`s and unions before it says `any`: a recursive type
/// is named by its first levels.
const KIND_DEPTH: usize = 8;

/// The JSON type of a schema property, with an enum's choices: read through local `$ref`s
/// (`#/$defs/Name`, as schemars writes shared types) against `root`, and through unions
/// (`anyOf`/`oneOf`, as schemars writes an `Option` or an enum whose variants have doc
/// comments), each branch's kind once.
fn kind_of(root: &Value, property: &Value, depth: usize) -> String {
    if depth > KIND_DEPTH {
        return "any".to_owned();
    }
    let property = resolve(root, property);
    if property.get("$ref").is_some() && depth < KIND_DEPTH {
        // A reference to a reference.
        return kind_of(root, property, depth + 1);
    }
    if let Some(value) = property.get("const") {
        return scalar(value);
    }
    if let Some(choices) = property["enum"].as_array() {
        let names: Vec<String> = choices.iter().map(scalar).collect();
        return names.join(" | ");
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(branches) = property[union].as_array() {
            let mut kinds: Vec<String> = Vec::new();
            for branch in branches {
                let kind = kind_of(root, branch, depth + 1);
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            if !kinds.is_empty() {
                return kinds.join(" | ");
            }
        }
    }
    if let Some([only]) = property["allOf"].as_array().map(Vec::as_slice) {
        return kind_of(root, only, depth + 1);
    }
    match &property["type"] {
        Value::String(kind) if kind == "array" => {
            let item = kind_of(root, &property["items"], depth + 1);
            if item.contains(" | ") {
                format!("({item})[]")
            } else {
                format!("{item}[]")
            }
        }
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds.iter().map(scalar).collect::<Vec<_>>().join(" | "),
        _ => "any".to_owned(),
    }
}

fn with_summary(name: &str, item: &Value) -> String {
    let title = item["title"].as_str().filter(|t| *t != name);
    let description = summary(item["description"].as_str().unwrap_or(""));
    match (title, description.is_empty()) {
        (Some(title), false) => format!("{name}  {title}: {description}"),
        (Some(title), true) => format!("{name}  {title}"),
        (None, false) => format!("{name}  {description}"),
        (None, true) => name.to_owned(),
    }
}

fn with_mime(line: String, item: &Value) -> String {
    match item["mimeType"].as_str() {
        Some(mime) => format!("{line}  [{mime}]"),
        None => line,
    }
}

/// The first sentence of a description, whole: a doc comment's lines are one paragraph
/// until a blank line, so its first line alone may stop mid-sentence. The sentence ends
/// at a period followed by a capital letter, or with the paragraph.
fn summary(text: &str) -> String {
    let paragraph = text
        .split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty())
        .unwrap_or("");
    let joined = paragraph
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let mut end = joined.len();
    for (at, _) in joined.match_indices(". ") {
        let next = joined.get(at + 2..).and_then(|rest| rest.chars().next());
        if next.is_some_and(char::is_uppercase) {
            end = at + 1;
            break;
        }
    }
    joined.get(..end).unwrap_or(&joined).to_owned()
}

fn str_of<'a>(item: &'a Value, key: &str) -> &'a str {
    item[key].as_str().unwrap_or("?")
}

/// A string without its quotes; anything else as JSON.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Indented JSON.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Writes one line made of server strings, escaped so that it stays one line.
fn put_line(out: &mut String, line: &str) {
    out.push_str(&safe::line(line));
    out.push('\n');
}

/// Writes text already made safe, ending it with a newline if it has none.
fn push_line(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::{assert_terminal_safe, HOSTILE as EVIL, HOSTILE_SHOWN as SHOWN};
    use serde_json::json;

    /// The rendering, checked to be safe for a terminal byte by byte.
    fn safe(rendered: String) -> String {
        assert_terminal_safe(rendered.as_bytes());
        rendered
    }

    #[test]
    fn a_tool_listing_shows_server_text_escaped_on_its_own_lines() {
        let listing = safe(tools(&[json!({
            "name": format!("add{EVIL}\nmcp: forged"),
            "title": format!("Add{EVIL}"),
            "description": format!("Adds{EVIL}.\n\nA second paragraph, not shown."),
            "annotations": {"title": format!("Sum{EVIL}"), "readOnlyHint": true},
            "inputSchema": {
                "type": "object",
                "properties": {
                    format!("x{EVIL}"): {"type": format!("int{EVIL}"), "description": format!("First{EVIL}\nmore")},
                    "unit": {"enum": [format!("m{EVIL}"), "ft\nforged"]}
                },
                "required": [format!("x{EVIL}")]
            }
        })]));
        assert_eq!(
            listing,
            format!(
                "add{SHOWN}\\nmcp: forged  Add{SHOWN}: Adds{SHOWN}.\n    \
                 server claims: read-only, title \"Sum{SHOWN}\"\n     \
                 unit: m{SHOWN} | ft\\nforged\n    \
                 *x{SHOWN}: int{SHOWN}  First{SHOWN} more\n"
            )
        );
    }

    #[test]
    fn annotations_are_shown_as_the_servers_claims() {
        let tool = |annotations: Value| json!({"name": "wipe", "title": "Wipe", "annotations": annotations, "inputSchema": {}});
        let all = tools(&[tool(json!({
            "openWorldHint": false,
            "idempotentHint": true,
            "destructiveHint": true,
            "readOnlyHint": false,
            "title": "Wipe"
        }))]);
        assert_eq!(
            all,
            "wipe  Wipe\n    server claims: not read-only, destructive, idempotent, not open-world\n"
        );
        // No hints (or hints that are not booleans, or only the title already shown): no line.
        assert_eq!(tools(&[tool(json!({}))]), "wipe  Wipe\n");
        assert_eq!(
            tools(&[tool(json!({"readOnlyHint": "yes", "title": "Wipe"}))]),
            "wipe  Wipe\n"
        );
        assert_eq!(
            tools(&[json!({"name": "wipe", "inputSchema": {}})]),
            "wipe\n"
        );
    }

    #[test]
    fn arguments_show_enums_behind_refs_and_unions_as_their_choices() {
        // As schemars writes them: a plain enum behind `$ref` with the doc comment beside
        // it, an `Option` of it, an enum whose variants have doc comments (`oneOf` of
        // `const`s), a list of them, and a type that refers to itself.
        let listing = tools(&[json!({
            "name": "convert",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "scale": {"$ref": "#/$defs/Scale", "description": "The scale."},
                    "maybe": {"anyOf": [{"$ref": "#/$defs/Scale"}, {"type": "null"}]},
                    "mode": {"$ref": "#/$defs/Mode"},
                    "modes": {"type": "array", "items": {"$ref": "#/$defs/Mode"}},
                    "tree": {"$ref": "#/$defs/Tree"}
                },
                "$defs": {
                    "Scale": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "Mode": {"oneOf": [
                        {"const": "fast", "description": "Quick."},
                        {"const": "exact", "description": "Slow."}
                    ]},
                    "Tree": {"$ref": "#/$defs/Tree"}
                }
            }
        })]);
        assert_eq!(
            listing,
            "convert\n     \
             maybe: celsius | fahrenheit | null\n     \
             mode: fast | exact\n     \
             modes: (fast | exact)[]\n     \
             scale: celsius | fahrenheit  The scale.\n     \
             tree: any\n"
        );
    }

    #[test]
    fn a_description_shows_its_whole_first_sentence() {
        // A doc comment's lines, joined by the macro with newlines.
        assert_eq!(
            summary("Lists the orders of a customer, newest\nfirst, 50 at a time. Use the\ncursor to go on."),
            "Lists the orders of a customer, newest first, 50 at a time."
        );
        assert_eq!(summary("e.g. a name. Then more."), "e.g. a name.");
        assert_eq!(
            summary("First paragraph\nends here\n\nSecond."),
            "First paragraph ends here"
        );
        assert_eq!(summary("\n\nLate start."), "Late start.");
        assert_eq!(summary(""), "");
    }

    #[test]
    fn resources_show_uris_names_and_mime_types_escaped() {
        let listing = safe(resources(
            &[json!({
                "uri": format!("notes://1{EVIL}"),
                "name": format!("note{EVIL}\nforged"),
                "mimeType": format!("text/plain{EVIL}")
            })],
            &[json!({
                "uriTemplate": format!("notes://{{n}}{EVIL}"),
                "name": "note",
                "description": format!("One{EVIL}")
            })],
        ));
        assert_eq!(
            listing,
            format!(
                "notes://1{SHOWN}  note{SHOWN}\\nforged  [text/plain{SHOWN}]\n\
                 notes://{{n}}{SHOWN}  note  One{SHOWN}  (template)\n"
            )
        );
    }

    #[test]
    fn prompts_show_names_and_arguments_escaped() {
        let listing = safe(prompts(&[json!({
            "name": format!("greet{EVIL}"),
            "description": format!("Greets{EVIL}"),
            "arguments": [{"name": format!("who{EVIL}\n    *forged"), "required": true,
                "description": format!("Whom{EVIL}")}]
        })]));
        assert_eq!(
            listing,
            format!("greet{SHOWN}  Greets{SHOWN}\n    *who{SHOWN}\\n    *forged  Whom{SHOWN}\n")
        );
    }

    #[test]
    fn a_result_keeps_its_lines_and_escapes_everything_else() {
        let result = json!({"content": [
            {"type": "text", "text": format!("5{EVIL}\nsecond line\r\n")},
            {"type": "image", "data": "aGVsbG8=", "mimeType": format!("image/png{EVIL}")},
            {"type": "resource_link", "uri": format!("notes://1{EVIL}"), "name": "n\nforged"},
            {"type": "resource", "resource": {"uri": format!("notes://2\n{EVIL}"), "text": format!("body{EVIL}\nend")}},
            {"type": "strange\u{9b}", "value": "\u{202e}"}
        ]});
        assert_eq!(
            safe(call_result(&result)),
            format!(
                "5{SHOWN}\nsecond line\\r\n\
                 [image image/png{SHOWN}, 5 bytes]\n\
                 [link notes://1{SHOWN} (n\\nforged)]\n\
                 [resource notes://2\\n{SHOWN}]\nbody{SHOWN}\nend\n\
                 {{\n  \"type\": \"strange\\u{{9b}}\",\n  \"value\": \"\\u{{202e}}\"\n}}\n"
            )
        );
        // JSON escapes ESC itself, but would write C1 and bidi controls raw.
        let structured = json!({"content": [], "structuredContent": {"k\u{9b}": EVIL}});
        assert_eq!(
            safe(call_result(&structured)),
            "{\n  \"k\\u{9b}\": \"a\\u001b[2Jb\\u001b]0;t\\u0007c\\u001b]8;;https://evil.example/\\u001b\\\\d\\u001b]8;;\\u001b\\\\e\\rf\\bg\\th\\x7fi\\u{9b}j\\u{202e}k\\u{2066}l\\u{feff}m\"\n}\n"
        );
    }

    #[test]
    fn a_resource_read_keeps_its_lines_and_escapes_everything_else() {
        let read = safe(read_result(&json!({"contents": [
            {"uri": "notes://1", "text": format!("milk{EVIL}\neggs")},
            {"uri": format!("notes://2{EVIL}"), "blob": "AAAA", "mimeType": format!("application/pdf\n{EVIL}")}
        ]})));
        assert_eq!(
            read,
            format!(
                "milk{SHOWN}\neggs\n[blob notes://2{SHOWN} application/pdf\\n{SHOWN}, 3 bytes]\n"
            )
        );
    }

    #[test]
    fn a_prompt_keeps_its_message_lines_and_escapes_everything_else() {
        let got = safe(prompt_result(&json!({
            "description": format!("A greeting{EVIL}\nforged"),
            "messages": [{"role": format!("user{EVIL}"),
                "content": {"type": "text", "text": format!("Say hello{EVIL}\nto Ada.")}}]
        })));
        assert_eq!(
            got,
            format!("# A greeting{SHOWN}\\nforged\nuser{SHOWN}: Say hello{SHOWN}\nto Ada.\n")
        );
    }

    #[test]
    fn server_info_is_escaped_and_its_instructions_keep_their_lines() {
        let got = safe(info(&json!({
            "serverInfo": {"name": format!("srv{EVIL}"), "version": "1\nprotocol: forged"},
            "era": "stateless",
            "protocolVersion": "2026-07-28",
            "capabilities": {format!("tools{EVIL}"): {}},
            "instructions": format!("Be kind{EVIL}\nto the ledger.")
        })));
        assert_eq!(
            got,
            format!(
                "srv{SHOWN} 1\\nprotocol: forged\nprotocol: 2026-07-28 (stateless)\n\
                 capabilities: tools{SHOWN}\ninstructions: Be kind{SHOWN}\nto the ledger.\n"
            )
        );
    }

    #[test]
    fn tools_show_arguments_with_the_required_ones_marked() {
        let listing = tools(&[json!({
            "name": "add",
            "description": "Adds two integers.\nMore detail.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The first addend."},
                    "b": {"type": ["integer", "null"]},
                    "to": {"enum": ["celsius", "fahrenheit"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "unit": {"$ref": "#/$defs/Unit", "description": "The unit."}
                },
                "$defs": {"Unit": {"type": "string", "enum": ["m", "ft"]}},
                "required": ["a"]
            }
        })]);
        assert_eq!(
            listing,
            "add  Adds two integers.\n    *a: integer  The first addend.\n     b: integer | null\n     tags: string[]\n     to: celsius | fahrenheit\n     unit: m | ft  The unit.\n"
        );
        assert_eq!(tools(&[]), "(no tools)\n");
    }

    #[test]
    fn a_title_other_than_the_name_is_shown() {
        let listing = tools(&[json!({"name": "convert", "title": "Convert", "inputSchema": {}})]);
        assert_eq!(listing, "convert  Convert\n");
    }

    #[test]
    fn results_print_text_and_describe_binary_blocks() {
        let result = json!({
            "content": [
                {"type": "text", "text": "5"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "notes://1", "name": "note"}
            ],
            "structuredContent": 5
        });
        assert_eq!(
            call_result(&result),
            "5\n[image image/png, 5 bytes]\n[link notes://1 (note)]\n"
        );
    }

    #[test]
    fn structured_content_is_printed_when_no_block_has_text() {
        let result = json!({"content": [], "structuredContent": {"value": 1}});
        assert_eq!(call_result(&result), "{\n  \"value\": 1\n}\n");
    }

    #[test]
    fn resources_prompts_and_their_results() {
        let listing = resources(
            &[json!({"uri": "notes://1", "name": "note", "mimeType": "text/plain"})],
            &[
                json!({"uriTemplate": "notes://{number}", "name": "note", "description": "One note."}),
            ],
        );
        assert_eq!(
            listing,
            "notes://1  note  [text/plain]\nnotes://{number}  note  One note.  (template)\n"
        );
        let read = read_result(&json!({"contents": [
            {"uri": "notes://1", "text": "milk"},
            {"uri": "notes://2", "blob": "AAAA", "mimeType": "application/pdf"}
        ]}));
        assert_eq!(read, "milk\n[blob notes://2 application/pdf, 3 bytes]\n");
        let listing = prompts(&[json!({"name": "greet", "arguments": [
            {"name": "who", "required": true, "description": "Whom to greet."},
            {"name": "tone"}
        ]})]);
        assert_eq!(listing, "greet\n    *who  Whom to greet.\n     tone\n");
        let got = prompt_result(&json!({"description": "A greeting", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Say hello to Ada."}}
        ]}));
        assert_eq!(got, "# A greeting\nuser: Say hello to Ada.\n");
    }
}
