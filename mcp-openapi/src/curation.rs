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
//! # The API is called as the MCP caller: with a token for its audience, exchanged for the
//! # caller's own (RFC 8693); or `account = "calendar"`, the caller's connected account.
//! [as_caller]
//! audience = "https://inventory.example.com"
//! scopes = ["inventory:read"]
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
    /// Call the API as the MCP caller instead of with this deployment's credentials.
    #[serde(default)]
    pub as_caller: Option<AsCaller>,
}

/// How the tools get a token to call the API as their caller: exactly one of `audience`
/// (token exchange, with `scopes`) and `account` (a connected account).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AsCaller {
    /// The API's audience: a token for it is exchanged for the caller's own.
    pub audience: Option<String>,
    /// The scopes the exchanged token asks for.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The provider of the caller's connected account.
    pub account: Option<String>,
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

    /// How the API is called as the caller, when the file says so.
    pub(crate) fn caller(&self) -> Result<Option<crate::model::Caller>, Error> {
        let Some(as_caller) = &self.as_caller else {
            return Ok(None);
        };
        let text = |value: &Option<String>| {
            value
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        match (text(&as_caller.audience), text(&as_caller.account)) {
            (Some(audience), None) => Ok(Some(crate::model::Caller::Exchange {
                audience,
                scopes: as_caller.scopes.clone(),
            })),
            (None, Some(provider)) if as_caller.scopes.is_empty() => {
                Ok(Some(crate::model::Caller::Account { provider }))
            }
            (None, Some(_)) => Err(Error::Curation(
                "[as_caller]: `scopes` go with `audience` (token exchange); a connected account's scopes are its provider's".into(),
            )),
            _ => Err(Error::Curation(
                "[as_caller] needs exactly one of `audience` (token exchange) and `account` (a connected account)".into(),
            )),
        }
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
    fn as_caller_is_an_exchange_or_an_account() {
        use crate::model::Caller;
        let exchange = Curation::from_toml(
            "[as_caller]\naudience = \"https://api.test\"\nscopes = [\"read\"]\n",
        )
        .unwrap();
        assert_eq!(
            exchange.caller().unwrap(),
            Some(Caller::Exchange {
                audience: "https://api.test".into(),
                scopes: vec!["read".into()]
            })
        );
        let account = Curation::from_toml("[as_caller]\naccount = \"calendar\"\n").unwrap();
        assert_eq!(
            account.caller().unwrap(),
            Some(Caller::Account {
                provider: "calendar".into()
            })
        );
        assert_eq!(Curation::default().caller().unwrap(), None);
        for wrong in [
            "[as_caller]\n",
            "[as_caller]\naudience = \"a\"\naccount = \"b\"\n",
            "[as_caller]\naccount = \"b\"\nscopes = [\"x\"]\n",
        ] {
            let error = Curation::from_toml(wrong).unwrap().caller().unwrap_err();
            assert!(error.to_string().contains("[as_caller]"), "{error}");
        }
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
