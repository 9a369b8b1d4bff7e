//! One entry of a list result as a list filter sees it (see `Server::list_filter`): the
//! definition behind the entry, so a filter can look at its name and declared scopes.

use super::{PromptDef, ResourceDef, ToolDef};

/// One entry of a list result, as a list filter sees it.
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
    /// The scopes the entry declares.
    pub fn required_scopes(&self) -> &'static [&'static str] {
        match self {
            Listed::Tool(tool) => tool.scopes,
            Listed::Resource(resource) | Listed::Template(resource) => resource.scopes,
            Listed::Prompt(prompt) => prompt.scopes,
        }
    }
}
