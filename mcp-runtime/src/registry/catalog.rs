//! The catalog: every served tool, resource and prompt, checked, sorted and ready to list,
//! built once at start.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

pub use super::build_error::BuildError;
pub use super::listing::{ListPage, Listing};
use super::Listed;
use crate::protocol::mirror::{self, Mirrored};
use crate::protocol::{Annotations, Prompt, Resource, ResourceTemplate, Tool, ToolAnnotations};
use crate::validate::ArgValidator;

use super::dynamic::{
    DynamicCall, DynamicGet, DynamicPrompt, DynamicRead, DynamicResource, DynamicTool,
    DYNAMIC_PLACE, DYNAMIC_PROMPT_PLACE, DYNAMIC_RESOURCE_PLACE,
};
use super::spec::{generator, output_schema, with_idempotency_key};
use super::{uri, ParamSpec, PromptDef, ResourceDef, ToolDef};

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
    ) -> super::tool::ToolFuture {
        match &self.dynamic {
            Some(call) => call(ctx, arguments),
            None => (self.def.call)(ctx, arguments),
        }
    }
}

/// One resource (static or template) as served.
pub struct CatalogResource {
    /// What the macro emitted.
    pub def: &'static ResourceDef,
    /// The URI (static) or the RFC 6570 template, as published.
    pub published: String,
    /// The list entry (`Resource` or `ResourceTemplate`).
    pub entry: Value,
    /// What it reads depends on who asks (it declares scopes or takes the principal), so
    /// its reads are `cacheScope: private` unless it says `cache = public`.
    pub private: bool,
    /// The handler of a resource added at run time (`def.read` for a `#[resource]`).
    pub(crate) dynamic: Option<DynamicRead>,
}

impl CatalogResource {
    /// Start the handler on this read.
    pub(crate) fn read(
        &self,
        ctx: crate::core::RequestContext,
        request: super::ReadRequest,
    ) -> super::ReadFuture {
        match &self.dynamic {
            Some(read) => read(ctx, request.uri),
            None => (self.def.read)(ctx, request),
        }
    }
}

/// Whether a resource's reads vary by caller.
fn reads_vary_by_caller(def: &ResourceDef) -> bool {
    let mut spec = ParamSpec::default();
    (def.params)(&mut spec);
    !def.scopes.is_empty() || spec.principal()
}

/// One prompt as served.
pub struct CatalogPrompt {
    /// What the macro emitted.
    pub def: &'static PromptDef,
    /// The `prompts/list` entry.
    pub prompt: Prompt,
    /// The handler of a prompt added at run time (`def.get` for a `#[prompt]`).
    pub(crate) dynamic: Option<DynamicGet>,
}

impl CatalogPrompt {
    /// Start the handler on these (checked) arguments.
    pub(crate) fn get(
        &self,
        ctx: crate::core::RequestContext,
        arguments: serde_json::Map<String, Value>,
    ) -> super::PromptFuture {
        match &self.dynamic {
            Some(get) => get(ctx, arguments),
            None => (self.def.get)(ctx, arguments),
        }
    }
}

/// The definitions a server was asked to serve.
#[derive(Default, Clone)]
pub struct Defs {
    /// Tools.
    pub tools: Vec<&'static ToolDef>,
    /// Resources and resource templates.
    pub resources: Vec<&'static ResourceDef>,
    /// Prompts.
    pub prompts: Vec<&'static PromptDef>,
    /// Tools added at run time (`Server::tool_from_json`).
    pub(crate) dynamic: Vec<Arc<DynamicTool>>,
    /// Prompts added at run time (`Server::prompt_from_json`).
    pub(crate) dynamic_prompts: Vec<Arc<DynamicPrompt>>,
    /// Resources and templates added at run time (`Server::resource_from_json`).
    pub(crate) dynamic_resources: Vec<Arc<DynamicResource>>,
}

