//! `prompts/get`: find, authorize, check the arguments, run, check what the handler
//! returned.

use serde_json::{json, Map, Value};

use crate::policy::auth::Action;
use crate::policy::limits::Called;
use crate::protocol::RpcError;
use crate::registry::Listed;

use super::super::dispatch::{Call, Core, Reply};
use super::super::input::Binding;
use super::super::layers::{CallKind, Outcome};
use super::super::pipeline::checked_prompt_result;
use super::params::{arguments_param, complete_reply, served, unknown_name};

impl Core {
    pub(crate) async fn get_prompt(&self, call: Call) -> Reply {
        let (ctx, mut params, target) = (call.ctx, call.params, call.target);
        let need = "prompts/get needs params.name, the prompt's name as a string";
        let prompt = match served(target.prompt(), &params, &target, ("prompt", need)) {
            Ok(prompt) => prompt,
            Err(reply) => return reply,
        };
        let name = prompt.def.name;
        // A prompt the caller may not see does not exist for it.
        if !self.sees(&ctx, &Listed::Prompt(prompt.def)) {
            return unknown_name("prompt", name);
        }
        let arguments =
            match arguments_param(&mut params, "params.arguments must be an object of strings") {
                Ok(arguments) => arguments,
                Err(reply) => return reply,
            };
        if let Err(reply) = self
            .check(
                &ctx,
                &Action::GetPrompt {
                    prompt: prompt.def,
                    arguments: &arguments,
                },
                ("prompt", name),
            )
            .await
        {
            return reply;
        }
        let target = Called::new("prompt", name);
        if let Err(error) = self.limiter.check_arguments(&target, &arguments) {
            return Reply::Error(error);
        }
        if let Err(error) = check_prompt_arguments(&prompt.prompt, &arguments) {
            return Reply::Error(error);
        }
        let binding = Binding::when_needed(&ctx, &params, || {
            Binding::new("prompts/get", name, &arguments, ctx.principal_subject())
        });
        if let Err(error) = self.rounds.open(&ctx, &mut params, binding.as_ref(), false) {
            return Reply::Error(error);
        }
        let seen = (!self.layers.is_empty()).then(|| arguments.clone());
        let handler = self.layers.around(
            (CallKind::Prompt, name, seen.as_ref(), prompt.def.tags),
            // Prompts are not cached.
            None,
            &ctx,
            prompt.get(ctx.clone(), arguments),
            Outcome::Prompt,
            |outcome| match outcome {
                Outcome::Prompt(result) => Some(result),
                _ => None,
            },
        );
        let outcome = self
            .run(&ctx, &target, handler)
            .await
            .and_then(|result| checked_prompt_result(target, result));
        let failed = outcome.is_err();
        self.finish_round(&ctx, binding.as_ref(), failed, || match outcome {
            Ok(result) => complete_reply(result, "prompt", None),
            Err(error) => Reply::Error(error),
        })
    }
}

/// Arguments of `prompts/get` must be strings, known, and cover the required ones.
fn check_prompt_arguments(
    prompt: &crate::protocol::Prompt,
    arguments: &Map<String, Value>,
) -> Result<(), RpcError> {
    let name = &prompt.name;
    if let Some((key, _)) = arguments.iter().find(|(_, v)| !v.is_string()) {
        return Err(RpcError::invalid_params(format!(
            "Argument `{key}` of prompt `{name}` must be a string"
        ))
        .with_data(json!({ "argument": key })));
    }
    if let Some(key) = arguments
        .keys()
        .find(|k| !prompt.arguments.iter().any(|a| &a.name == *k))
    {
        let known: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        return Err(RpcError::invalid_params(format!(
            "Prompt `{name}` has no argument `{key}` (arguments: {})",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ))
        .with_data(json!({ "argument": key })));
    }
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(RpcError::invalid_params(format!(
            "Prompt `{name}` is missing required argument(s): {}",
            missing.join(", ")
        ))
        .with_data(json!({ "missing": missing })));
    }
    Ok(())
}
