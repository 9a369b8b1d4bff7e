//! `tools/call`: find, authorize, validate, run, map the outcome.

use serde_json::{Map, Value};

use crate::policy::auth::Action;

use super::super::dispatch::{
    arguments_param, complete_reply, string_param, unknown_name, Call, Core, Reply,
};
use super::super::input::Binding;
use super::super::live::Snapshot;

impl Core {
    pub(crate) async fn call_tool(&self, snapshot: &Snapshot, call: Call) -> Reply {
        let Call { ctx, mut params } = call;
        let name = match string_param(
            &params,
            "name",
            "tools/call needs params.name, the tool's name as a string",
        ) {
            Ok(name) => name,
            Err(reply) => return reply,
        };
        let arguments = match arguments_param(&mut params, "params.arguments must be a JSON object")
        {
            Ok(arguments) => arguments,
            Err(reply) => return reply,
        };
        let Some(tool) = snapshot.catalog.get(&name) else {
            return unknown_name("tool", &name);
        };
        let action = Action::CallTool {
            tool: tool.def,
            arguments: &arguments,
        };
        if let Err(reply) = self.check(&ctx, &action, ("tool", &name)).await {
            return reply;
        }
        if let Err(error) = self
            .limiter
            .check_arguments(&format!("tool {name}"), &arguments)
        {
            return Reply::Error(error);
        }
        let args_value = Value::Object(arguments);
        if let Err(problems) = tool.validator.check(&args_value) {
            let text = format!(
                "Invalid arguments for tool `{name}`:\n- {}\nFix the arguments to match the tool's input schema and call it again.",
                problems.join("\n- ")
            );
            let result = crate::protocol::CallToolResult::error(text);
            return complete_reply(result, "tool result", None);
        }
        let arguments = match args_value {
            Value::Object(arguments) => arguments,
            _ => Map::new(),
        };
        let binding = Binding::new("tools/call", &name, &arguments, ctx.principal_subject());
        if let Err(error) = self.rounds.open(&ctx, &mut params, &binding) {
            return Reply::Error(error);
        }
        let outcome = self
            .run(
                &ctx,
                &format!("tool {name}"),
                (tool.def.call)(ctx.clone(), arguments),
            )
            .await;
        let failed = !matches!(&outcome, Ok(result) if !result.is_error);
        self.finish_round(&ctx, &binding, failed, || match outcome {
            Ok(result) => complete_reply(result, "tool result", None),
            Err(error) => Reply::Error(error),
        })
    }
}