/// Everything served, checked and sorted, built once at start.
pub struct Catalog {
    tools: Vec<CatalogTool>,
    resources: Vec<CatalogResource>,
    resource_index: HashMap<String, usize>,
    templates: Vec<CatalogResource>,
    prompts: Vec<CatalogPrompt>,
    page_size: usize,
    logging: bool,
    /// Some resource is a view (the MCP Apps extension is announced).
    views: bool,
    /// Some tool is for views only (`visibility = app`).
    app_only: bool,
    /// How many times a target was looked up: a request resolves its target once.
    #[cfg(test)]
    pub(crate) lookups: std::sync::atomic::AtomicUsize,
}

/// Where [`Catalog::find_resource`] found a resource: among the static resources or the
/// templates, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResourceAt {
    /// A static resource.
    Static(usize),
    /// A resource template.
    Template(usize),
}

fn duplicates<T: Copy>(
    defs: &[T],
    key: impl Fn(T) -> String,
    place: impl Fn(T) -> String,
) -> (Vec<T>, Vec<(String, Vec<String>)>) {
    let mut by_key: HashMap<String, Vec<T>> = HashMap::new();
    for def in defs {
        by_key.entry(key(*def)).or_default().push(*def);
    }
    let mut keys: Vec<String> = by_key.keys().cloned().collect();
    keys.sort();
    let mut unique = Vec::new();
    let mut dups = Vec::new();
    for k in keys {
        match by_key.get(&k).map(Vec::as_slice) {
            Some([one]) => unique.push(*one),
            Some(same) => dups.push((k, same.iter().map(|d| place(*d)).collect())),
            None => {}
        }
    }
    (unique, dups)
}

