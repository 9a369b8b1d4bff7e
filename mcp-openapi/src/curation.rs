//! The curation file, `mcp-openapi.toml`: which operations become tools and how they read,
//! kept apart from the generated code so that it survives regeneration.
//!
//! ```toml
//! # Only these operations (any one of the three lists matching selects one).
//! [select]
//! tags = ["items"]
//! paths = ["/items/**"]
//! operations = ["list_items"]
//! exclude = ["/admin/**"]          # paths or operationIds, after the selection
//! tag_prefix = false              # `items_list` rather than `list`
//!
//! [operations.create_item]           # by operationId (or the tool name the mapping gives)
//! name = "add_item"
//! description = "Add an item to the inventory."
//! confirm = true
//! idempotency = true
//! scopes = ["inventory:write"]
//!
//! [operations.list_items.arguments]
//! perPage = { rename = "page_size", description = "Items per page (1 to 100)." }
//! tenantId = { from = "tenant" }    # hidden: the caller's tenant
//! format = { fixed = "json" }       # hidden: always this value
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::Error;

/// What a team decided about a document's tools.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Curation {
    /// Which operations become tools.
    #[serde(default)]
    pub select: Select,
    /// Per operation, by `operationId` or tool name.
    #[serde(default)]
    pub operations: BTreeMap<String, OperationCuration>,
}

/// Which operations become tools: all, unless a list is given; then those any list matches.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Select {
    /// Operations with one of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Operations whose path matches one of these globs (`*` within a segment, `**` across).
    #[serde(default)]
    pub paths: Vec<String>,
    /// Operations with one of these `operationId`s.
    #[serde(default)]
    pub operations: Vec<String>,
    /// Left out even when selected: path globs or `operationId`s.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Tool names start with the operation's first tag (`items_list`).
    #[serde(default)]
    pub tag_prefix: bool,
}

/// What a team decided about one operation.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OperationCuration {
    /// The tool's name instead of the one the mapping gives.
    pub name: Option<String>,
    /// The description the model reads instead of the document's.
    pub description: Option<String>,
    /// Ask the user to confirm each call (default: `DELETE` operations).
    pub confirm: Option<bool>,
    /// Take a retry key (default: operations with an `Idempotency-Key` header).
    pub idempotency: Option<bool>,
    /// OAuth scopes the caller needs, instead of the document's.
    pub scopes: Option<Vec<String>>,
    /// `false`: the API's paging parameters stay arguments, and the result is its answer,
    /// instead of a page of items the framework's cursor continues (the default where the
    /// mapping recognises paging).
    pub pages: Option<bool>,
    /// Per argument, by the parameter's name in the document (or `body`).
    #[serde(default)]
    pub arguments: BTreeMap<String, ArgumentCuration>,
}

/// What a team decided about one argument.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArgumentCuration {
    /// The argument's name instead of the one the mapping gives.
    pub rename: Option<String>,
    /// Its description instead of the document's.
    pub description: Option<String>,
    /// Hidden from the model: always this value.
    pub fixed: Option<Value>,
    /// Hidden from the model: the value comes from the caller (`tenant` or `principal`).
    pub from: Option<From>,
}

/// Where a hidden argument's value comes from.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum From {
    /// The caller's tenant.
    Tenant,
    /// The caller's principal (subject).
    Principal,
}

impl Curation {
    /// Read a curation file's text.
    pub fn from_toml(text: &str) -> Result<Curation, Error> {
        toml::from_str(text).map_err(|e| Error::Curation(format!("mcp-openapi.toml: {e}")))
    }

    /// Whether the operation is selected.
    pub(crate) fn selects(&self, operation_id: Option<&str>, path: &str, tags: &[String]) -> bool {
        let select = &self.select;
        let listed =
            !select.tags.is_empty() || !select.paths.is_empty() || !select.operations.is_empty();
        let by_id = |ids: &[String]| operation_id.is_some_and(|id| ids.iter().any(|i| i == id));
        let chosen = !listed
            || select.tags.iter().any(|t| tags.contains(t))
            || select.paths.iter().any(|g| path_matches(g, path))
            || by_id(&select.operations);
        let excluded =
            select.exclude.iter().any(|e| path_matches(e, path)) || by_id(&select.exclude);
        chosen && !excluded
    }
}

/// A path glob: `*` matches within one segment, `**` across segments.
fn path_matches(glob: &str, path: &str) -> bool {
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    glob::Pattern::new(&glob.replace(['[', ']'], "?"))
        .map(|pattern| pattern.matches_with(path, options))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_by_tag_path_or_id_minus_exclusions() {
        let curation = Curation::from_toml(
            r#"
            [select]
            tags = ["items"]
            paths = ["/orders/*"]
            exclude = ["/items/admin/**", "drop_all"]
            "#,
        )
        .unwrap();
        let items = ["items".to_owned()];
        assert!(curation.selects(Some("list"), "/items", &items));
        assert!(curation.selects(None, "/orders/{id}", &[]));
        assert!(!curation.selects(None, "/orders/{id}/lines", &[]));
        assert!(!curation.selects(None, "/items/admin/purge/all", &items));
        assert!(!curation.selects(Some("drop_all"), "/items", &items));
        assert!(!curation.selects(None, "/users", &[]));
        assert!(Curation::default().selects(None, "/anything", &[]));
    }

    #[test]
    fn a_misspelt_key_is_an_error_naming_it() {
        let error = Curation::from_toml("[operations.list]\nconfirmm = true\n").unwrap_err();
        assert!(error.to_string().contains("confirmm"), "{error}");
        let error =
            Curation::from_toml("[operations.list.arguments.x]\nfrom = \"moon\"\n").unwrap_err();
        assert!(error.to_string().contains("moon"), "{error}");
    }
}
