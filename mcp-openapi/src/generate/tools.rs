//! The tools: one module each, its arguments, result and error types, and the function
//! that makes the request.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use heck::ToUpperCamelCase;
use serde_json::Value;

use super::text::{
    doc_lines, field, raw, raw_ident, schema_impl, use_line, uses_ident, without_defs, LINTS,
};
use super::Writer;
use crate::model::{
    Credential, Hidden, Location, Operation, OutputKind, PageBy, Pagination, Placement, Style,
};
use crate::names;
/// What a tool's module imports from `client.rs`, each with the text that uses it; the
/// functions among them are names a tool's own function must not take.
const HELPERS: [(&str, &str); 12] = [
    ("confirm", "confirm(&ctx"),
    ("fixed", "&fixed("),
    ("fresh_key", "fresh_key"),
    ("next_cursor", "next_cursor("),
    ("next_offset", "next_offset("),
    ("next_page", "next_page("),
    ("schema", "schema(generator"),
    ("segment", "segment("),
    ("with_total", "with_total("),
    ("Method", "Method::"),
    ("Scheme", "Scheme::"),
    ("Style", "Style::"),
];

/// The Rust name of a tool's function: the tool's name, unless a helper its module
/// imports has it (an operation called `schema`), then with `_tool` after it. The tool
/// keeps its name (`#[tool(name = ...)]`).
fn function_name(tool: &str) -> String {
    if HELPERS.iter().any(|(helper, _)| *helper == tool) {
        format!("{tool}_tool")
    } else {
        tool.to_owned()
    }
}

