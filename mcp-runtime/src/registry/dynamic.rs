//! Tools, prompts and resources known only at run time (`Server::tool_from_json`,
//! `Server::prompt_from_json`, `Server::resource_from_json`): described by JSON, handled
//! by a closure, served like the `#[tool]`, `#[prompt]` and `#[resource]` functions.
//!
//! The catalog, authorization hooks and list filters all work on `&'static ToolDef` (and
//! `PromptDef`). A dynamic tool therefore gets one too, made once when it is added and kept for the rest of
//! the process (as a `#[tool]`'s is): its strings and hints come from the JSON, its
//! function pointers describe nothing (no extractors, no generated schema). What the
//! pointers would say, the tool carries beside its definition: the JSON schemas as given and
//! the handler, which the catalog uses in their place.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::core::RequestContext;
use crate::protocol::cache::CacheScope;
use crate::protocol::{Prompt, Resource, ResourceTemplate, RpcError, Tool};

use super::tool::ToolFuture;
use super::uri::Piece;
use super::{
    BuildError, ErrorDetail, InlineLimit, PromptDef, PromptFuture, ReadFuture, ResourceDef,
    TaskSupport, ToolDef,
};

/// The handler of a dynamic tool.
pub(crate) type DynamicCall =
    Arc<dyn Fn(RequestContext, Map<String, Value>) -> ToolFuture + Send + Sync>;

/// The handler of a dynamic prompt.
pub(crate) type DynamicGet =
    Arc<dyn Fn(RequestContext, Map<String, Value>) -> PromptFuture + Send + Sync>;

/// Where duplicate-name errors say a dynamic tool comes from.
const DYNAMIC_PLACE: &str = "Server::tool_from_json";

/// Where duplicate-name errors say a dynamic prompt comes from.
const DYNAMIC_PROMPT_PLACE: &str = "Server::prompt_from_json";

/// What errors call an item before its JSON is read: the first of `keys` it has, when that
/// is a string, else `missing`.
fn shown(description: &Value, keys: &[&str], missing: &str) -> String {
    keys.iter()
        .find_map(|key| description.get(*key))
        .and_then(Value::as_str)
        .unwrap_or(missing)
        .to_owned()
}

/// A string kept for the rest of the process, as a definition's strings are.
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// An item added at run time: its definition (made once, kept for the rest of the
/// process), its list entry as given, and its handler.
pub(crate) struct Added<D: 'static, E, H> {
    pub(crate) def: &'static D,
    /// The list entry (`tools/list`, `prompts/list`, `resources/list` or
    /// `resources/templates/list`), from the JSON as given.
    pub(crate) entry: E,
    pub(crate) handler: H,
}

/// A prompt added at run time.
pub(crate) type DynamicPrompt = Added<PromptDef, Prompt, DynamicGet>;

impl DynamicPrompt {
    /// Read `description` (a `Prompt` object of `prompts/list`).
    pub(crate) fn new(description: Value, get: DynamicGet) -> Result<DynamicPrompt, BuildError> {
        let item = format!("prompt `{}`", shown(&description, &["name"], "(no name)"));
        let prompt: Prompt =
            serde_json::from_value(description.clone()).map_err(|e| BuildError::InvalidItem {
                item: item.clone(),
                problems: vec![format!(
                    "its JSON is not a prompt (name, optional title, description, arguments): {e}"
                )],
            })?;
        if prompt.name.is_empty() {
            return Err(BuildError::InvalidItem {
                item,
                problems: vec!["a prompt needs a name".to_owned()],
            });
        }
        let def: &'static PromptDef = Box::leak(Box::new(PromptDef {
            name: leak(&prompt.name),
            title: prompt.title.as_deref().map(leak),
            description: prompt.description.as_deref().map(leak),
            scopes: &[],
            tags: &[],
            module_path: "",
            file: DYNAMIC_PROMPT_PLACE,
            line: 0,
            params: |_| {},
            get: not_by_pointer,
            completions: &[],
        }));
        Ok(Added {
            def,
            entry: prompt,
            handler: get,
        })
    }
}

/// A tool added at run time.
pub(crate) type DynamicTool = Added<ToolDef, Tool, DynamicCall>;

/// What the framework does around a dynamic tool's calls that its JSON cannot say: the
/// handling a `#[tool]`'s attributes ask for. None of it by default
/// (`Server::tool_from_json`); the OpenAPI serving mode sets it from the document.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Handling {
    /// A confirmation (`requestState`) is used once, as a `destructive` `#[tool]`'s is.
    pub(crate) once: bool,
    /// `idempotencyKey` is the server's: taken out of the arguments and run at most once
    /// per key, as `#[tool(idempotency)]` does. The entry's input schema must publish it.
    pub(crate) idempotency: bool,
    /// OAuth scopes a caller needs, checked as a `#[tool(scopes(..))]`'s are.
    pub(crate) scopes: &'static [&'static str],
    /// Labels to enable, disable, show and search the tool by, as a `#[tool(tags(..))]`'s.
    pub(crate) tags: &'static [&'static str],
}

