//! The catalog: every served tool, resource and prompt, checked, sorted and ready to list,
//! built once at start.
//!
//! Each case is built in a file of its own: `tools` (from `#[tool]` and `tool_from_json`),
//! `resources` (static resources and templates) and `prompts`; `checks` holds what they
//! share, and the rules between items (a tool's view is served, continued pages). This
//! file joins them, and looks items up and lists them.

use std::collections::HashMap;
use std::sync::Arc;

pub use super::build_error::BuildError;
pub use super::listing::{ListPage, Listing};
use super::Listed;

use super::dynamic::{DynamicPrompt, DynamicResource, DynamicTool};
use super::{uri, ParamSpec, PromptDef, ResourceDef, ToolDef};

mod checks;
mod prompts;
mod resources;
mod tools;
pub(crate) mod versions;

pub use prompts::CatalogPrompt;
pub use resources::CatalogResource;
use tools::Budgets;
pub use tools::CatalogTool;

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
    /// Tags whose tools, resources and prompts are not served (`Server::disable_tags`).
    pub(crate) disabled_tags: Vec<String>,
}

impl Defs {
    /// These definitions without those that carry a disabled tag.
    fn enabled(mut self) -> Defs {
        if self.disabled_tags.is_empty() {
            return self;
        }
        let disabled = std::mem::take(&mut self.disabled_tags);
        let on = |tags: &[&str]| !tags.iter().any(|tag| disabled.iter().any(|d| d == tag));
        self.tools.retain(|t| on(t.tags));
        self.dynamic.retain(|t| on(t.def.tags));
        self.resources.retain(|r| on(r.tags));
        self.dynamic_resources.retain(|r| on(r.def.tags));
        self.prompts.retain(|p| on(p.tags));
        self.dynamic_prompts.retain(|p| on(p.def.tags));
        self.disabled_tags = disabled;
        self
    }
}

/// Everything served, checked and sorted, built once at start.
pub struct Catalog {
    tools: Vec<CatalogTool>,
    /// Older versions of versioned tools, by name then version (highest first).
    older: Vec<CatalogTool>,
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

impl Catalog {
    /// Check and prepare `defs`. `has_state` answers whether a state type was registered.
    pub fn build(
        defs: Defs,
        page_size: usize,
        has_state: &dyn Fn(std::any::TypeId) -> bool,
        inline_limit: Option<usize>,
        output_schema_bytes: usize,
    ) -> Result<Catalog, Vec<BuildError>> {
        let defs = defs.enabled();
        let mut errors = Vec::new();
        let prepared = tools::tools(
            &defs,
            has_state,
            Budgets {
                inline_limit,
                output_schema_bytes,
            },
            &mut errors,
        );
        // Served under their names, and the older versions of versioned names.
        let (tools, older) = versions::split(prepared, &mut errors);
        let (resources, templates) = resources::resources(&defs, has_state, &mut errors);
        let prompts = prompts::prompts(&defs, has_state, &mut errors);
        errors.extend(check_views(&tools, &resources));

        if !errors.is_empty() {
            return Err(errors);
        }
        let resource_index = resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.published.clone(), i))
            .collect();
        let logs = |params| ParamSpec::of(params).logs();
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
            older,
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

    /// The version `version` of the tool `name`: the one served under the name, or an
    /// older one (a call pins it), with the version served under the name when the one
    /// found is older.
    pub(crate) fn tool_version(
        &self,
        name: &str,
        version: &str,
    ) -> Option<(&CatalogTool, Option<&'static str>)> {
        let same = |tool: &&CatalogTool| {
            tool.def.name == name
                && tool
                    .def
                    .version
                    .is_some_and(|v| versions::compare(v, version).is_eq())
        };
        let current = self.get(name)?;
        if same(&current) {
            return Some((current, None));
        }
        self.older
            .iter()
            .find(same)
            .map(|older| (older, current.def.version))
    }

    /// The versions of the tool `name`, the one served under the name first.
    pub(crate) fn versions_of(&self, name: &str) -> Vec<&'static str> {
        self.get(name)
            .into_iter()
            .chain(self.older.iter().filter(|t| t.def.name == name))
            .filter_map(|t| t.def.version)
            .collect()
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
