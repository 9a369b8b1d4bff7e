//! `completion/complete`: resolve the reference, authorize, run the completer, bound it.

use serde_json::{json, Map, Value};

use crate::policy::auth::{Action, CompletionTarget};
use crate::protocol::RpcError;
use crate::registry::uri::Piece;
use crate::registry::Completer;
use crate::registry::Listed;

use super::super::dispatch::{Call, Core, Reply};
use super::super::CompletionRequest;
use super::params::unknown_name;

impl Core {
    pub(crate) async fn complete(&self, call: Call) -> Reply {
        let Call {
            ctx,
            params,
            target,
        } = call;
        let snapshot = target.snapshot();
        let reference = params.get("ref").and_then(Value::as_object);
        let argument = params.get("argument").and_then(Value::as_object);
        let (Some(reference), Some(argument)) = (reference, argument) else {
            return Reply::Error(RpcError::invalid_params(
                "completion/complete needs params.ref ({type, name|uri}) and params.argument ({name, value})",
            ));
        };
        let (Some(arg_name), Some(value)) = (
            argument.get("name").and_then(Value::as_str),
            argument.get("value").and_then(Value::as_str),
        ) else {
            return Reply::Error(RpcError::invalid_params(
                "params.argument needs string fields name and value",
            ));
        };
        let (completers, known, target): (&[Completer], Vec<&str>, CompletionTarget<'_>) =
            match reference.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => {
                    let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
                    let Some(prompt) = snapshot
                        .catalog
                        .prompt(name)
                        .filter(|p| self.sees(&ctx, &Listed::Prompt(p.def)))
                    else {
                        return unknown_name("prompt", name);
                    };
                    (
                        prompt.def.completions,
                        prompt
                            .prompt
                            .arguments
                            .iter()
                            .map(|a| a.name.as_str())
                            .collect(),
                        CompletionTarget::Prompt(prompt.def),
                    )
                }
                Some("ref/resource") => {
                    let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
                    let Some(template) = snapshot
                        .catalog
                        .template(uri)
                        .filter(|t| self.sees(&ctx, &Listed::Template(t.def)))
                    else {
                        return Reply::Error(
                            RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                                .with_data(json!({ "uri": uri })),
                        );
                    };
                    (
                        template.def.completions,
                        template
                            .def
                            .template
                            .iter()
                            .filter_map(|p| match p {
                                Piece::Segment(n) | Piece::Rest(n) => Some(*n),
                                Piece::Literal(_) => None,
                            })
                            .collect(),
                        CompletionTarget::Resource(template.def),
                    )
                }
                _ => {
                    return Reply::Error(RpcError::invalid_params(
                        "params.ref.type must be \"ref/prompt\" or \"ref/resource\"",
                    ))
                }
            };
        if !known.contains(&arg_name) {
            return Reply::Error(
                RpcError::invalid_params(if known.is_empty() {
                    format!("`{arg_name}` is not an argument here: there are none to complete")
                } else {
                    format!(
                        "`{arg_name}` is not an argument here (arguments: {})",
                        known.join(", ")
                    )
                })
                .with_data(json!({ "argument": arg_name })),
            );
        }
        let action = Action::Complete {
            target,
            argument: arg_name,
        };
        if let Err(reply) = self
            .check(&ctx, &action, ("completion of", action.name()))
            .await
        {
            return reply;
        }
        let completion = match completers.iter().find(|c| c.argument == arg_name) {
            None => crate::protocol::Completion::default(),
            Some(completer) => {
                let context = params
                    .get("context")
                    .and_then(|c| c.get("arguments"))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let request = CompletionRequest {
                    ctx: ctx.clone(),
                    argument: arg_name.to_owned(),
                    value: value.to_owned(),
                    context,
                };
                // Within the caller's limits, like every call that runs user code: a client
                // typing fast must not be able to flood the completer.
                let target = crate::policy::limits::Called::new("the completion of", arg_name);
                match self.run(&ctx, &target, (completer.complete)(request)).await {
                    Ok(completion) => completion.bounded(),
                    Err(error) => return Reply::Error(error),
                }
            }
        };
        let mut body = Map::new();
        body.insert(
            "completion".into(),
            serde_json::to_value(completion).unwrap_or_else(|_| json!({"values": []})),
        );
        Reply::Result { body, cache: None }
    }
}
