//! The catalog: every served tool, checked, sorted and ready to list, built once at start.

use std::collections::HashMap;

use serde_json::Value;

use crate::protocol::{Tool, ToolAnnotations};
use crate::validate::ArgValidator;

use super::spec::{finish_output, generator};
use super::{ParamSpec, ToolDef};

/// A problem with the set of tools or the server's configuration, found at start.
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
    /// A tool takes `State<T>` but no `T` was given to `Server::state`.
    MissingState {
        /// The tool.
        tool: String,
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
            BuildError::MissingState { tool, type_name } => write!(
                f,
                "tool `{tool}` takes State<{type_name}>, but the server has no {type_name}: call Server::state(..) with one"
            ),
            BuildError::Config(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for BuildError {}

/// One tool as served: its definition, wire form and compiled argument validator.
pub struct CatalogTool {
    /// What the macro emitted.
    pub def: &'static ToolDef,
    /// The `tools/list` entry.
    pub tool: Tool,
    /// Compiled validator for the input schema.
    pub validator: ArgValidator,
}

/// The served tools, sorted by name, with `tools/list` pages serialized ahead of time.
pub struct Catalog {
    tools: Vec<CatalogTool>,
    index: HashMap<&'static str, usize>,
    pages: Vec<Value>,
}

impl Catalog {
    /// Check and prepare `defs`. `has_state` answers whether a state type was registered.
    pub fn build(
        defs: Vec<&'static ToolDef>,
        page_size: usize,
        has_state: &dyn Fn(std::any::TypeId) -> bool,
    ) -> Result<Catalog, Vec<BuildError>> {
        let mut errors = Vec::new();
        let mut by_name: HashMap<&'static str, Vec<&'static ToolDef>> = HashMap::new();
        for def in &defs {
            by_name.entry(def.name).or_default().push(def);
        }
        let mut tools = Vec::new();
        let mut names: Vec<&&'static str> = by_name.keys().collect();
        names.sort();
        for name in names {
            let same = &by_name[*name];
            if same.len() > 1 {
                errors.push(BuildError::DuplicateTool {
                    name: name.to_string(),
                    places: same
                        .iter()
                        .map(|d| format!("{} ({}:{})", d.module_path, d.file, d.line))
                        .collect(),
                });
                continue;
            }
            match prepare(same[0], has_state) {
                Ok(tool) => tools.push(tool),
                Err(e) => errors.extend(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        tools.sort_by(|a, b| a.def.name.cmp(b.def.name));
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.def.name, i))
            .collect();
        let page_size = page_size.max(1);
        let mut pages: Vec<Value> = tools
            .chunks(page_size)
            .map(|chunk| {
                Value::Array(
                    chunk
                        .iter()
                        .map(|t| serde_json::to_value(&t.tool).unwrap_or(Value::Null))
                        .collect(),
                )
            })
            .collect();
        if pages.is_empty() {
            pages.push(Value::Array(Vec::new()));
        }
        Ok(Catalog {
            tools,
            index,
            pages,
        })
    }

    /// Look a tool up by wire name.
    pub fn get(&self, name: &str) -> Option<&CatalogTool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// All tools, sorted by name.
    pub fn tools(&self) -> &[CatalogTool] {
        &self.tools
    }

    /// Number of `tools/list` pages (at least one, possibly empty).
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The serialized `tools` array of page `index`.
    pub fn page(&self, index: usize) -> Option<&Value> {
        self.pages.get(index)
    }

    /// A fingerprint of the listed tools, so a cursor from another tool set is refused.
    pub fn fingerprint(&self) -> u64 {
        // FNV-1a over the names: stable across processes, unlike std's RandomState.
        let mut hash: u64 = 0xcbf29ce484222325;
        for tool in &self.tools {
            for byte in tool.def.name.bytes().chain(std::iter::once(0)) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x100000001b3);
            }
        }
        hash
    }
}

fn prepare(
    def: &'static ToolDef,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
) -> Result<CatalogTool, Vec<BuildError>> {
    let invalid = |problems: Vec<String>| {
        vec![BuildError::InvalidTool {
            name: def.name.to_owned(),
            problems,
        }]
    };
    let mut spec = ParamSpec::default();
    (def.params)(&mut spec);
    let mut errors = Vec::new();
    for (type_id, type_name) in spec.states() {
        if !has_state(*type_id) {
            errors.push(BuildError::MissingState {
                tool: def.name.to_owned(),
                type_name: (*type_name).to_owned(),
            });
        }
    }
    let input_schema = spec.finish().map_err(invalid)?;
    if !errors.is_empty() {
        return Err(errors);
    }
    let validator = ArgValidator::compile(&input_schema)
        .map_err(|e| invalid(vec![format!("its input schema does not compile: {e}")]))?;
    let mut gen = generator();
    let output_schema = (def.output_schema)(&mut gen).map(|s| finish_output(s, &mut gen));
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
    };
    Ok(CatalogTool {
        def,
        tool,
        validator,
    })
}
