//! The 2026-07-28 adapter: per-request `_meta` admission (`admission`), the core call,
//! and result rendering (`render`, [`Answer`]).
//!
//! [`handle_request`] looks the request's target up once and goes on in
//! [`handle_resolved`], where the HTTP transport, which resolves a request itself to check
//! its headers, joins: the request's span and count (`era::start`), admission, the
//! context, `Core::handle`, the notifier closed, the outcome counted, the answer
//! rendered.

use tracing::Instrument as _;

use crate::core::{Call, ClientCapabilities, Core, Resolved};
use crate::observe::{self, Outcome};
use crate::policy::principal::Principal;
use crate::protocol::meta::Meta;
use crate::protocol::{Params, RequestId};

mod admission;
mod answer;
mod render;

pub(crate) use admission::admit;
pub use answer::Answer;
pub(crate) use render::render;
pub use render::status_of;

pub use super::Inbound;
use super::Started;

/// Serve one request end to end in the modern era, its target looked up as it arrives.
pub async fn handle_request(
    core: &Core,
    id: RequestId,
    method: String,
    params: Option<Params>,
    meta: Option<Meta>,
    inbound: Inbound,
) -> Answer {
    let target = core.resolve(&method, params.as_ref());
    handle_resolved(core, id, (method, params, meta), target, inbound).await
}

/// Serve one request end to end in the modern era; `target` is its method and target as
/// the transport resolved them when it arrived (to check its headers against them).
pub(crate) async fn handle_resolved(
    core: &Core,
    id: RequestId,
    (method, params, meta): (String, Option<Params>, Option<Meta>),
    target: Resolved,
    inbound: Inbound,
) -> Answer {
    let request = (method.as_str(), params, meta.as_ref());
    let Started {
        params,
        name,
        span,
        counted,
    } = super::start(core, &inbound, &id, request, &target);
    async move {
        let admission = match admit(core, (&method, target.is_served()), meta) {
            Ok(a) => a,
            Err((error, status)) => {
                let ended = observe::finish(Outcome::of_error(&error), Some(&error));
                counted.count(core, &method, ended);
                return Answer::error(Some(&id), &error, status);
            }
        };
        observe::protocol_version(admission.protocol_version);
        let ctx = core.request_context(&id, method, name, admission, inbound);
        let reply = core
            .handle(Call {
                ctx: ctx.clone(),
                params,
                target,
            })
            .await;
        // Nothing may follow the response for this request.
        if let Some(notifier) = ctx.notifier() {
            notifier.close();
        }
        let ended = observe::finish_reply(&reply);
        counted.count(core, ctx.method(), ended);
        render(core, id, reply)
    }
    .instrument(span)
    .await
}

/// Admit a `subscriptions/listen` request and open its subscription, or the error answer.
pub fn listen(
    core: &Core,
    id: &RequestId,
    params: Option<Params>,
    meta: Option<Meta>,
    principal: Option<&Principal>,
) -> Result<crate::core::Subscription, Answer> {
    let params = params.unwrap_or_default();
    let admission = admit(core, ("subscriptions/listen", true), meta)
        .map_err(|(error, status)| Answer::error(Some(id), &error, status))?;
    let takes_tasks = ClientCapabilities::new(admission.client_capabilities)
        .has_extension(crate::protocol::extensions::TASKS);
    core.listen(id, &params, takes_tasks, principal)
        .map_err(|error| Answer::error(Some(id), &error, status_of(&error)))
}

/// Whether a request may produce notifications worth a streamed (SSE) response: the
/// client asked for progress or log messages.
pub fn wants_stream(meta: Option<&Meta>) -> bool {
    meta.is_some_and(|m| m.progress_token().is_some() || m.log_level().is_some())
}
