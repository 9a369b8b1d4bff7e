//! What the curation file decides, applied to the mapped operations: their names, and per
//! operation and argument what the team changed.

use crate::curation::{self, Curation, OperationCuration};
use crate::model::{Hidden, Operation, Placement};
use crate::names;
use crate::Error;

/// Tool names: from the curation, else the `operationId` or the route, unique.
pub(super) fn name_tools(operations: &mut [Operation], curation: &Curation) {
    let mut taken: Vec<String> = Vec::new();
    for operation in operations.iter_mut() {
        let curated = curated(curation, operation).and_then(|c| c.name.clone());
        let base = curated.unwrap_or_else(|| {
            let name = names::tool_name(
                operation.operation_id.as_deref(),
                operation.method,
                &operation.path,
            );
            match operation
                .tags
                .first()
                .filter(|_| curation.select.tag_prefix)
            {
                Some(tag) => names::tool_name(
                    Some(&format!("{tag}_{name}")),
                    operation.method,
                    &operation.path,
                ),
                None => name,
            }
        });
        let name = names::unique(&base, names::MAX_TOOL_NAME, |n| {
            taken.iter().any(|t| t == n)
        });
        taken.push(name.clone());
        operation.tool = name;
    }
}

/// The curation of an operation, by `operationId` or by the tool name the mapping gave.
pub(super) fn curated<'c>(
    curation: &'c Curation,
    operation: &Operation,
) -> Option<&'c OperationCuration> {
    operation
        .operation_id
        .as_ref()
        .and_then(|id| curation.operations.get(id))
        .or_else(|| curation.operations.get(&operation.tool))
}

/// What the curation file decides per operation. A name it gives that the document does
/// not have is an error: a typo would otherwise be silently ignored.
pub(super) fn apply(operations: &mut [Operation], curation: &Curation) -> Result<(), Error> {
    for key in curation.operations.keys() {
        let known = operations
            .iter()
            .any(|o| o.operation_id.as_deref() == Some(key) || &o.tool == key);
        if !known {
            return Err(Error::Curation(format!(
                "mcp-openapi.toml curates the operation `{key}`, which is not among the selected operations (by operationId or tool name)"
            )));
        }
    }
    for operation in operations.iter_mut() {
        let Some(decided) = curated(curation, operation).cloned() else {
            continue;
        };
        if let Some(name) = &decided.name {
            let valid = !name.is_empty()
                && name.len() <= 128
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !valid {
                return Err(Error::Curation(format!(
                    "tool name `{name}` for `{}`: use 1 to 128 letters, digits, `_`, `-` or `.`",
                    operation.label()
                )));
            }
        }
        if let Some(description) = decided.description {
            operation.description = description;
        }
        if let Some(confirm) = decided.confirm {
            operation.confirm = confirm;
        }
        if let Some(idempotency) = decided.idempotency {
            operation.idempotency = idempotency;
        }
        if let Some(mut scopes) = decided.scopes {
            let mut seen = std::collections::BTreeSet::new();
            scopes.retain(|scope| seen.insert(scope.clone()));
            operation.scopes = scopes;
        }
        if decided.pages == Some(false) {
            operation.pagination = None;
        }
        for (name, argument) in &decided.arguments {
            curate_argument(operation, name, argument)?;
        }
        // A paging parameter given a value of its own, or an argument renamed to the
        // framework's `cursor`, leaves the API's paging to the arguments.
        let clash = operation.pagination.as_ref().is_some_and(|pagination| {
            operation.params.iter().any(|p| {
                (p.name == pagination.param() && p.hidden.is_some())
                    || (p.name != pagination.param()
                        && p.hidden.is_none()
                        && p.argument == "cursor")
            })
        });
        if clash {
            operation.pagination = None;
        }
    }
    Ok(())
}

pub(super) fn curate_argument(
    operation: &mut Operation,
    name: &str,
    decided: &curation::ArgumentCuration,
) -> Result<(), Error> {
    let label = operation.label();
    let hidden = match (&decided.fixed, decided.from) {
        (Some(_), Some(_)) => {
            return Err(Error::Curation(format!(
                "argument `{name}` of `{label}`: `fixed` and `from` exclude each other"
            )))
        }
        (Some(value), None) => Some(Hidden::Fixed(value.clone())),
        (None, Some(curation::From::Tenant)) => Some(Hidden::Tenant),
        (None, Some(curation::From::Principal)) => Some(Hidden::Principal),
        (None, None) => None,
    };
    if let Some(rename) = &decided.rename {
        let valid = rename.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && rename.len() <= 64
            && rename
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !valid {
            return Err(Error::Curation(format!("argument `{name}` of `{label}`: `{rename}` is not a name an argument can have (a letter or `_`, then letters, digits, `_`, `-` or `.`; at most 64)")));
        }
        let field = names::field(rename);
        let taken = operation
            .params
            .iter()
            .any(|p| (p.argument == *rename || p.field == field) && p.name != name);
        if taken {
            return Err(Error::Curation(format!(
                "argument `{name}` of `{label}`: another argument is already called `{rename}`"
            )));
        }
    }
    if let Some(param) = operation.params.iter_mut().find(|p| p.name == name) {
        if let Some(rename) = &decided.rename {
            param.argument = rename.clone();
            param.field = names::field(rename);
        }
        if let Some(description) = &decided.description {
            param.description = Some(description.clone());
        }
        if hidden.is_some() {
            param.hidden = hidden;
        }
        return Ok(());
    }
    match (&mut operation.body, name) {
        (Some(body), "body") => {
            if hidden.is_some() {
                return Err(Error::Curation(format!("the body of `{label}` cannot be hidden")));
            }
            if let (Some(rename), Placement::Argument(argument)) = (&decided.rename, &mut body.placement) {
                *argument = rename.clone();
            }
            if let Some(description) = &decided.description {
                body.description = Some(description.clone());
            }
            Ok(())
        }
        _ => Err(Error::Curation(format!(
            "mcp-openapi.toml curates the argument `{name}` of `{label}`, which has no parameter of that name (or `body`)"
        ))),
    }
}