impl Catalog {
    /// Check and prepare `defs`. `has_state` answers whether a state type was registered.
    pub fn build(
        defs: Defs,
        page_size: usize,
        has_state: &dyn Fn(std::any::TypeId) -> bool,
        inline_limit: Option<usize>,
    ) -> Result<Catalog, Vec<BuildError>> {
        let mut errors = Vec::new();

        // Dynamic tools share the namespace: a name clash with a `#[tool]` is a duplicate.
        let all_tools: Vec<&'static ToolDef> = defs
            .tools
            .iter()
            .copied()
            .chain(defs.dynamic.iter().map(|d| d.def))
            .collect();
        let (tool_defs, dups) = duplicates(
            &all_tools,
            |d| d.name.to_owned(),
            |d| {
                if d.file == DYNAMIC_PLACE && d.line == 0 {
                    DYNAMIC_PLACE.to_owned()
                } else {
                    format!("{} ({}:{})", d.module_path, d.file, d.line)
                }
            },
        );
        errors.extend(
            dups.into_iter()
                .map(|(name, places)| BuildError::DuplicateTool { name, places }),
        );
        let mut tools = Vec::new();
        for def in tool_defs {
            if let Some(dynamic) = defs.dynamic.iter().find(|d| std::ptr::eq(d.def, def)) {
                match prepare_dynamic(dynamic) {
                    Ok(tool) => tools.push(tool),
                    Err(e) => errors.extend(e),
                }
                continue;
            }
            match prepare(def, has_state, inline_limit) {
                Ok(tool) => tools.push(tool),
                Err(e) => errors.extend(e),
            }
        }
        tools.sort_by(|a, b| a.def.name.cmp(b.def.name));

        let place = |d: &ResourceDef| {
            if d.file == DYNAMIC_RESOURCE_PLACE && d.line == 0 {
                DYNAMIC_RESOURCE_PLACE.to_owned()
            } else {
                d.place()
            }
        };
        let (static_defs, template_defs): (Vec<_>, Vec<_>) = defs
            .resources
            .iter()
            .copied()
            .chain(defs.dynamic_resources.iter().map(|d| d.def))
            .partition(|d| d.is_static());
        let (static_defs, dups) = duplicates(&static_defs, |d| d.uri.to_owned(), place);
        errors.extend(
            dups.into_iter()
                .map(|(uri, places)| BuildError::DuplicateResource { uri, places }),
        );
        for (i, a) in template_defs.iter().enumerate() {
            for b in template_defs.iter().skip(i + 1) {
                if uri::overlaps(a.template, b.template) {
                    errors.push(BuildError::OverlappingTemplates {
                        templates: [a.uri.to_owned(), b.uri.to_owned()],
                        places: [place(a), place(b)],
                    });
                }
            }
        }
        let mut resources = Vec::new();
        let mut templates = Vec::new();
        for def in static_defs.iter().chain(template_defs.iter()) {
            let item = format!("resource `{}`", def.uri);
            if def.uri.starts_with(super::spec::ARTIFACT_SCHEME) {
                errors.push(BuildError::InvalidItem {
                    item,
                    problems: vec![format!(
                        "the `{}` scheme is the server's own, for artifacts (large tool results); use another scheme",
                        super::spec::ARTIFACT_SCHEME
                    )],
                });
                continue;
            }
            if let Some(dynamic) = defs
                .dynamic_resources
                .iter()
                .find(|d| std::ptr::eq(d.def, *def))
            {
                let published = if def.is_static() {
                    def.uri.to_owned()
                } else {
                    uri::rfc6570(def.template)
                };
                let served = CatalogResource {
                    def,
                    published,
                    entry: dynamic.entry.clone(),
                    private: true,
                    dynamic: Some(dynamic.read.clone()),
                };
                if def.is_static() {
                    resources.push(served);
                } else {
                    templates.push(served);
                }
                continue;
            }
            let mut spec = ParamSpec::default();
            (def.params)(&mut spec);
            if let Err(e) = check_states(&spec, &item, has_state) {
                errors.extend(e);
                continue;
            }
            if def.is_static() {
                resources.push(static_entry(def));
            } else {
                templates.push(template_entry(def));
            }
        }
        resources.sort_by(|a, b| a.published.cmp(&b.published));
        templates.sort_by(|a, b| a.published.cmp(&b.published));

        let all_prompts: Vec<&'static PromptDef> = defs
            .prompts
            .iter()
            .copied()
            .chain(defs.dynamic_prompts.iter().map(|d| d.def))
            .collect();
        let (prompt_defs, dups) = duplicates(
            &all_prompts,
            |d| d.name.to_owned(),
            |d| {
                if d.file == DYNAMIC_PROMPT_PLACE && d.line == 0 {
                    DYNAMIC_PROMPT_PLACE.to_owned()
                } else {
                    d.place()
                }
            },
        );
        errors.extend(
            dups.into_iter()
                .map(|(name, places)| BuildError::DuplicatePrompt { name, places }),
        );
        let mut prompts = Vec::new();
        for def in prompt_defs {
            if let Some(dynamic) = defs
                .dynamic_prompts
                .iter()
                .find(|d| std::ptr::eq(d.def, def))
            {
                prompts.push(CatalogPrompt {
                    def,
                    prompt: dynamic.prompt.clone(),
                    dynamic: Some(dynamic.get.clone()),
                });
                continue;
            }
            match prepare_prompt(def, has_state) {
                Ok(prompt) => prompts.push(prompt),
                Err(e) => errors.extend(e),
            }
        }
        prompts.sort_by(|a, b| a.def.name.cmp(b.def.name));
        errors.extend(check_views(&tools, &resources));

        if !errors.is_empty() {
            return Err(errors);
        }
        let resource_index = resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.published.clone(), i))
            .collect();
        let logs = |params: fn(&mut ParamSpec)| {
            let mut spec = ParamSpec::default();
            params(&mut spec);
            spec.logs()
        };
        let logging = tools.iter().any(|t| logs(t.def.params))
            || resources
                .iter()
                .chain(&templates)
                .any(|r| logs(r.def.params))
            || prompts.iter().any(|p| logs(p.def.params));
        let views = resources.iter().any(|r| r.def.view.is_some());
        let app_only = tools
            .iter()
            .any(|t| t.def.visibility == super::view::Visibility::App);
        Ok(Catalog {
            views,
            app_only,
            tools,
            resources,
            resource_index,
            templates,
            prompts,
            page_size: page_size.max(1),
            logging,
            #[cfg(test)]
            lookups: Default::default(),
        })
    }

    /// Whether some served function sends log messages (the `logging` capability).
    pub fn logging(&self) -> bool {
        self.logging
    }

    /// Whether some resource is a view: the server then announces the MCP Apps extension.
    pub fn views(&self) -> bool {
        self.views
    }

    /// Whether some tool is for views only (`visibility = app`), so `tools/list` depends on
    /// whether the client declared the MCP Apps extension.
    pub fn app_only(&self) -> bool {
        self.app_only
    }

    /// Look a tool up by wire name.
    pub fn get(&self, name: &str) -> Option<&CatalogTool> {
        self.find_tool(name).and_then(|i| self.tools.get(i))
    }

    /// Where the tool `name` is ([`Catalog::tool_at`] gives it).
    pub(crate) fn find_tool(&self, name: &str) -> Option<usize> {
        self.looked_up();
        // The tools are sorted by name and no name is served twice, so a binary search
        // finds one without hashing the name.
        self.tools
            .binary_search_by(|tool| tool.def.name.cmp(name))
            .ok()
    }

    /// The tool [`Catalog::find_tool`] found.
    pub(crate) fn tool_at(&self, index: usize) -> Option<&CatalogTool> {
        self.tools.get(index)
    }

    fn looked_up(&self) {
        #[cfg(test)]
        self.lookups
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// All tools, sorted by name.
    pub fn tools(&self) -> &[CatalogTool] {
        &self.tools
    }

    /// Static resources, sorted by URI.
    pub fn resources(&self) -> &[CatalogResource] {
        &self.resources
    }

    /// Resource templates, sorted by template.
    pub fn templates(&self) -> &[CatalogResource] {
        &self.templates
    }

    /// Prompts, sorted by name.
    pub fn prompts(&self) -> &[CatalogPrompt] {
        &self.prompts
    }

    /// Look a prompt up by name (sorted by name, as the tools are).
    pub fn prompt(&self, name: &str) -> Option<&CatalogPrompt> {
        self.find_prompt(name).and_then(|i| self.prompts.get(i))
    }

    /// Where the prompt `name` is ([`Catalog::prompt_at`] gives it).
    pub(crate) fn find_prompt(&self, name: &str) -> Option<usize> {
        self.looked_up();
        self.prompts
            .binary_search_by(|prompt| prompt.def.name.cmp(name))
            .ok()
    }

    /// The prompt [`Catalog::find_prompt`] found.
    pub(crate) fn prompt_at(&self, index: usize) -> Option<&CatalogPrompt> {
        self.prompts.get(index)
    }

    /// Where the resource serving `uri` is, with its variables: a static resource with
    /// exactly this URI first, else the one template that matches
    /// ([`Catalog::resource_at`] gives it).
    pub(crate) fn find_resource(&self, uri: &str) -> Option<(ResourceAt, uri::UriParams)> {
        self.looked_up();
        if let Some(&i) = self.resource_index.get(uri) {
            return Some((ResourceAt::Static(i), uri::UriParams::default()));
        }
        self.templates.iter().enumerate().find_map(|(i, t)| {
            uri::match_uri(t.def.template, uri).map(|params| (ResourceAt::Template(i), params))
        })
    }

    /// The resource [`Catalog::find_resource`] found.
    pub(crate) fn resource_at(&self, at: ResourceAt) -> Option<&CatalogResource> {
        match at {
            ResourceAt::Static(i) => self.resources.get(i),
            ResourceAt::Template(i) => self.templates.get(i),
        }
    }

    /// The template published as `template` (RFC 6570 form) or written as `template`
    /// (`<name>` form), for `completion/complete`.
    pub fn template(&self, template: &str) -> Option<&CatalogResource> {
        self.templates
            .iter()
            .find(|t| t.published == template || t.def.uri == template)
    }

    /// `tools/list` pages.
    pub fn tool_listing(&self) -> Listing {
        Listing::new(
            self.tools
                .iter()
                .map(|t| (t.def.name, Listed::Tool(t.def), &t.tool)),
            self.page_size,
        )
    }

    /// `resources/list` pages.
    pub fn resource_listing(&self) -> Listing {
        Listing::new(
            self.resources
                .iter()
                .map(|r| (r.published.as_str(), Listed::Resource(r.def), &r.entry)),
            self.page_size,
        )
    }

    /// `resources/templates/list` pages.
    pub fn template_listing(&self) -> Listing {
        Listing::new(
            self.templates
                .iter()
                .map(|r| (r.published.as_str(), Listed::Template(r.def), &r.entry)),
            self.page_size,
        )
    }

    /// `prompts/list` pages.
    pub fn prompt_listing(&self) -> Listing {
        Listing::new(
            self.prompts
                .iter()
                .map(|p| (p.def.name, Listed::Prompt(p.def), &p.prompt)),
            self.page_size,
        )
    }
}

