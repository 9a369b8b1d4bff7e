//! Rules between a resource's URI template, its parameters and its completers, checked at
//! compile time: every variable has a parameter of its name and the other way round, and
//! every completer names a variable.

use super::model::Model;
use crate::errors::Errors;
use crate::options::inner_span;
use crate::sig::Param;
use crate::uri;

/// Variables against parameters (in both directions), then completers against variables.
pub fn check(model: &Model, errors: &mut Errors) {
    let vars: Vec<(&str, &std::ops::Range<usize>)> =
        model.pieces.iter().filter_map(uri::Piece::var).collect();
    let params: Vec<&Param> = model.params.iter().map(|(p, _)| p).collect();
    check_variables(model, &vars, &params, errors);
    check_completers(model, &vars, errors);
}

fn check_variables(
    model: &Model,
    vars: &[(&str, &std::ops::Range<usize>)],
    params: &[&Param],
    errors: &mut Errors,
) {
    let uri = &model.uri;
    let unmatched_params: Vec<&Param> = params
        .iter()
        .copied()
        .filter(|p| !vars.iter().any(|(v, _)| *v == p.name))
        .collect();
    for (var, range) in vars {
        if params.iter().any(|p| p.name == *var) {
            continue;
        }
        let others = if unmatched_params.is_empty() {
            "the function has no parameter of that name".to_owned()
        } else {
            format!(
                "the function has no parameter `{var}` (parameters not in the template: {})",
                unmatched_params
                    .iter()
                    .map(|p| format!("`{}`", p.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        errors.span(
            inner_span(&model.template, (*range).clone()),
            format!(
                "URI variable `{var}` has no matching parameter: {others}{}",
                uri::caret(uri, range)
            ),
        );
    }
    let unmatched_vars: Vec<&str> = vars
        .iter()
        .map(|(v, _)| *v)
        .filter(|v| !params.iter().any(|p| p.name == *v))
        .collect();
    // A parameter outside the template is an extractor, unless a variable lacks its
    // parameter: then the two were most likely meant to match.
    if !unmatched_vars.is_empty() {
        for p in &unmatched_params {
            errors.span(
                p.ident_span,
                format!(
                    "parameter `{}` matches no variable of the URI template \"{uri}\" (variables without a parameter: {}); rename one so they match",
                    p.name,
                    unmatched_vars.iter().map(|v| format!("`<{v}>`")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
}

fn check_completers(model: &Model, vars: &[(&str, &std::ops::Range<usize>)], errors: &mut Errors) {
    for (key, _) in &model.completers {
        if !vars.iter().any(|(v, _)| key == v) {
            errors.at(
                key,
                format!(
                    "`{key}` is not a variable of the URI template \"{}\"{}",
                    model.uri,
                    if vars.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (variables: {})",
                            vars.iter()
                                .map(|(v, _)| format!("`{v}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ),
            );
        }
    }
}