impl Writer<'_> {
    /// One module per tool (`src/api/tools/NAME.rs`, so a tool's diff and its review stand
    /// alone), and the list of them (`src/api/tools/mod.rs`).
    pub(super) fn tools(&mut self) -> Vec<(PathBuf, String)> {
        let operations = self.api.operations.clone();
        let mut files = Vec::new();
        let mut modules = Vec::new();
        let mut taken_modules = BTreeSet::new();
        for operation in &operations {
            self.used_now.clear();
            let items = self.tool(operation);
            let module = names::unique(&names::field(&operation.tool), usize::MAX, |m| {
                taken_modules.contains(m) || m == "mod"
            });
            taken_modules.insert(module.clone());
            let mut out = self.header(&format!(
                "The tool `{}`: {}.",
                operation.tool,
                operation.label()
            ));
            out.push_str(LINTS);
            // Only what the items use, as a person would import it.
            let used = |pattern: &str| items.contains(pattern);
            out.push_str("\nuse mcp_runtime::prelude::*;\n");
            if used("Cursor<") {
                out.push_str("use mcp_runtime::{Cursor, Page};\n");
            }
            if used("ArtifactLink") {
                out.push_str("use mcp_runtime::ArtifactLink;\n");
            }
            out.push_str("use schemars::{JsonSchema, Schema, SchemaGenerator};\nuse serde::{Deserialize, Serialize};\n");
            if uses_ident(&items, "Value") {
                out.push_str("use serde_json::Value;\n");
            }
            out.push('\n');
            let helpers: Vec<&str> = HELPERS
                .into_iter()
                .filter(|(_, pattern)| used(pattern))
                .map(|(name, _)| name)
                .collect();
            let _ = writeln!(out, "{}", use_line("crate::api::client", &helpers));
            if !self.used_now.is_empty() {
                let list: Vec<&str> = self.used_now.iter().map(String::as_str).collect();
                let _ = writeln!(out, "{}", use_line("crate::api::types", &list));
            }
            out.push_str("use crate::api::Api;\n\n");
            out.push_str(&items);
            files.push((PathBuf::from(format!("src/api/tools/{module}.rs")), out));
            modules.push(module);
        }
        let mut list = self.header(&format!(
            "The tools of {}, one module each.",
            self.api.title.replace('\n', " ")
        ));
        list.push('\n');
        for module in &modules {
            let _ = writeln!(list, "pub mod {};", raw_ident(module));
        }
        files.push((PathBuf::from("src/api/tools/mod.rs"), list));
        files
    }

    pub(super) fn tool(&mut self, op: &Operation) -> String {
        let camel = op.tool.to_upper_camel_case();
        let function = function_name(&op.tool);
        let args_type = self.claim(&format!("{camel}Args"));
        let result_type = self.claim(&format!("{camel}Result"));
        let problem_type = self.claim(&format!("{camel}Problem"));
        let mut out = String::new();
        // A recognised paging: the framework's cursor stands for the paging parameter.
        let paged = match (&op.pagination, &op.output.kind) {
            (Some(pagination), OutputKind::Json { .. }) => Some(pagination),
            _ => None,
        };
        let paging_param = |p: &crate::model::Param| {
            paged.is_some_and(|g| p.location == Location::Query && p.name == g.param())
        };

        // The arguments.
        let mut fields = String::new();
        let mut has_fields = false;
        for param in op
            .params
            .iter()
            .filter(|p| p.hidden.is_none() && !paging_param(p))
        {
            has_fields = true;
            let ty = self.rust_type(&param.schema);
            fields.push_str(&field(
                &param.field,
                &param.argument,
                &ty,
                param.required,
                param.description.as_deref(),
            ));
        }
        let mut body_call = String::new();
        if let Some(body) = &op.body {
            let form = body
                .content_type
                .starts_with("application/x-www-form-urlencoded");
            match &body.placement {
                Placement::Flattened(properties) => {
                    let object = self.resolved(&body.schema);
                    let needed: Vec<&str> = object
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    for (property, rust) in properties {
                        has_fields = true;
                        let schema = object
                            .get("properties")
                            .and_then(|p| p.get(property))
                            .cloned()
                            .unwrap_or(Value::Bool(true));
                        let ty = self.rust_type(&schema);
                        let description = schema
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        // As the input schema says (`Operation::input_schema`).
                        let required = needed.contains(&property.as_str());
                        fields.push_str(&field(
                            rust,
                            property,
                            &ty,
                            required,
                            description.as_deref(),
                        ));
                    }
                    let list: Vec<String> =
                        properties.iter().map(|(p, _)| format!("{p:?}")).collect();
                    let method = if form { "form_fields" } else { "json_fields" };
                    let _ = write!(
                        body_call,
                        "\n        .{method}(&args, &[{}])",
                        list.join(", ")
                    );
                }
                Placement::Argument(argument) => {
                    has_fields = true;
                    let rust = names::field(argument);
                    let ty = self.rust_type(&body.schema);
                    fields.push_str(&field(
                        &rust,
                        argument,
                        &ty,
                        body.required,
                        body.description.as_deref(),
                    ));
                    let text = body.content_type.starts_with("text/");
                    let _ = match (form, text) {
                        (true, _) => write!(body_call, "\n        .form_fields(&args.{rust}, &[])"),
                        (_, true) if ty == "String" && body.required => write!(body_call, "\n        .text(&args.{rust})"),
                        (_, true) => write!(body_call, "\n        .text(&serde_json::to_string(&args.{rust}).unwrap_or_default())"),
                        _ => write!(body_call, "\n        .json(&args.{rust})"),
                    };
                }
            }
        }
        if has_fields {
            let _ = writeln!(out, "/// The arguments of [`{function}`].");
            // Serialized only to send a body made of some of its fields.
            let flattened = op
                .body
                .as_ref()
                .is_some_and(|b| matches!(b.placement, Placement::Flattened(_)));
            out.push_str(if flattened {
                "#[derive(Debug, Clone, Serialize, Deserialize)]\n"
            } else {
                "#[derive(Debug, Clone, Deserialize)]\n"
            });
            let _ = writeln!(out, "pub struct {args_type} {{\n{fields}}}\n");
            let mut input = without_defs(op.input_schema(&self.api.schemas));
            if let Some(pagination) = paged {
                without_argument(&mut input, op, pagination.param());
            }
            out.push_str(&schema_impl(&args_type, &input));
        }

        // The result and the documented errors.
        let json = matches!(op.output.kind, OutputKind::Json { .. });
        let item_type = paged.map(|_| self.claim(&format!("{camel}Item")));
        if let (Some(pagination), Some(item_type)) = (paged, &item_type) {
            let _ = writeln!(
                out,
                "/// One item of a page [`{function}`] answers, as the document describes it."
            );
            let _ = writeln!(out, "#[derive(Debug, Clone, Serialize, Deserialize)]\n#[serde(transparent)]\npub struct {item_type}(pub Value);\n");
            out.push_str(&schema_impl(
                item_type,
                &without_defs(pagination.item_schema.clone()),
            ));
        } else if json {
            let _ = writeln!(
                out,
                "/// What [`{function}`] answers: the API's JSON, as the document describes it."
            );
            let _ = writeln!(out, "#[derive(Debug, Clone, Serialize, Deserialize)]\n#[serde(transparent)]\npub struct {result_type}(pub Value);\n");
            let output = op
                .output_schema(&self.api.schemas)
                .map(without_defs)
                .unwrap_or(Value::Bool(true));
            out.push_str(&schema_impl(&result_type, &output));
        }
        let _ = writeln!(out, "/// The body of an error [`{function}`] documents.");
        let _ = writeln!(out, "#[derive(Debug, Clone, Serialize, Deserialize)]\n#[serde(transparent)]\npub struct {problem_type}(pub Value);\n");
        let problem = match op.errors.as_slice() {
            [] => serde_json::json!({}),
            [one] => one.schema.clone(),
            many => {
                serde_json::json!({ "anyOf": many.iter().map(|e| e.schema.clone()).collect::<Vec<_>>() })
            }
        };
        out.push_str(&schema_impl(&problem_type, &problem));

        // The tool.
        for line in doc_lines(op.docs.as_deref().unwrap_or(&op.description)) {
            let _ = writeln!(out, "///{line}");
        }
        let mut options = vec![format!("name = {:?}", op.tool)];
        if let Some(title) = &op.title {
            options.push(format!("title = {:?}", title));
        }
        options.push(format!("description = {:?}", op.description));
        if op.annotations.read_only {
            options.push("read_only".into());
        }
        if op.annotations.destructive {
            options.push("destructive".into());
        }
        if op.annotations.idempotent && !op.annotations.read_only {
            options.push("idempotent".into());
        }
        options.push("open_world".into());
        if op.idempotency {
            options.push("idempotency".into());
        }
        if !op.scopes.is_empty() {
            let scopes: Vec<String> = op.scopes.iter().map(|s| format!("{s:?}")).collect();
            options.push(format!("scopes({})", scopes.join(", ")));
        }
        let _ = writeln!(out, "#[tool(\n    {}\n)]", options.join(",\n    "));
        let file = matches!(op.output.kind, OutputKind::Binary(_));
        let needs_ctx = op.confirm
            || file
            || (op.idempotency && op.idempotency_key.is_some())
            || op
                .params
                .iter()
                .any(|p| p.hidden == Some(Hidden::Principal));
        // Called as the caller: operations that take credentials get a token for the API
        // in the caller's name, through the call's context.
        let as_caller = self.api.caller.is_some() && !op.security.is_empty();
        let needs_ctx = needs_ctx || as_caller;
        let needs_tenant = op.params.iter().any(|p| p.hidden == Some(Hidden::Tenant));
        let mut params = vec!["api: State<Api>".to_owned()];
        if needs_ctx {
            params.push("ctx: RequestContext".into());
        }
        if needs_tenant {
            params.push("tenant: Tenant".into());
        }
        if let Some(pagination) = paged {
            let position = match pagination.by {
                PageBy::Cursor { .. } => "String",
                _ => "i64",
            };
            params.push(format!("pages: Cursor<{position}>"));
        }
        if has_fields {
            params.push(format!("Args(args): Args<{args_type}>"));
        }
        let output = if let Some(item_type) = &item_type {
            format!("Page<{item_type}>")
        } else if json {
            format!("Json<{result_type}>")
        } else if file {
            "ArtifactLink".into()
        } else {
            "String".into()
        };
        let _ = writeln!(
            out,
            "pub async fn {}(\n    {},\n) -> Result<{output}, Rejected<{problem_type}>> {{",
            function,
            params.join(",\n    ")
        );
        let (template, path_args) = self.path(op);
        let path = if path_args.is_empty() {
            format!("{template:?}")
        } else {
            format!("&format!({template:?}, {})", path_args.join(", "))
        };
        // What the user and the model read of a call: the operation and the path it acts on.
        // (Written as a `format!` template, as the path is: braces doubled.)
        let braced = |text: &str| text.replace('{', "{{").replace('}', "}}");
        let what = braced(
            op.title
                .as_deref()
                .unwrap_or(&op.tool)
                .trim_end_matches('.'),
        );
        let said = |text: String| {
            if path_args.is_empty() {
                format!("{:?}", text.replace("{{", "{").replace("}}", "}"))
            } else {
                format!("&format!({text:?}, {})", path_args.join(", "))
            }
        };
        if op.confirm {
            let message = said(format!(
                "{what}: {} {template}. Go ahead?",
                op.method.as_str()
            ));
            let _ = writeln!(out, "    confirm(&ctx, {message})?;");
        }
        if as_caller {
            let scopes: Vec<String> = op.api_scopes.iter().map(|s| format!("{s:?}")).collect();
            let _ = writeln!(
                out,
                "    let api = api.as_caller(&ctx, &[{}]).await?;",
                scopes.join(", ")
            );
        }
        if let Some(pagination) = paged {
            let _ = match &pagination.by {
                PageBy::Page { first, .. } => writeln!(
                    out,
                    "    let page = pages.position().copied().unwrap_or({first});"
                ),
                PageBy::Offset { .. } => writeln!(
                    out,
                    "    let offset = pages.position().copied().unwrap_or(0);"
                ),
                PageBy::Cursor { .. } => Ok(()),
            };
        }
        let _ = write!(
            out,
            "    let request = api\n        .request(Method::{}, {path})",
            op.method.as_str()
        );
        for param in op.params.iter().filter(|p| p.location != Location::Path) {
            let value = match paged.map(|g| &g.by) {
                Some(PageBy::Page { .. }) if paging_param(param) => "&page".to_owned(),
                Some(PageBy::Offset { .. }) if paging_param(param) => "&offset".to_owned(),
                Some(PageBy::Cursor { .. }) if paging_param(param) => {
                    "&pages.position()".to_owned()
                }
                _ => self.value_of(param),
            };
            let _ = match param.location {
                Location::Query => write!(
                    out,
                    "\n        .query({:?}, {value}, Style::{})",
                    param.name,
                    style_of(param.style)
                ),
                Location::Header => write!(out, "\n        .header({:?}, {value})", param.name),
                Location::Cookie => write!(out, "\n        .cookie({:?}, {value})", param.name),
                Location::Path => Ok(()),
            };
        }
        if let (true, Some(header)) = (op.idempotency, &op.idempotency_key) {
            // The API takes keys itself: the call's, or a fresh one for a call without.
            let _ = write!(
                out,
                "\n        .header({header:?}, &ctx.idempotency_key().map_or_else(fresh_key, str::to_owned))"
            );
        }
        out.push_str(&body_call);
        out.push_str(";\n");
        let schemes: Vec<String> = op
            .security
            .iter()
            .filter_map(|name| {
                let scheme = match self.api.credentials.get(name)? {
                    Credential::ApiKey {
                        location: Location::Query,
                        name: key,
                    } => format!("Scheme::Query({key:?})"),
                    Credential::ApiKey {
                        location: Location::Cookie,
                        name: key,
                    } => format!("Scheme::Cookie({key:?})"),
                    Credential::ApiKey { name: key, .. } => format!("Scheme::Header({key:?})"),
                    Credential::Bearer | Credential::Basic => "Scheme::Authorization".into(),
                };
                Some(format!("({name:?}, {scheme})"))
            })
            .collect();
        let schemes = format!("&[{}]", schemes.join(", "));
        if let Some(pagination) = paged {
            Self::page_end(&mut out, op, pagination, &schemes);
            return out;
        }
        match &op.output.kind {
            OutputKind::Json { wrapped_in, .. } => {
                let wrapped = match wrapped_in {
                    Some(key) => format!("Some({key:?})"),
                    None => "None".into(),
                };
                let _ = writeln!(out, "    api.json(request, {schemes}, {wrapped}).await\n}}");
            }
            OutputKind::Binary(media) => {
                // A file is handed on, not read: stored as an artifact, linked.
                let summary = said(format!(
                    "{what} ({}): {} {template}",
                    braced(media),
                    op.method.as_str()
                ));
                let _ = writeln!(
                    out,
                    "    api.artifact(&ctx, request, {schemes}, {summary}).await\n}}"
                );
            }
            _ => {
                let _ = writeln!(out, "    api.text(request, {schemes}).await\n}}");
            }
        }
        out
    }

    /// The end of a paged tool: the page asked for, its items, where the next one starts,
    /// and the total when the answer says it.
    fn page_end(out: &mut String, op: &Operation, pagination: &Pagination, schemes: &str) {
        let items = match &pagination.items {
            Some(key) => format!("Some({key:?})"),
            None => "None".into(),
        };
        // The whole answer, when the next cursor or the total is read from it.
        let answer = if matches!(pagination.by, PageBy::Cursor { .. }) || pagination.total.is_some()
        {
            "answer"
        } else {
            "_"
        };
        let _ = writeln!(
            out,
            "    let (items, {answer}) = api.page(request, {schemes}, {items}).await?;"
        );
        // The page size a short page is measured against, where the API is known to honour
        // it: the document's default when the size is left out, and an argument the
        // document bounds with a `maximum` (the input schema holds the model to it). An API
        // may cap any other size silently, so there only an empty page ends the paging: a
        // call more, never a row less.
        let size = |name: &Option<String>, default: &Option<i64>| {
            let default = match default {
                Some(n) => format!("Some({n})"),
                None => "None".into(),
            };
            let Some(param) = name
                .as_ref()
                .and_then(|name| op.params.iter().find(|p| &p.name == name))
            else {
                return default;
            };
            // An `i64` field, or an `Option` of one.
            if param.hidden.is_some()
                || param.schema.get("type").and_then(Value::as_str) != Some("integer")
            {
                return "None".into();
            }
            let bounded = param.schema.get("maximum").is_some();
            let field = &param.field;
            match (param.required, bounded, default.as_str()) {
                (true, true, _) => format!("Some(args.{field})"),
                (true, false, _) | (false, false, "None") => "None".into(),
                (false, true, "None") => format!("args.{field}"),
                (false, true, _) => format!("args.{field}.or({default})"),
                (false, false, _) => format!("args.{field}.map_or({default}, |_| None)"),
            }
        };
        let next = match &pagination.by {
            PageBy::Page {
                size: name,
                size_default,
                ..
            } => format!("next_page(page, items.len(), {})", size(name, size_default)),
            PageBy::Offset {
                limit,
                limit_default,
                ..
            } => format!(
                "next_offset(offset, items.len(), {})",
                size(limit, limit_default)
            ),
            PageBy::Cursor { next, .. } => format!("next_cursor(&answer, {next:?})"),
        };
        let _ = writeln!(out, "    let next = {next};");
        match &pagination.total {
            Some(key) => {
                let _ = writeln!(
                    out,
                    "    Ok(with_total(pages.page(items, next), &answer, {key:?}))\n}}"
                );
            }
            None => {
                let _ = writeln!(out, "    Ok(pages.page(items, next))\n}}");
            }
        }
    }

    /// The path as a `format!` template and its arguments, each one segment.
    pub(super) fn path(&self, op: &Operation) -> (String, Vec<String>) {
        let mut template = String::new();
        let mut arguments = Vec::new();
        let mut rest = op.path.as_str();
        while let Some(open) = rest.find('{') {
            template.push_str(&rest[..open].replace('{', "{{").replace('}', "}}"));
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else { break };
            let name = &after[..close];
            match op
                .params
                .iter()
                .find(|p| p.location == Location::Path && p.name == name)
            {
                Some(param) => {
                    template.push_str("{}");
                    arguments.push(format!("segment({})", self.value_of(param)));
                }
                None => template.push_str(&format!("{{{{{name}}}}}")),
            }
            rest = &after[close + 1..];
        }
        template.push_str(&rest.replace('{', "{{").replace('}', "}}"));
        (template, arguments)
    }

    /// The expression of a parameter's value, a reference.
    pub(super) fn value_of(&self, param: &crate::model::Param) -> String {
        match &param.hidden {
            None => format!("&args.{}", param.field),
            Some(Hidden::Fixed(value)) => format!("&fixed({})", raw(&value.to_string())),
            Some(Hidden::Tenant) => "&tenant.0".into(),
            Some(Hidden::Principal) => "&ctx.principal().map(|p| p.subject.clone())".into(),
        }
    }
}

/// `input` without the argument of the parameter `name` (which the framework's cursor
/// stands for).
fn without_argument(input: &mut Value, op: &Operation, name: &str) {
    let Some(argument) = op
        .params
        .iter()
        .find(|p| p.name == name && p.location == Location::Query)
        .map(|p| p.argument.clone())
    else {
        return;
    };
    if let Some(Value::Object(properties)) = input.get_mut("properties") {
        properties.remove(&argument);
    }
    if let Some(Value::Array(required)) = input.get_mut("required") {
        required.retain(|r| r.as_str() != Some(argument.as_str()));
    }
}

pub(super) fn style_of(style: Style) -> &'static str {
    match style {
        Style::Form { explode: true } | Style::Simple => "Exploded",
        Style::Form { explode: false } => "Comma",
        Style::SpaceDelimited => "Space",
        Style::PipeDelimited => "Pipe",
        Style::DeepObject => "DeepObject",
    }
}
