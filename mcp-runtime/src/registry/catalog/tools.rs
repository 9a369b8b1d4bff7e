//! The catalog's tools: each `#[tool]` and each tool added at run time, its name served
//! once, its schemas built (or taken as given) and compiled, ready for `tools/list` and
//! `tools/call`.

use std::cell::Cell;

use serde_json::Value;

use super::checks::{check_states, one_per_key, prepare_each};
use super::{BuildError, Defs};
use crate::protocol::mirror::{self, Mirrored};
use crate::protocol::{Tool, ToolAnnotations};
use crate::registry::abridge;
use crate::registry::dynamic::{DynamicCall, DynamicTool};
use crate::registry::spec::{generator, output_schema, with_idempotency_key};
use crate::registry::{Defined, ParamSpec, ToolDef};
use crate::validate::ArgValidator;

/// One tool as served: its definition, wire form and compiled argument validator.
pub struct CatalogTool {
    /// What the macro emitted.
    pub def: &'static ToolDef,
    /// The `tools/list` entry.
    pub tool: Tool,
    /// Compiled validator for the tool's own input schema (without the idempotency key,
    /// which the server takes out of the arguments first).
    pub validator: ArgValidator,
    /// Arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`), checked on HTTP.
    pub(crate) mirrored: Vec<Mirrored>,
    /// It takes a `Cursor<S>`: its calls are bound for page cursors.
    pub(crate) paged: bool,
    /// Results larger than this many bytes, serialized, are stored as artifacts.
    pub(crate) inline_limit: Option<usize>,
    /// The handler of a tool added at run time (`def.call` for a `#[tool]`).
    pub(crate) dynamic: Option<DynamicCall>,
}

impl CatalogTool {
    /// Start the handler on these (checked) arguments.
    pub(crate) fn call(
        &self,
        ctx: crate::core::RequestContext,
        arguments: serde_json::Map<String, Value>,
    ) -> crate::registry::tool::ToolFuture {
        match &self.dynamic {
            Some(call) => call(ctx, arguments),
            None => (self.def.call)(ctx, arguments),
        }
    }
}

/// The server's sizes a tool is prepared with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budgets {
    /// Results larger than this, serialized, are stored as artifacts (a tool may say
    /// otherwise).
    pub(super) inline_limit: Option<usize>,
    /// The largest output schema published whole, in bytes of JSON.
    pub(super) output_schema_bytes: usize,
}

/// Every tool of `defs`, each (name, version) once, prepared; what is wrong with the
/// others goes to `errors`. Dynamic tools share the namespace: a name clash with a
/// `#[tool]` is a duplicate.
pub(super) fn tools(
    defs: &Defs,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
    budgets: Budgets,
    errors: &mut Vec<BuildError>,
) -> Vec<CatalogTool> {
    let emitted = defs.tools.iter().map(|def| (*def, None));
    let added = defs.dynamic.iter().map(|tool| (tool.def, Some(&**tool)));
    let unique = one_per_key(
        emitted.chain(added),
        |(def, _)| match def.version {
            Some(version) => format!("{} version {version}", def.name),
            None => def.name.to_owned(),
        },
        |(def, _)| def.place(),
        |name, places| BuildError::DuplicateTool { name, places },
        errors,
    );
    let shortened = Cell::new(0_usize);
    let first = Cell::new(None);
    let prepared = prepare_each(
        unique,
        |(def, added)| match added {
            Some(tool) => prepare_dynamic(tool),
            None => prepare(def, has_state, budgets).map(|(tool, abridged)| {
                if abridged {
                    shortened.set(shortened.get() + 1);
                    first.set(first.get().or(Some(def.name)));
                }
                tool
            }),
        },
        errors,
    );
    if let Some(first) = first.get() {
        tracing::info!(tools = shortened.get(), first = %first, budget = budgets.output_schema_bytes, "output schemas over the budget published shortened (named schemas far from the result left out; RUST_LOG=debug names each tool); Server::max_output_schema_bytes sets the budget");
    }
    prepared
}

