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
            BuildError::DuplicateTool { name, places } => {
                defined_twice(f, format_args!("tool name `{name}`"), places, RENAME_TOOL)
            }
            BuildError::InvalidTool { name, problems } => {
                unusable(f, format_args!("tool `{name}`"), problems)
            }
            BuildError::DuplicateResource { uri, places } => {
                defined_twice(f, format_args!("resource URI `{uri}`"), places, "")
            }
            BuildError::OverlappingTemplates { templates, places } => write!(
                f,
                "resource templates `{}` ({}) and `{}` ({}) can match the same URI, so a read would be ambiguous; make one more specific",
                templates[0], places[0], templates[1], places[1]
            ),
            BuildError::DuplicatePrompt { name, places } => {
                defined_twice(f, format_args!("prompt name `{name}`"), places, RENAME_PROMPT)
            }
            BuildError::InvalidItem { item, problems } => {
                unusable(f, format_args!("{item}"), problems)
            }
            BuildError::MissingState { item, type_name } => write!(
                f,
                "{item} takes State<{type_name}>, but the server has no {type_name}: call Server::state(..) with one"
            ),
            BuildError::Config(message) => f.write_str(message),
        }
    }
}

/// What to do about a tool name defined twice.
const RENAME_TOOL: &str =
    "; rename one with #[tool(name = \"..\")] or leave one out with Server::only";

/// What to do about a prompt name defined twice.
const RENAME_PROMPT: &str = "; rename one with #[prompt(name = \"..\")]";

/// `what` is defined at each of `places`; `hint` says what to do about it.
fn defined_twice(
    f: &mut std::fmt::Formatter<'_>,
    what: std::fmt::Arguments<'_>,
    places: &[String],
    hint: &str,
) -> std::fmt::Result {
    write!(
        f,
        "{what} is defined more than once: {}{hint}",
        places.join(" and ")
    )
}

/// `what` cannot be served, for `problems`.
fn unusable(
    f: &mut std::fmt::Formatter<'_>,
    what: std::fmt::Arguments<'_>,
    problems: &[String],
) -> std::fmt::Result {
    write!(f, "{what} cannot be served: {}", problems.join("; "))
}

impl std::error::Error for BuildError {}