impl DynamicTool {
    /// Read `description` (a `Tool` object of `tools/list`) and check what the catalog
    /// does not: the name's characters and the input schema's type.
    pub(crate) fn new(description: Value, call: DynamicCall) -> Result<DynamicTool, BuildError> {
        Self::handled(description, call, Handling::default())
    }

    /// As [`DynamicTool::new`], with the framework's `handling` of its calls.
    pub(crate) fn handled(
        description: Value,
        call: DynamicCall,
        handling: Handling,
    ) -> Result<DynamicTool, BuildError> {
        let shown = shown(&description, &["name"], "(no name)");
        let tool: Tool = serde_json::from_value(description).map_err(|e| BuildError::InvalidTool {
            name: shown.clone(),
            problems: vec![format!(
                "its JSON is not a tool (name, inputSchema, optional title, description, outputSchema, annotations): {e}"
            )],
        })?;
        let mut problems = Vec::new();
        if !valid_name(&tool.name) {
            problems.push(
                "a tool name is 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`".to_owned(),
            );
        }
        if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            problems.push("its inputSchema must be a JSON Schema of `type: \"object\"`".to_owned());
        }
        // 2026-07-28 takes any JSON Schema as a tool's output (a tool may return `5`); the
        // handshake era's listing drops one that is not of `type: "object"`, as it does for
        // the server's own tools.
        if let Some(output) = &tool.output_schema {
            if !output.is_object() && !output.is_boolean() {
                problems.push("its outputSchema must be a JSON Schema".to_owned());
            }
        }
        // The MCP Apps members, read so that an app-only tool is kept from clients without
        // the extension as a `#[tool(visibility = app)]` is.
        let ui_meta = tool.meta.as_ref().and_then(|meta| meta.get("ui"));
        let ui = match ui_meta.and_then(|ui| ui.get("resourceUri")) {
            None => None,
            Some(Value::String(uri)) if uri.starts_with(super::view::SCHEME) => Some(leak(uri)),
            Some(_) => {
                problems.push(format!(
                    "its _meta.ui.resourceUri must be a string starting with `{}`",
                    super::view::SCHEME
                ));
                None
            }
        };
        let visibility = match ui_meta.and_then(|ui| ui.get("visibility")) {
            None => super::view::Visibility::ModelAndApp,
            Some(list) => super::view::Visibility::from_wire(list).unwrap_or_else(|| {
                problems.push(
                    "its _meta.ui.visibility must list \"model\", \"app\" or both".to_owned(),
                );
                super::view::Visibility::ModelAndApp
            }),
        };
        // Published as given: its `_meta` keys follow the protocol's grammar, outside the
        // prefixes it reserves.
        if let Err(problem) = crate::protocol::checks::meta_keys(tool.meta.as_ref()) {
            problems.push(problem);
        }
        if !problems.is_empty() {
            return Err(BuildError::InvalidTool {
                name: tool.name,
                problems,
            });
        }
        let hints = &tool.annotations;
        let def: &'static ToolDef = Box::leak(Box::new(ToolDef {
            name: leak(&tool.name),
            title: tool.title.as_deref().map(leak),
            description: leak(tool.description.as_deref().unwrap_or_default()),
            read_only: hints.read_only_hint,
            destructive: hints.destructive_hint,
            idempotent: hints.idempotent_hint,
            open_world: hints.open_world_hint,
            task: TaskSupport::Forbidden,
            once: handling.once,
            idempotency: handling.idempotency,
            // Results go back whole: the given output schema says nothing of artifacts.
            inline_limit: InlineLimit::Unlimited,
            scopes: handling.scopes,
            tags: handling.tags,
            version: None,
            ui,
            visibility,
            continues: None,
            timeout: None,
            concurrency: None,
            queue: 0,
            module_path: "",
            file: DYNAMIC_PLACE,
            line: 0,
            params: |_| {},
            output_schema: |_| None,
            error_detail: |_| ErrorDetail::None,
            call: not_by_pointer,
        }));
        Ok(Added {
            def,
            entry: tool,
            handler: call,
        })
    }
}

/// The definition of an item added at run time is never called through its pointer
/// (`call`, `get`, `read`): the catalog holds its handler. Should that ever change by
/// mistake, the request fails plainly.
fn not_by_pointer<A, T>(_: RequestContext, _: A) -> BoxFuture<'static, Result<T, RpcError>> {
    Box::pin(async { Err(RpcError::internal("this item has no handler")) })
}

/// The spec's tool-name rule: 1 to 128 characters of `A-Za-z0-9_-.`.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The handler of a dynamic resource: the request's context and the URI read.
pub(crate) type DynamicRead = Arc<dyn Fn(RequestContext, String) -> ReadFuture + Send + Sync>;

/// Where duplicate-URI errors say a dynamic resource comes from.
const DYNAMIC_RESOURCE_PLACE: &str = "Server::resource_from_json";

/// A resource or resource template added at run time (its entry as given, whichever of
/// the two lists it belongs in).
pub(crate) type DynamicResource = Added<ResourceDef, Value, DynamicRead>;