/// A `#[tool]`: its input schema from its parameters, its output schema from its return
/// type, both compiled.
fn prepare(
    def: &'static ToolDef,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
    budgets: Budgets,
) -> Result<(CatalogTool, bool), Vec<BuildError>> {
    let invalid = |problems: Vec<String>| invalid(def.name, problems);
    let spec = ParamSpec::of(def.params);
    let states = check_states(&spec, &format!("tool `{}`", def.name), has_state);
    let paged = spec.paged();
    let input_schema = spec.finish().map_err(invalid)?;
    states?;
    let mirrored = mirror::scan(&input_schema).map_err(invalid)?;
    let validator = compile(&input_schema, "input", &invalid)?;
    let input_schema = if def.idempotency {
        with_idempotency_key(&input_schema).map_err(|e| invalid(vec![e]))?
    } else {
        input_schema
    };
    let mut gen = generator();
    let success = (def.output_schema)(&mut gen);
    let errors = (def.error_detail)(&mut gen);
    // A number, a boolean or null is never large: such a tool's schema stays as it is
    // and its results are never spilled.
    let scalar = success.as_ref().is_some_and(|schema| {
        matches!(
            schema.get("type").and_then(Value::as_str),
            Some("integer" | "number" | "boolean" | "null")
        )
    });
    let inline_limit = def
        .inline_limit
        .resolve(budgets.inline_limit)
        .filter(|_| !scalar);
    let output_schema = output_schema(
        success,
        errors,
        def.idempotency,
        inline_limit.is_some(),
        &mut gen,
    );
    let (output_schema, abridged) = match output_schema {
        Some(schema) => {
            let (schema, abridged) = abridge::within(schema, budgets.output_schema_bytes);
            if let Some(abridged) = &abridged {
                tracing::debug!(tool = %def.name, whole = abridged.whole, published = abridged.published, left_out = abridged.left_out, of = abridged.named, "output schema shortened");
            }
            (Some(schema), abridged.is_some())
        }
        None => (None, false),
    };
    if let Some(schema) = &output_schema {
        // A published schema must be valid in its dialect; compiling it checks that.
        compile(schema, "output", &invalid)?;
    }
    let tool = Tool {
        name: def.name.to_owned(),
        title: def.title.map(str::to_owned),
        description: Some(def.description.to_owned()),
        input_schema,
        output_schema,
        annotations: ToolAnnotations {
            title: None,
            read_only_hint: def.read_only,
            destructive_hint: def.destructive,
            idempotent_hint: def.idempotent,
            open_world_hint: def.open_world,
        },
        meta: crate::registry::view::tool_meta(def.ui, def.visibility),
    };
    let tool = CatalogTool {
        def,
        tool,
        validator,
        mirrored,
        paged,
        inline_limit,
        dynamic: None,
    };
    Ok((tool, abridged))
}

/// A tool added at run time: its schemas as given, compiled (the output schema only to
/// check it is one), its `x-mcp-header` arguments found as for a `#[tool]`.
fn prepare_dynamic(dynamic: &DynamicTool) -> Result<CatalogTool, Vec<BuildError>> {
    let invalid = |problems: Vec<String>| invalid(&dynamic.entry.name, problems);
    let mirrored = mirror::scan(&dynamic.entry.input_schema).map_err(invalid)?;
    let validator = compile(&dynamic.entry.input_schema, "input", &invalid)?;
    if let Some(schema) = &dynamic.entry.output_schema {
        compile(schema, "output", &invalid)?;
    }
    Ok(CatalogTool {
        def: dynamic.def,
        tool: dynamic.entry.clone(),
        validator,
        mirrored,
        paged: false,
        inline_limit: None,
        dynamic: Some(dynamic.handler.clone()),
    })
}

/// The tool `name` cannot be served, for these reasons.
fn invalid(name: &str, problems: Vec<String>) -> Vec<BuildError> {
    vec![BuildError::InvalidTool {
        name: name.to_owned(),
        problems,
    }]
}

/// `schema` compiled, or why not (`which`: "input" or "output").
fn compile(
    schema: &Value,
    which: &str,
    invalid: &dyn Fn(Vec<String>) -> Vec<BuildError>,
) -> Result<ArgValidator, Vec<BuildError>> {
    ArgValidator::compile(schema)
        .map_err(|e| invalid(vec![format!("its {which} schema does not compile: {e}")]))
}
