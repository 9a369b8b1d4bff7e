//! Layers around calls (`Server::layer`, `Server::layer_if`): `tower` layers over the
//! service that runs one `tools/call`, `resources/read` or `prompts/get`.
//!
//! A layer runs where the call is already the one that will run: after authorization and
//! the argument checks (a call refused by either never reaches a layer), and within the
//! call's time limit. The service at the bottom runs the handler at most once: a layer
//! that calls it again gets an error instead, so no layer makes a call run twice under
//! one idempotency key.
//!
//! The response cache (`Server::cache_responses`, `response_cache.rs`) is the innermost
//! of them, right above the handler, for the calls it may answer.
//!
//! A server without layers or a cache does none of this: its calls run as they did.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt as _};

use crate::core::RequestContext;
use crate::protocol::{CallToolResult, GetPromptResult, ReadResourceResult, RpcError};

/// What a call is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallKind {
    /// `tools/call`.
    Tool,
    /// `resources/read`.
    Resource,
    /// `prompts/get`.
    Prompt,
}

impl CallKind {
    /// The method's name on the wire.
    pub fn method(self) -> &'static str {
        match self {
            CallKind::Tool => "tools/call",
            CallKind::Resource => "resources/read",
            CallKind::Prompt => "prompts/get",
        }
    }
}

/// One call, as a layer sees it: what it is of, its target (a tool's or prompt's name, a
/// resource's URI), its arguments as checked, the target's tags, and the request (the
/// caller is `context().principal()`). Cloning it is cheap; calling the service below
/// with a clone does not run the handler again.
#[derive(Clone)]
pub struct Call {
    kind: CallKind,
    target: Arc<str>,
    arguments: Arc<Map<String, Value>>,
    tags: &'static [&'static str],
    context: RequestContext,
}

impl Call {
    /// What the call is of.
    pub fn kind(&self) -> CallKind {
        self.kind
    }

    /// The tool's or prompt's name, or the resource's URI.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The arguments as they were checked (none for a resource). A layer reads them; it
    /// cannot change what the handler gets, which was checked and authorized as it is.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    /// The target's tags (`tags(..)` on its definition).
    pub fn tags(&self) -> &[&'static str] {
        self.tags
    }

    /// The request: its caller, tenant, cancellation, and the rest.
    pub fn context(&self) -> &RequestContext {
        &self.context
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("kind", &self.kind)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// What a call came to, when it answers: a business error of a tool is a
/// `CallToolResult` with `is_error` set; a protocol error is the service's `Err`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Outcome {
    /// A tool's result.
    Tool(CallToolResult),
    /// A resource's contents.
    Resource(ReadResourceResult),
    /// A prompt's messages.
    Prompt(GetPromptResult),
}

/// The service a layer wraps: the next layer, or the handler.
pub type CallService = BoxCloneSyncService<Call, Outcome, RpcError>;

/// A `tower` layer `Server::layer` takes: one over [`CallService`] whose service answers
/// a [`Call`] with an [`Outcome`] or an `RpcError`, and can be cloned and sent between
/// threads. Every such layer is one; nothing else implements it.
pub trait CallLayer: Send + Sync + 'static + sealed::Sealed {
    /// `inner` wrapped in this layer.
    #[doc(hidden)]
    fn wrap(&self, inner: CallService) -> CallService;
}

impl<L> CallLayer for L
where
    L: Layer<CallService> + Send + Sync + 'static,
    L::Service: Service<Call, Response = Outcome, Error = RpcError> + Clone + Send + Sync + 'static,
    <L::Service as Service<Call>>::Future: Send + 'static,
{
    fn wrap(&self, inner: CallService) -> CallService {
        CallService::new(self.layer(inner))
    }
}

mod sealed {
    /// Keeps [`CallLayer`](super::CallLayer) to its blanket implementation.
    pub trait Sealed {}

    impl<L> Sealed for L where L: super::Layer<super::CallService> {}
}