impl DynamicResource {
    /// Read `description`: a `Resource` of `resources/list` (with `uri`) or a
    /// `ResourceTemplate` of `resources/templates/list` (with `uriTemplate`).
    pub(crate) fn new(
        description: Value,
        read: DynamicRead,
    ) -> Result<DynamicResource, BuildError> {
        let shown = shown(&description, &["uri", "uriTemplate"], "(no uri)");
        let invalid = |problem: String| BuildError::InvalidItem {
            item: format!("resource `{shown}`"),
            problems: vec![problem],
        };
        // The entry is published as given: its `_meta` keys follow the protocol's grammar,
        // outside the prefixes it reserves.
        match description.get("_meta") {
            None => {}
            Some(Value::Object(meta)) => {
                crate::protocol::checks::meta_keys(Some(meta)).map_err(invalid)?;
            }
            Some(_) => return Err(invalid("its _meta must be an object".to_owned())),
        }
        let (name, title, text, mime, size, pieces) = if description.get("uriTemplate").is_some() {
            let template: ResourceTemplate = serde_json::from_value(description.clone())
                .map_err(|e| invalid(format!("its JSON is not a resource template: {e}")))?;
            let pieces = parse_template(&template.uri_template).map_err(invalid)?;
            (
                template.name,
                template.title,
                template.description,
                template.mime_type,
                None,
                pieces,
            )
        } else {
            let resource: Resource = serde_json::from_value(description.clone())
                .map_err(|e| invalid(format!("its JSON is not a resource (uri, name, ..): {e}")))?;
            if resource.uri.contains('{') {
                return Err(invalid(
                    "a URI with `{..}` is a template: give it as `uriTemplate`".to_owned(),
                ));
            }
            let pieces = vec![Piece::Literal(leak(&resource.uri))];
            (
                resource.name,
                resource.title,
                resource.description,
                resource.mime_type,
                resource.size,
                pieces,
            )
        };
        let def: &'static ResourceDef = Box::leak(Box::new(ResourceDef {
            name: leak(&name),
            title: title.as_deref().map(leak),
            description: text.as_deref().map(leak),
            uri: leak(&shown),
            template: Box::leak(pieces.into_boxed_slice()),
            mime: mime.as_deref().map(leak),
            size,
            audience: None,
            priority: None,
            ttl_ms: None,
            // What the handler reads may depend on the caller: never shared.
            cache_scope: Some(CacheScope::Private),
            scopes: &[],
            tags: &[],
            // A view's `_meta.ui` is published from the JSON as given; the server adds
            // nothing to its reads.
            view: None,
            module_path: "",
            file: DYNAMIC_RESOURCE_PLACE,
            line: 0,
            params: |_| {},
            read: not_by_pointer,
            completions: &[],
        }));
        Ok(Added {
            def,
            entry: description,
            handler: read,
        })
    }
}

/// The pieces of an RFC 6570 template of the forms the server matches: `{name}` (one path
/// segment) anywhere, and `{+name}` (the rest of the URI) at the end.
pub(crate) fn parse_template(template: &str) -> Result<Vec<Piece>, String> {
    let unsupported = || {
        format!(
            "its template {template:?} is not one this server matches: literal text with `{{name}}` (one path segment) and a final `{{+name}}` (the rest)"
        )
    };
    let mut pieces = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('{') {
            let (expression, tail) = after.split_once('}').ok_or_else(unsupported)?;
            rest = tail;
            let (name, last) = match expression.strip_prefix('+') {
                Some(name) => (name, true),
                None => (expression, false),
            };
            let simple =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            let after_variable = matches!(pieces.last(), Some(Piece::Segment(_) | Piece::Rest(_)));
            if !simple || after_variable || (last && !rest.is_empty()) {
                return Err(unsupported());
            }
            pieces.push(if last {
                Piece::Rest(leak(name))
            } else {
                Piece::Segment(leak(name))
            });
        } else {
            let (literal, tail) = rest
                .split_at_checked(rest.find('{').unwrap_or(rest.len()))
                .ok_or_else(unsupported)?;
            pieces.push(Piece::Literal(leak(literal)));
            rest = tail;
        }
    }
    if !pieces.iter().any(|p| !matches!(p, Piece::Literal(_))) {
        return Err(format!(
            "its template {template:?} has no variable: give it as `uri`"
        ));
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_take_the_forms_the_server_matches() {
        assert_eq!(
            parse_template("files://{root}/docs/{+path}"),
            Ok(vec![
                Piece::Literal("files://"),
                Piece::Segment("root"),
                Piece::Literal("/docs/"),
                Piece::Rest("path"),
            ])
        );
        for refused in [
            "files://{?q}",
            "files://{a}{b}",
            "files://{+rest}/more",
            "files://{a",
            "files://{}",
            "files://plain",
            "files://{a,b}",
        ] {
            assert!(parse_template(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn tool_names_follow_the_spec_rule() {
        assert!(valid_name("legacy.add_two-3"));
        assert!(!valid_name(""));
        assert!(!valid_name("has space"));
        assert!(!valid_name(&"x".repeat(129)));
        assert!(valid_name(&"x".repeat(128)));
    }
}