/// The MCP Apps rules between items, checked once the catalog is known (the macros check
/// each item alone): a `#[tool]`'s `ui` names a view this server serves (a `#[view]` left
/// out by `only_module`, say, would leave the host a URI it cannot read); a tool that
/// continues another's pages takes a cursor, and so does the tool it names.
fn check_views(tools: &[CatalogTool], resources: &[CatalogResource]) -> Vec<BuildError> {
    let mut errors = Vec::new();
    for tool in tools {
        let mut problems = Vec::new();
        // A tool added at run time publishes its `_meta` as given: a gateway's upstream
        // serves the view itself, and may leave it out of its `resources/list`.
        if let Some(uri) = tool.def.ui.filter(|_| tool.dynamic.is_none()) {
            let served = resources
                .iter()
                .any(|r| r.def.uri == uri && r.def.view.is_some());
            if !served {
                problems.push(format!(
                    "its `ui` names the view `{uri}`, which this server does not serve: declare it with #[view(\"{uri}\")] (and keep it in the server's selection)"
                ));
            }
        }
        if let Some(other) = tool.def.continues {
            match tools.iter().find(|t| t.def.name == other) {
                None => problems.push(format!(
                    "it continues the pages of `{other}`, which this server does not serve"
                )),
                Some(t) if !t.paged || !tool.paged => problems.push(format!(
                    "it continues the pages of `{other}`: both tools take a `Cursor` parameter"
                )),
                Some(_) => {}
            }
        }
        if !problems.is_empty() {
            errors.push(BuildError::InvalidTool {
                name: tool.def.name.to_owned(),
                problems,
            });
        }
    }
    errors
}

