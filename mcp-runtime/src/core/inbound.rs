//! What a request brings besides its message, and the context built from it: the
//! transport's facts ([`Inbound`]) and the request's parsed `_meta`
//! ([`RequestMeta`]) make a [`RequestContext`]. Eras build contexts this way for new
//! requests; the task runtime does for a task resumed from its stored `_meta`.

use tokio_util::sync::CancellationToken;

use crate::policy::auth::Principal;
use crate::protocol::meta::RequestMeta;
use crate::protocol::RequestId;

use super::{ClientCapabilities, ContextParts, Core, Notifier, RequestContext, Transport};

/// What a transport knows about one request besides the message itself.
#[derive(Clone)]
pub struct Inbound {
    /// The transport it arrived on.
    pub transport: Transport,
    /// Where its progress and log notifications go (`None`: nowhere, they are dropped).
    pub notifier: Option<Notifier>,
    /// Cancelled when the client cancels the request.
    pub cancel: CancellationToken,
    /// Cancelled when the connection's grace period after its end runs out (stdio EOF):
    /// the call is stopped and answered with a shutdown error.
    pub stop: CancellationToken,
    /// The caller, when the transport authenticated one.
    pub principal: Option<Principal>,
}

impl Inbound {
    /// A request with no notification channel, no principal and a fresh cancellation token.
    pub fn new(transport: Transport) -> Self {
        Inbound {
            transport,
            notifier: None,
            cancel: CancellationToken::new(),
            stop: CancellationToken::new(),
            principal: None,
        }
    }
}

impl Core {
    /// Whether the caller of a `tools/call` (its `_meta` parsed into `meta`, arriving as
    /// `inbound` says) may see the tool `target` names, by the server's visibility rule;
    /// `true` when the tool is not served (that answer is the call's own).
    pub(crate) fn sees_tool(
        &self,
        id: &RequestId,
        target: &crate::core::Resolved,
        meta: RequestMeta,
        inbound: Inbound,
    ) -> bool {
        let Some(tool) = target.tool() else {
            return true;
        };
        if self.visible.is_none() {
            return true;
        }
        let name = Some(tool.tool.name.clone());
        let ctx = self.request_context(id, "tools/call".to_owned(), name, meta, inbound);
        self.sees(&ctx, &crate::registry::Listed::Tool(tool.def))
    }

    /// The context of a request whose `_meta` was parsed into `meta`, arriving as
    /// `inbound` says.
    pub(crate) fn request_context(
        &self,
        id: &RequestId,
        method: String,
        name: Option<String>,
        meta: RequestMeta,
        inbound: Inbound,
    ) -> RequestContext {
        RequestContext::new(
            ContextParts {
                request_id: id.clone(),
                method,
                name,
                protocol_version: meta.protocol_version,
                client_capabilities: ClientCapabilities::new(meta.client_capabilities),
                client_info: meta.client_info,
                meta: meta.meta,
                transport: inbound.transport,
                log_level: meta.log_level,
                progress_token: meta.progress_token,
                notifier: inbound.notifier,
                cancel: inbound.cancel,
                stop: inbound.stop,
                principal: inbound.principal,
                server: self.server_handle(),
            },
            self.states.clone(),
        )
    }
}
