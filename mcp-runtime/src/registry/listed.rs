//! One item of the catalog as a visibility rule sees it (see `Server::visible_if`): the
//! definition behind the entry, so a rule can look at its name, tags, version and
//! declared scopes.

use super::{PromptDef, ResourceDef, ToolDef};

/// One item of the catalog, as a visibility rule sees it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Listed<'a> {
    /// A tool of `tools/list`.
    Tool(&'a ToolDef),
    /// A resource of `resources/list`.
    Resource(&'a ResourceDef),
    /// A resource template of `resources/templates/list`.
    Template(&'a ResourceDef),
    /// A prompt of `prompts/list`.
    Prompt(&'a PromptDef),
}

impl Listed<'_> {
    /// Its name (a tool's or prompt's), or its URI (a resource's) or URI template as
    /// written in the attribute.
    pub fn name(&self) -> &'static str {
        match self {
            Listed::Tool(tool) => tool.name,
            Listed::Resource(resource) | Listed::Template(resource) => resource.uri,
            Listed::Prompt(prompt) => prompt.name,
        }
    }

    /// Its tags (`tags(..)`).
    pub fn tags(&self) -> &'static [&'static str] {
        match self {
            Listed::Tool(tool) => tool.tags,
            Listed::Resource(resource) | Listed::Template(resource) => resource.tags,
            Listed::Prompt(prompt) => prompt.tags,
        }
    }

    /// A tool's version (`version = ".."`), when it declares one.
    pub fn version(&self) -> Option<&'static str> {
        match self {
            Listed::Tool(tool) => tool.version,
            _ => None,
        }
    }

    /// The scopes the entry declares.
    pub fn required_scopes(&self) -> &'static [&'static str] {
        match self {
            Listed::Tool(tool) => tool.scopes,
            Listed::Resource(resource) | Listed::Template(resource) => resource.scopes,
            Listed::Prompt(prompt) => prompt.scopes,
        }
    }
}
