//! What stops a server at start: duplicate names, overlapping URI templates, schemas that
//! do not compile, settings that contradict each other; each says which item and why.

/// A problem with the set of tools, resources and prompts or the server's configuration,
/// found at start.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildError {
    /// Two tools, possibly in different crates, share a wire name.
    DuplicateTool {
        /// The shared name.
        name: String,
        /// `module (file:line)` of each definition.
        places: Vec<String>,
    },
    /// A tool's parameters or schema are unusable.
    InvalidTool {
        /// The tool.
        name: String,
        /// What is wrong.
        problems: Vec<String>,
    },
    /// Two static resources share a URI.
    DuplicateResource {
        /// The shared URI.
        uri: String,
        /// `module (file:line)` of each definition.
        places: Vec<String>,
    },
    /// Two resource templates (or a template and itself) can match the same URI.
    OverlappingTemplates {
        /// The two templates as written.
        templates: [String; 2],
        /// `module (file:line)` of each definition.
        places: [String; 2],
    },
    /// Two prompts share a name.
    DuplicatePrompt {
        /// The shared name.
        name: String,
        /// `module (file:line)` of each definition.
        places: Vec<String>,
    },
    /// A prompt's or resource's parameters are unusable.
    InvalidItem {
        /// `prompt `x`` or `resource `uri``.
        item: String,
        /// What is wrong.
        problems: Vec<String>,
    },
    /// An item takes `State<T>` but no `T` was given to `Server::state`.
    MissingState {
        /// What needs it: ``tool `add` ``, ``prompt `review` ``, ``resource `db://<t>` ``.
        item: String,
        /// The state type.
        type_name: String,
    },
    /// Another configuration problem.
    Config(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::DuplicateTool { name, places } => write!(
                f,
                "tool name `{name}` is defined more than once: {}; rename one with #[tool(name = \"..\")] or leave one out with Server::only",
                places.join(" and ")
            ),
            BuildError::InvalidTool { name, problems } => {
                write!(f, "tool `{name}` cannot be served: {}", problems.join("; "))
            }
            BuildError::DuplicateResource { uri, places } => write!(
                f,
                "resource URI `{uri}` is defined more than once: {}",
                places.join(" and ")
            ),
            BuildError::OverlappingTemplates { templates, places } => write!(
                f,
                "resource templates `{}` ({}) and `{}` ({}) can match the same URI, so a read would be ambiguous; make one more specific",
                templates[0], places[0], templates[1], places[1]
            ),
            BuildError::DuplicatePrompt { name, places } => write!(
                f,
                "prompt name `{name}` is defined more than once: {}; rename one with #[prompt(name = \"..\")]",
                places.join(" and ")
            ),
            BuildError::InvalidItem { item, problems } => {
                write!(f, "{item} cannot be served: {}", problems.join("; "))
            }
            BuildError::MissingState { item, type_name } => write!(
                f,
                "{item} takes State<{type_name}>, but the server has no {type_name}: call Server::state(..) with one"
            ),
            BuildError::Config(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for BuildError {}
