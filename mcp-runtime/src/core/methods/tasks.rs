//! `tasks/get`, `tasks/update` and `tasks/cancel` (the `io.modelcontextprotocol/tasks`
//! extension). Each needs the extension declared on the request (-32021 otherwise) and
//! sees only the caller's own tasks: another principal's task id is unknown (-32602).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::core::tasks::TaskRuntime;
use crate::core::Inbound;
use crate::protocol::meta::{Meta, RequestMeta};
use crate::protocol::{RequestId, RpcError};
use crate::store::TaskRecord;

use super::super::dispatch::{Call, Core, Reply};
use super::params::string_param;
use super::tools::{guarded_task, takes_tasks};

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
fn ack() -> Reply {
    Reply::Result {
        body: Map::new(),
        cache: None,
    }
}

impl Core {
    /// The task runtime and the `taskId` of a `tasks/*` request, or the refusal.
    fn task_request(&self, call: &Call) -> Result<(Arc<TaskRuntime>, String), Reply> {
        if !takes_tasks(&call.ctx) {
            return Err(Reply::Error(crate::protocol::extensions::missing_tasks()));
        }
        let Some(runtime) = self.tasks.clone() else {
            return Err(Reply::Error(RpcError::method_not_found(call.ctx.method())));
        };
        let id = string_param(
            &call.params,
            "taskId",
            "params.taskId must be the task's id, a string",
        )?;
        Ok((runtime, id))
    }

    pub(crate) async fn tasks_get(&self, call: Call) -> Reply {
        let (runtime, id) = match self.task_request(&call) {
            Ok(request) => request,
            Err(reply) => return reply,
        };
        match runtime.get(&id, call.ctx.principal_subject()).await {
            Ok(body) => Reply::Result { body, cache: None },
            Err(error) => Reply::Error(error),
        }
    }

    pub(crate) async fn tasks_update(&self, call: Call) -> Reply {
        let (runtime, id) = match self.task_request(&call) {
            Ok(request) => request,
            Err(reply) => return reply,
        };
        let responses = match call.params.get("inputResponses") {
            Some(Value::Object(map)) if map.values().all(Value::is_object) => map.clone(),
            _ => {
                return Reply::Error(RpcError::invalid_params(
                    "params.inputResponses must map each input request key to the client's answer (an object)",
                ))
            }
        };
        let ctx = &call.ctx;
        let resume = |task: &TaskRecord, link| {
            // The handler runs again from the top, with every answer so far, as the
            // caller who answered (the task's owner).
            let snapshot = self.live.load();
            let tool = snapshot.catalog.get(&task.tool)?;
            // The stored `_meta` is read as it was when the task began; a task whose
            // revision or tool method is no longer served does not resume.
            let meta = Meta::from_map(task.meta.clone());
            let meta = RequestMeta::parse(Some(meta), self.supported_versions()).ok()?;
            if !self.serves("tools/call") {
                return None;
            }
            let mut inbound = Inbound::new(ctx.transport());
            inbound.principal = ctx.principal().cloned();
            let run = self.request_context(
                &RequestId::String(task.id.clone()),
                "tools/call".into(),
                Some(task.tool.clone()),
                meta,
                inbound,
            );
            run.attach_task(link);
            crate::core::input::open_task(&run, task.answers.clone(), task.kept.clone());
            let future = guarded_task(
                format!("tool {}", task.tool),
                tool.call(run.clone(), task.arguments.clone()),
            );
            Some((run, future))
        };
        match runtime
            .update(&id, responses, resume, ctx.principal_subject())
            .await
        {
            Ok(()) => ack(),
            Err(error) => Reply::Error(error),
        }
    }

    pub(crate) async fn tasks_cancel(&self, call: Call) -> Reply {
        let (runtime, id) = match self.task_request(&call) {
            Ok(request) => request,
            Err(reply) => return reply,
        };
        match runtime.cancel(&id, call.ctx.principal_subject()).await {
            Ok(()) => ack(),
            Err(error) => Reply::Error(error),
        }
    }
}