/// Which calls a layer applies to.
pub(crate) type Applies = Arc<dyn Fn(&Call) -> bool + Send + Sync>;

/// A layer, erased.
pub(crate) type Wrap = Arc<dyn Fn(CallService) -> CallService + Send + Sync>;

/// What goes right above the handler, below every layer, for one call: the response
/// cache, when it keeps the call.
pub(crate) type Innermost = Box<dyn FnOnce(CallService) -> CallService + Send>;

/// The server's layers, in the order they were added (the first is the outermost).
#[derive(Clone, Default)]
pub(crate) struct Layers {
    added: Vec<(Option<Applies>, Wrap)>,
}

impl Layers {
    /// Whether the server has no layers.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.added.is_empty()
    }

    /// Add `layer`, for the calls `applies` says (all when `None`).
    pub(crate) fn push(&mut self, applies: Option<Applies>, layer: impl CallLayer) {
        let wrap: Wrap = Arc::new(move |inner| layer.wrap(inner));
        self.added.push((applies, wrap));
    }

    /// `handler`, run through the layers that apply to the call of `kind` on `target`
    /// with `arguments` (none for a read), and through `innermost` (the response cache)
    /// when there is one; `handler` itself when there are none.
    pub(crate) fn around<T: Send + 'static>(
        &self,
        call: (
            CallKind,
            &str,
            Option<&Map<String, Value>>,
            &'static [&'static str],
        ),
        innermost: Option<Innermost>,
        context: &RequestContext,
        handler: BoxFuture<'static, Result<T, RpcError>>,
        outcome: fn(T) -> Outcome,
        back: fn(Outcome) -> Option<T>,
    ) -> BoxFuture<'static, Result<T, RpcError>> {
        if self.added.is_empty() && innermost.is_none() {
            return handler;
        }
        let (kind, target, arguments, tags) = call;
        let call = Call {
            kind,
            target: Arc::from(target),
            arguments: Arc::new(arguments.cloned().unwrap_or_default()),
            tags,
            context: context.clone(),
        };
        let applying: Vec<&Wrap> = self
            .added
            .iter()
            .filter(|(applies, _)| applies.as_ref().is_none_or(|applies| applies(&call)))
            .map(|(_, wrap)| wrap)
            .collect();
        if applying.is_empty() && innermost.is_none() {
            return handler;
        }
        let bottom = CallService::new(Once {
            handler: Arc::new(Mutex::new(Some(Box::pin(async move {
                handler.await.map(outcome)
            })))),
            target: call.target.clone(),
        });
        // The cache right above the handler: every layer sees a call it answers.
        let bottom = match innermost {
            Some(wrap) => wrap(bottom),
            None => bottom,
        };
        let service = applying
            .into_iter()
            .rev()
            .fold(bottom, |inner, wrap| wrap(inner));
        Box::pin(async move {
            let (kind, target) = (call.kind, call.target.clone());
            let answered = service.oneshot(call).await?;
            back(answered).ok_or_else(|| {
                RpcError::internal(format!(
                    "a layer answered {} of {target} with the result of another method",
                    kind.method()
                ))
            })
        })
    }
}

/// The handler's run, as the bottom of the stack answers it.
type Running = BoxFuture<'static, Result<Outcome, RpcError>>;

/// The bottom of the stack: the handler, run at most once.
#[derive(Clone)]
struct Once {
    handler: Arc<Mutex<Option<Running>>>,
    target: Arc<str>,
}

impl Service<Call> for Once {
    type Response = Outcome;
    type Error = RpcError;
    type Future = BoxFuture<'static, Result<Outcome, RpcError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), RpcError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Call) -> Self::Future {
        let handler = self
            .handler
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        match handler {
            Some(handler) => handler,
            None => {
                let target = self.target.clone();
                Box::pin(async move {
                    Err(RpcError::internal(format!(
                        "a layer ran the handler of {target} a second time; a call runs once"
                    )))
                })
            }
        }
    }
}