fn check_states(
    spec: &ParamSpec,
    item: &str,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
) -> Result<(), Vec<BuildError>> {
    let missing: Vec<BuildError> = spec
        .states()
        .iter()
        .filter(|(type_id, _)| !has_state(*type_id))
        .map(|(_, type_name)| BuildError::MissingState {
            item: item.to_owned(),
            type_name: (*type_name).to_owned(),
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

fn annotations(def: &ResourceDef) -> Option<Annotations> {
    if def.audience.is_none() && def.priority.is_none() {
        return None;
    }
    Some(Annotations {
        audience: def.audience.map(<[_]>::to_vec),
        priority: def.priority,
        last_modified: None,
    })
}

fn static_entry(def: &'static ResourceDef) -> CatalogResource {
    let resource = Resource {
        uri: def.uri.to_owned(),
        name: def.name.to_owned(),
        title: def.title.map(str::to_owned),
        description: def.description.map(str::to_owned),
        // A view is HTML for the MCP Apps host, whatever the function returns.
        mime_type: def
            .view
            .map(|_| crate::protocol::extensions::UI_MIME)
            .or(def.mime)
            .map(str::to_owned),
        size: def.size,
        annotations: annotations(def),
        meta: def.view.map(|view| view.meta()),
    };
    CatalogResource {
        def,
        published: def.uri.to_owned(),
        entry: serde_json::to_value(resource).unwrap_or(Value::Null),
        private: reads_vary_by_caller(def),
        dynamic: None,
    }
}

fn template_entry(def: &'static ResourceDef) -> CatalogResource {
    let published = uri::rfc6570(def.template);
    let template = ResourceTemplate {
        uri_template: published.clone(),
        name: def.name.to_owned(),
        title: def.title.map(str::to_owned),
        description: def.description.map(str::to_owned),
        mime_type: def.mime.map(str::to_owned),
        annotations: annotations(def),
    };
    CatalogResource {
        def,
        published,
        entry: serde_json::to_value(template).unwrap_or(Value::Null),
        private: reads_vary_by_caller(def),
        dynamic: None,
    }
}

fn prepare_prompt(
    def: &'static PromptDef,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
) -> Result<CatalogPrompt, Vec<BuildError>> {
    let item = format!("prompt `{}`", def.name);
    let mut spec = ParamSpec::default();
    (def.params)(&mut spec);
    check_states(&spec, &item, has_state)?;
    let arguments = spec.finish_prompt().map_err(|problems| {
        vec![BuildError::InvalidItem {
            item: item.clone(),
            problems,
        }]
    })?;
    Ok(CatalogPrompt {
        def,
        prompt: Prompt {
            name: def.name.to_owned(),
            title: def.title.map(str::to_owned),
            description: def.description.map(str::to_owned),
            arguments,
        },
        dynamic: None,
    })
}

fn prepare(
    def: &'static ToolDef,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
    server_inline_limit: Option<usize>,
) -> Result<CatalogTool, Vec<BuildError>> {
    let invalid = |problems: Vec<String>| {
        vec![BuildError::InvalidTool {
            name: def.name.to_owned(),
            problems,
        }]
    };
    let mut spec = ParamSpec::default();
    (def.params)(&mut spec);
    let states = check_states(&spec, &format!("tool `{}`", def.name), has_state);
    let paged = spec.paged();
    let input_schema = spec.finish().map_err(invalid)?;
    states?;
    let mirrored = mirror::scan(&input_schema).map_err(invalid)?;
    let validator = ArgValidator::compile(&input_schema)
        .map_err(|e| invalid(vec![format!("its input schema does not compile: {e}")]))?;
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
        .resolve(server_inline_limit)
        .filter(|_| !scalar);
    let output_schema = output_schema(
        success,
        errors,
        def.idempotency,
        inline_limit.is_some(),
        &mut gen,
    );
    if let Some(schema) = &output_schema {
        // A published schema must be valid in its dialect; compiling it checks that.
        ArgValidator::compile(schema)
            .map_err(|e| invalid(vec![format!("its output schema does not compile: {e}")]))?;
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
        meta: super::view::tool_meta(def.ui, def.visibility),
    };
    Ok(CatalogTool {
        def,
        tool,
        validator,
        mirrored,
        paged,
        inline_limit,
        dynamic: None,
    })
}

/// A tool added at run time: its schemas as given, compiled (the output schema only to
/// check it is one), its `x-mcp-header` arguments found as for a `#[tool]`.
fn prepare_dynamic(dynamic: &DynamicTool) -> Result<CatalogTool, Vec<BuildError>> {
    let invalid = |problems: Vec<String>| {
        vec![BuildError::InvalidTool {
            name: dynamic.tool.name.clone(),
            problems,
        }]
    };
    let mirrored = mirror::scan(&dynamic.tool.input_schema).map_err(invalid)?;
    let validator = ArgValidator::compile(&dynamic.tool.input_schema)
        .map_err(|e| invalid(vec![format!("its input schema does not compile: {e}")]))?;
    if let Some(schema) = &dynamic.tool.output_schema {
        ArgValidator::compile(schema)
            .map_err(|e| invalid(vec![format!("its output schema does not compile: {e}")]))?;
    }
    Ok(CatalogTool {
        def: dynamic.def,
        tool: dynamic.tool.clone(),
        validator,
        mirrored,
        paged: false,
        inline_limit: None,
        dynamic: Some(dynamic.call.clone()),
    })
}
