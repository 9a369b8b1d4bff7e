//! `tools/call`: take the tool the request resolved to (`Resolved::tool`), authorize,
//! validate, claim the idempotency key, run (a single-use tool's presented state recorded
//! as used first), map the outcome.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::core::tasks::{Escalation, TaskLink, TaskRuntime};
use crate::core::RequestContext;
use crate::policy::auth::Action;
use crate::policy::limits::Called;
use crate::protocol::{CallToolResult, RpcError};
use crate::registry::spec::CURSOR_ARGUMENT;
use crate::registry::view;
use crate::registry::{CatalogTool, TaskSupport, Visibility};

use super::super::artifacts::spill_over;
use super::super::dispatch::{Call, Core, Reply};
use super::super::failure::business_error;
use super::super::idempotency::{take_key, Answer, Begin, Settled};
use super::super::input::Binding;
use super::super::layers::{CallKind, Outcome};
use super::super::pages::Paging;
use super::super::pipeline::{checked_tool_result, guarded, OwnLimit};
use super::super::search::{ToolSearch, SEARCH_TOOL};
use super::params::{arguments_param, served, unknown_name};
use crate::registry::versions::{deprecated_meta, DEPRECATED_META, VERSION_META};
use crate::registry::{Catalog, Listed};

impl Core {
    pub(crate) async fn call_tool(&self, call: Call) -> Reply {
        let (ctx, params, target) = (call.ctx, call.params, call.target);
        let need = "tools/call needs params.name, the tool's name as a string";
        let tool = match served(target.tool(), &params, &target, ("tool", need)) {
            Ok(tool) => tool,
            Err(reply) => {
                return match &self.search {
                    Some(search) if params.target(target.method()) == Some(SEARCH_TOOL) => {
                        self.search_tools(search, &ctx, params, &target)
                    }
                    _ => reply,
                }
            }
        };
        // A tool the caller may not see does not exist for it.
        if !self.sees(&ctx, &Listed::Tool(tool.def)) {
            return unknown_name("tool", tool.def.name);
        }
        let (tool, deprecated) = match pinned(&ctx, tool, &target.snapshot().catalog) {
            Ok(found) => found,
            Err(reply) => return reply,
        };
        match (self.call_served(ctx, params, tool).await, deprecated) {
            (Reply::Tool(mut result), Some(current)) => {
                result
                    .meta
                    .get_or_insert_with(Map::new)
                    .insert(DEPRECATED_META.into(), deprecated_meta(current));
                Reply::Tool(result)
            }
            (reply, _) => reply,
        }
    }

    /// `search_tools`: the tools the caller may see that fit its query.
    fn search_tools(
        &self,
        search: &ToolSearch,
        ctx: &RequestContext,
        mut params: crate::protocol::Params,
        target: &crate::core::Resolved,
    ) -> Reply {
        let arguments = match arguments_param(&mut params, "params.arguments must be a JSON object")
        {
            Ok(arguments) => arguments,
            Err(reply) => return reply,
        };
        let snapshot = target.snapshot();
        match &snapshot.index {
            Some(index) => {
                Reply::Tool(search.call(&snapshot.catalog, index, &arguments, &|item| {
                    self.lists_show(ctx, item)
                }))
            }
            None => unknown_name("tool", SEARCH_TOOL),
        }
    }

