//! `tools/call`: find, authorize, validate, run, map the outcome.

use serde_json::{json, Map, Value};

use crate::policy::auth::Action;
use crate::protocol::RpcError;

use super::super::dispatch::{guarded, Call, Core, Reply};

impl Core {
    pub(crate) async fn call_tool(&self, call: Call) -> Reply {
        let Call { ctx, mut params } = call;
        let name = match params.get("name") {
            Some(Value::String(name)) => name.clone(),
            _ => {
                return Reply::Error(RpcError::invalid_params(
                    "tools/call needs params.name, the tool's name as a string",
                ))
            }
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args,
            Some(_) => {
                return Reply::Error(RpcError::invalid_params(
                    "params.arguments must be a JSON object",
                ))
            }
        };
        let Some(tool) = self.catalog.get(&name) else {
            return Reply::Error(
                RpcError::invalid_params(format!("Unknown tool: {name}"))
                    .with_data(json!({ "name": name })),
            );
        };
        let action = Action::CallTool {
            tool: tool.def,
            arguments: &arguments,
        };
        if let Err(reply) = self.check(&ctx, &action, ("tool", &name)).await {
            return reply;
        }
        let args_value = Value::Object(arguments);
        if let Err(problems) = tool.validator.check(&args_value) {
            let text = format!(
                "Invalid arguments for tool `{name}`:\n- {}\nFix the arguments to match the tool's input schema and call it again.",
                problems.join("\n- ")
            );
            let result = crate::protocol::CallToolResult::error(text);
            return tool_result(result);
        }
        let arguments = match args_value {
            Value::Object(arguments) => arguments,
            _ => Map::new(),
        };
        match guarded(&format!("tool {name}"), (tool.def.call)(ctx, arguments)).await {
            Ok(result) => tool_result(result),
            Err(error) => Reply::Error(error),
        }
    }
}

fn tool_result(result: crate::protocol::CallToolResult) -> Reply {
    match serde_json::to_value(result) {
        Ok(Value::Object(body)) => Reply::Complete { body, cache: None },
        _ => Reply::Error(RpcError::internal(
            "Internal error: the tool result could not be serialized",
        )),
    }
}
