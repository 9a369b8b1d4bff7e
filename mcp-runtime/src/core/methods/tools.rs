//! `tools/call`: find, authorize, validate, run, map the outcome.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::core::RequestContext;
use crate::policy::auth::Action;
use crate::protocol::{CallToolResult, RpcError};
use crate::registry::{TaskSupport, ToolDef};
use crate::tasks::{Escalation, TaskLink, TaskRuntime};

use super::super::dispatch::{
    arguments_param, guarded, string_param, unknown_name, Call, Core, Reply,
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
        // A task tool runs as a task only for a client that takes tasks on this very
        // request (never in the handshake era); one that must be a task is refused
        // before anything runs.
        let tasks = match tool.def.task {
            TaskSupport::Forbidden => None,
            support => match (&self.tasks, takes_tasks(&ctx)) {
                (Some(runtime), true) => Some(runtime.clone()),
                _ if support == TaskSupport::Required => {
                    return Reply::Error(crate::tasks::missing_extension());
                }
                _ => None,
            },
        };
        let target = format!("tool {name}");
        if let Err(error) = self.limiter.check_arguments(&target, &arguments) {
            return Reply::Error(error);
        }
        let args_value = Value::Object(arguments);
        if let Err(problems) = tool.validator.check(&args_value) {
            let text = format!(
                "Invalid arguments for tool `{name}`:\n- {}\nFix the arguments to match the tool's input schema and call it again.",
                problems.join("\n- ")
            );
            let result = crate::protocol::CallToolResult::error(text);
            return Reply::Tool(result);
        }
        let arguments = match args_value {
            Value::Object(arguments) => arguments,
            _ => Map::new(),
        };
        let binding = Binding::new("tools/call", &name, &arguments, ctx.principal_subject());
        if let Err(error) = self.rounds.open(&ctx, &mut params, &binding) {
            return Reply::Error(error);
        }
        if let Some(runtime) = tasks {
            // Boxed: its timer and select would otherwise make every call's future larger.
            return Box::pin(self.call_as_task(
                runtime,
                ctx,
                tool.def,
                (&name, target),
                arguments,
                &binding,
            ))
            .await;
        }
        let outcome = self
            .run(&ctx, &target, (tool.def.call)(ctx.clone(), arguments))
            .await;
        let failed = !matches!(&outcome, Ok(result) if !result.is_error);
        self.finish_round(&ctx, &binding, failed, || match outcome {
            Ok(result) => Reply::Tool(result),
            Err(error) => Reply::Error(error),
        })
    }

    /// A task-capable call: run inline until it ends, asks to become a task
    /// (`ctx.start_task()`), or outlives `task_after`; then store its task and answer
    /// with the handle while it goes on here in the background.
    async fn call_as_task(
        &self,
        runtime: Arc<TaskRuntime>,
        ctx: RequestContext,
        def: &'static ToolDef,
        (name, target): (&str, String),
        arguments: Map<String, Value>,
        binding: &Binding,
    ) -> Reply {
        let link = TaskLink::new(runtime.clone());
        ctx.attach_task(link.clone());
        let slot = match self.limiter.admit(ctx.principal_subject(), &target) {
            Ok(slot) => slot,
            Err(error) => return Reply::Error(error),
        };
        let running = self.lifecycle.enter();
        let mut future = guarded_task(target.clone(), (def.call)(ctx.clone(), arguments.clone()));
        let timer = tokio::time::sleep(runtime.config.task_after);
        tokio::pin!(timer);
        let ended = tokio::select! {
            biased;
            outcome = &mut future => Some(outcome),
            _ = link.started() => None,
            _ = &mut timer => None,
            error = self.stopped(&ctx, &target) => return Reply::Error(error),
        };
        drop(running);
        drop(slot);
        let escalation = match ended {
            Some(outcome) if !link.is_started() => {
                // Done before becoming a task: an ordinary answer (or input_required).
                let failed = !matches!(&outcome, Ok(result) if !result.is_error);
                return self.finish_round(&ctx, binding, failed, || match outcome {
                    Ok(result) => Reply::Tool(result),
                    Err(error) => Reply::Error(error),
                });
            }
            Some(outcome) => Escalation::Ended(outcome),
            None => Escalation::Running(future),
        };
        match runtime
            .escalate(&link, ctx, name, arguments, escalation)
            .await
        {
            Ok(body) => Reply::Task { body },
            Err(error) => Reply::Error(error),
        }
    }
}

/// Whether the request declares the Tasks extension under a revision that has it.
pub(crate) fn takes_tasks(ctx: &RequestContext) -> bool {
    crate::protocol::version::MODERN_VERSIONS.contains(&ctx.protocol_version())
        && ctx
            .client_capabilities()
            .has_extension(crate::tasks::EXTENSION)
}

/// A handler's future that turns a panic into an error and owns everything it needs.
pub(crate) fn guarded_task(
    target: String,
    future: BoxFuture<'static, Result<CallToolResult, RpcError>>,
) -> BoxFuture<'static, Result<CallToolResult, RpcError>> {
    Box::pin(async move { guarded(&target, future).await })
}