    /// Call `tool`, served and visible to the caller.
    async fn call_served(
        &self,
        ctx: RequestContext,
        mut params: crate::protocol::Params,
        tool: &CatalogTool,
    ) -> Reply {
        let name = tool.def.name;
        let mut arguments =
            match arguments_param(&mut params, "params.arguments must be a JSON object") {
                Ok(arguments) => arguments,
                Err(reply) => return reply,
            };
        // An app-only tool is called by a host's view; a client that did not declare the
        // MCP Apps extension has no view, so the call is refused with -32021 naming the
        // extension: the tool exists (so not "unknown tool"), the arguments may be right
        // (so not -32602), and what is missing is a capability the client can declare.
        if tool.def.visibility == Visibility::App
            && !view::declared(ctx.client_capabilities().as_map())
        {
            return Reply::Error(view::missing_extension());
        }
        // The key is the server's, not the handler's: out before anyone looks at the
        // arguments. A malformed one is an argument error the model can fix.
        let key = if tool.def.idempotency {
            match take_key(&mut arguments) {
                Ok(key) => {
                    if let Some(key) = &key {
                        ctx.set_idempotency_key(key.clone());
                    }
                    key
                }
                Err(problem) => return invalid_arguments(name, &[problem]),
            }
        } else {
            None
        };
        // A paged call's cursors are sealed to the tool, the caller and the other
        // arguments, which the handler's extractors may take apart: bound now.
        if tool.paged {
            let cursor = arguments.remove(CURSOR_ARGUMENT);
            // A tool that continues another's pages shares its cursors.
            ctx.set_paging(Paging::new(
                self.live.sealer(),
                self.cursor_ttl,
                tool.def.continues.unwrap_or(name),
                &arguments,
                &ctx,
            ));
            if let Some(cursor) = cursor {
                arguments.insert(CURSOR_ARGUMENT.to_owned(), cursor);
            }
        }
        let action = Action::CallTool {
            tool: tool.def,
            arguments: &arguments,
        };
        if let Err(reply) = self.check(&ctx, &action, ("tool", name)).await {
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
                    return Reply::Error(crate::protocol::extensions::missing_tasks());
                }
                _ => None,
            },
        };
        if let Err(error) = self
            .limiter
            .check_arguments(&Called::new("tool", name), &arguments)
        {
            return Reply::Error(error);
        }
        let args_value = Value::Object(arguments);
        if let Err(problems) = tool.validator.check(&args_value) {
            return invalid_arguments(name, &problems);
        }
        let arguments = match args_value {
            Value::Object(arguments) => arguments,
            _ => Map::new(),
        };
        // The rounds of one call share its key: a state opens only with the same key.
        let binding = Binding::when_needed(&ctx, &params, || {
            Binding::new("tools/call", name, &arguments, ctx.principal_subject())
                .with_idempotency_key(key.as_deref())
        });
        if let Err(error) = self
            .rounds
            .open(&ctx, &mut params, binding.as_ref(), tool.def.once)
        {
            return Reply::Error(error);
        }
        match key {
            None => {
                self.execute(ctx, tool, arguments, tasks, binding.as_ref(), None)
                    .await
            }
            // Boxed: the claim's lease renewal and record would otherwise make every call's
            // future larger.
            Some(key) => {
                Box::pin(self.execute_once(ctx, tool, arguments, tasks, binding.as_ref(), &key))
                    .await
            }
        }
    }

    /// A call under an idempotency key: claim the key (or answer from its record), run
    /// with the claim's lease renewed, record how it ended.
    async fn execute_once(
        &self,
        ctx: RequestContext,
        tool: &CatalogTool,
        arguments: Map<String, Value>,
        tasks: Option<Arc<TaskRuntime>>,
        binding: Option<&Binding>,
        key: &str,
    ) -> Reply {
        let claim = match self
            .idempotency
            .begin(&ctx, tool.def.name, key, &arguments)
            .await
        {
            Begin::Run(claim) => claim,
            Begin::Answer(Answer::Result(result)) => return Reply::Tool(result),
            Begin::Answer(Answer::Task(body)) => return Reply::Task { body },
            Begin::Answer(Answer::Error(error)) => return Reply::Error(error),
        };
        let run = self.execute(ctx, tool, arguments, tasks, binding, Some(claim.progress()));
        let reply = claim.renewing(run).await;
        let progress = claim.handler_progress();
        claim.settle(settled(&reply, progress)).await;
        reply
    }

    /// Run the handler: as a task-capable call, or within the caller's limits; its reply,
    /// or `input_required` when it asked.
    async fn execute(
        &self,
        ctx: RequestContext,
        tool: &CatalogTool,
        arguments: Map<String, Value>,
        tasks: Option<Arc<TaskRuntime>>,
        binding: Option<&Binding>,
        progress: Option<Arc<AtomicU8>>,
    ) -> Reply {
        let name = tool.def.name;
        let target = Called::new("tool", name);
        match tasks {
            Some(runtime) => {
                let handler = self.handler(tool, &ctx, arguments.clone(), progress);
                let handler = self.gated(tool, handler);
                // A call that may become a task is never answered from the cache.
                let handler = self.layered(tool, &ctx, Some(&arguments), None, handler);
                let handler = self.inlined(tool, &ctx, name, handler);
                // Boxed: its timer and select would otherwise make every call's future
                // larger.
                Box::pin(self.call_as_task(runtime, ctx, name, arguments, handler, binding)).await
            }
            None => {
                let cached = self.response_cache.as_ref().and_then(|cache| {
                    let cacheable = cache.tool(tool.def, tool.paged, &ctx)?;
                    Some(cache.innermost(cacheable))
                });
                // The layers and the cache see the arguments; copied only when there are
                // some.
                let seen = (!self.layers.is_empty() || cached.is_some()).then(|| arguments.clone());
                let handler = self.handler(tool, &ctx, arguments, progress);
                let handler = self.gated(tool, handler);
                let handler = self.layered(tool, &ctx, seen.as_ref(), cached, handler);
                // A tool's own time limit is part of its contract: past it the model
                // reads why, as a business error, and may narrow the request. A call
                // waiting for a turn under the tool's concurrency limit is within it.
                let ran = match self
                    .run_within(&ctx, &target, handler, tool.def.timeout)
                    .await
                {
                    Ok(ran) => ran,
                    Err(OwnLimit(limit)) => Ok(timed_out(tool, limit)),
                };
                // Spilled before an idempotency key records it, so a retry gets the same
                // link.
                let outcome = match ran.and_then(|result| checked_tool_result(target, result)) {
                    Ok(result) => Ok(spill_over(
                        &self.artifacts,
                        &ctx,
                        name,
                        result,
                        tool.inline_limit,
                        tool.tool.output_schema.is_some(),
                    )
                    .await),
                    Err(error) => Err(error),
                };
                let failed = !matches!(&outcome, Ok(result) if !result.is_error);
                self.finish_round(&ctx, binding, failed, || match outcome {
                    Ok(result) => Reply::Tool(result),
                    Err(error) => Reply::Error(error),
                })
            }
        }
    }

    /// The handler's future inside the server's layers that apply to this call.
    #[inline]
    fn layered(
        &self,
        tool: &CatalogTool,
        ctx: &RequestContext,
        arguments: Option<&Map<String, Value>>,
        cached: Option<super::super::layers::Innermost>,
        handler: BoxFuture<'static, Result<CallToolResult, RpcError>>,
    ) -> BoxFuture<'static, Result<CallToolResult, RpcError>> {
        self.layers.around(
            (CallKind::Tool, tool.def.name, arguments, tool.def.tags),
            cached,
            ctx,
            handler,
            Outcome::Tool,
            |outcome| match outcome {
                Outcome::Tool(result) => Some(result),
                _ => None,
            },
        )
    }

    /// The handler's future, run when the tool's concurrency limit gives it a turn (at
    /// once for a tool without one).
    #[inline]
    fn gated(
        &self,
        tool: &CatalogTool,
        handler: BoxFuture<'static, Result<CallToolResult, RpcError>>,
    ) -> BoxFuture<'static, Result<CallToolResult, RpcError>> {
        let Some(running) = tool.def.concurrency else {
            return handler;
        };
        let gate = self
            .limiter
            .gate((tool.def.name, tool.def.version), running, tool.def.queue);
        let name = tool.def.name;
        Box::pin(async move {
            let _turn = gate.enter(&Called::new("tool", name)).await?;
            handler.await
        })
    }

    /// The handler's future, its result spilled when it ends: for a call that may go on
    /// as a task.
    fn inlined(
        &self,
        tool: &CatalogTool,
        ctx: &RequestContext,
        name: &str,
        handler: BoxFuture<'static, Result<CallToolResult, RpcError>>,
    ) -> BoxFuture<'static, Result<CallToolResult, RpcError>> {
        let limit = tool.inline_limit;
        if limit.is_none() {
            return handler;
        }
        let artifacts = self.artifacts.clone();
        let ctx = ctx.clone();
        let name = name.to_owned();
        let structured = tool.tool.output_schema.is_some();
        Box::pin(async move {
            // Checked before a large result goes into an artifact, where it would be read
            // as it is.
            let result = handler.await?;
            let result = checked_tool_result(format_args!("tool {name}"), result)?;
            Ok(spill_over(&artifacts, &ctx, &name, result, limit, structured).await)
        })
    }

    /// The handler's future, preceded by what must happen before it may run: a single-use
    /// tool records the state this round presents as used (a replay is refused here and
    /// the handler never runs). `progress`, when given, says how far the handler got
    /// ([`STARTED`], [`RETURNED`]).
    fn handler(
        &self,
        tool: &CatalogTool,
        ctx: &RequestContext,
        arguments: Map<String, Value>,
        progress: Option<Arc<AtomicU8>>,
    ) -> BoxFuture<'static, Result<CallToolResult, RpcError>> {
        let def = tool.def;
        let handler = tool.call(ctx.clone(), arguments);
        if !def.once && progress.is_none() {
            return handler;
        }
        let rounds = def.once.then(|| (self.rounds.clone(), ctx.clone()));
        Box::pin(async move {
            if let Some((rounds, ctx)) = rounds {
                rounds.consume(&ctx).await?;
            }
            let mark = |step| {
                if let Some(progress) = &progress {
                    progress.store(step, Ordering::Release);
                }
            };
            mark(STARTED);
            let outcome = handler.await;
            mark(RETURNED);
            outcome
        })
    }

    /// A task-capable call: run inline until it ends, asks to become a task
    /// (`ctx.start_task()`), or outlives `task_after`; then store its task and answer
    /// with the handle while it goes on here in the background.
    async fn call_as_task(
        &self,
        runtime: Arc<TaskRuntime>,
        ctx: RequestContext,
        name: &str,
        arguments: Map<String, Value>,
        handler: BoxFuture<'static, Result<CallToolResult, RpcError>>,
        binding: Option<&Binding>,
    ) -> Reply {
        let target = Called::new("tool", name);
        let link = TaskLink::new(runtime.clone());
        ctx.attach_task(link.clone());
        let slot = match self.limiter.admit(ctx.principal_subject(), &target) {
            Ok(slot) => slot,
            Err(error) => return Reply::Error(error),
        };
        let running = self.lifecycle.enter();
        let mut future = guarded_task(target.to_string(), handler);
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

/// An `isError` result listing what is wrong with the arguments, for the model to fix.
fn invalid_arguments(name: &str, problems: &[String]) -> Reply {
    Reply::Tool(CallToolResult::error(format!(
        "Invalid arguments for tool `{name}`:\n- {}\nFix the arguments to match the tool's input schema and call it again.",
        problems.join("\n- ")
    )))
}

/// How far a handler got: it started (after any state was recorded as used).
const STARTED: u8 = 1;
/// It returned (rather than panicking or being stopped).
const RETURNED: u8 = 2;

/// What a call's reply makes of its idempotency record. Before the handler started (a
/// refused state), nothing happened: the key is released. A handler that returned had its
/// say: its result is kept, while its protocol errors and `input_required` release the key
/// for a corrected retry. A handler that started and never returned (it panicked, timed
/// out, or shutdown stopped it) may have done anything: its outcome is unknown.
fn settled(reply: &Reply, progress: u8) -> Settled {
    match (reply, progress) {
        (Reply::Task { body }, _) => Settled::Task(body.clone()),
        (_, STARTED) => Settled::Unknown,
        (_, RETURNED) => match reply {
            Reply::Tool(result) => Settled::Result(result.clone()),
            _ => Settled::Release,
        },
        _ => Settled::Release,
    }
}

/// The business error of a call `tool` ended for passing its own time limit.
fn timed_out(tool: &CatalogTool, limit: Duration) -> CallToolResult {
    let mut message = format!(
        "{} did not finish within its time limit of {} and was cancelled",
        tool.def.name,
        humantime::format_duration(limit)
    );
    message.push_str(match tool.def.task {
        TaskSupport::Forbidden => "; ask for less at once",
        _ => "; call it as a task (the Tasks extension) to let it run longer",
    });
    business_error("timeout", message)
}

/// Whether the request declares the Tasks extension under a revision that has it.
pub(crate) fn takes_tasks(ctx: &RequestContext) -> bool {
    crate::protocol::version::MODERN_VERSIONS.contains(&ctx.protocol_version())
        && ctx
            .client_capabilities()
            .has_extension(crate::protocol::extensions::TASKS)
}

/// A handler's future that turns a panic into an error, checks the result it returns
/// (as every tool call's is), and owns everything it needs.
pub(crate) fn guarded_task(
    target: String,
    future: BoxFuture<'static, Result<CallToolResult, RpcError>>,
) -> BoxFuture<'static, Result<CallToolResult, RpcError>> {
    Box::pin(async move { checked_tool_result(&target, guarded(&target, future).await?) })
}

/// The version of `tool` the call pins in its `_meta` (the one served under the name when
/// it pins none), with the version served under the name when the pinned one is older;
/// or -32602 naming the versions served.
fn pinned<'c>(
    ctx: &RequestContext,
    tool: &'c CatalogTool,
    catalog: &'c Catalog,
) -> Result<(&'c CatalogTool, Option<&'static str>), Reply> {
    let name = tool.def.name;
    match ctx.meta().get(VERSION_META) {
        None | Some(Value::Null) => Ok((tool, None)),
        Some(Value::String(version)) => catalog.tool_version(name, version).ok_or_else(|| {
            let versions = catalog.versions_of(name);
            let served = if versions.is_empty() {
                format!("`{name}` has no versions")
            } else {
                format!("`{name}` serves version(s) {}", versions.join(", "))
            };
            Reply::Error(
                RpcError::invalid_params(format!(
                    "_meta[\"{VERSION_META}\"] pins version {version}, which is not served: {served}"
                ))
                .with_data(serde_json::json!({ "name": name, "versions": versions })),
            )
        }),
        Some(_) => Err(Reply::Error(RpcError::invalid_params(format!(
            "_meta[\"{VERSION_META}\"] is a version as a string, such as \"2\""
        )))),
    }
}
