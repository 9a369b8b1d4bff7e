//! Tool parameters: arguments and extractors, told apart by traits, never by type names.
//!
//! Every parameter of a `#[tool]` function goes through [`ToolParam`]. Any type that is
//! `Deserialize + JsonSchema` is an argument (its schema becomes a property of the input
//! schema); [`State`], [`RequestContext`] and [`Args`] are extractors with their own impls.
//! A type alias of either kind keeps its meaning, because the compiler resolves it.

use std::ops::Deref;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::protocol::RpcError;
use crate::registry::ParamSpec;

use super::RequestContext;

/// The request as seen while extracting a tool's parameters.
pub struct CallParts<'a> {
    ctx: &'a RequestContext,
    args: Map<String, Value>,
}

impl<'a> CallParts<'a> {
    #[doc(hidden)]
    pub fn new(ctx: &'a RequestContext, args: Map<String, Value>) -> Self {
        CallParts { ctx, args }
    }

    /// The request context.
    pub fn context(&self) -> &RequestContext {
        self.ctx
    }

    /// Take the argument `name` out of the arguments object.
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.args.remove(name)
    }

    /// Take the whole remaining arguments object.
    pub fn take_arguments(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.args)
    }
}

/// Why a parameter could not be produced.
#[derive(Debug, Clone)]
pub enum Rejection {
    /// The argument is wrong: reported to the model as an `isError` result.
    Argument {
        /// Argument name.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The request cannot be served: a JSON-RPC error.
    Rpc(RpcError),
}

impl Rejection {
    #[doc(hidden)]
    pub fn into_outcome(self) -> Result<crate::protocol::CallToolResult, RpcError> {
        match self {
            Rejection::Argument { name, message } => {
                Ok(crate::protocol::CallToolResult::error(format!(
                "Invalid argument `{name}`: {message}. Fix the argument and call the tool again."
            )))
            }
            Rejection::Rpc(e) => Err(e),
        }
    }
}

/// A parameter of a `#[tool]` function: an argument or an extractor.
///
/// Implement it for your own extractors (for example a database handle taken from
/// [`RequestContext::state`]); `describe` then contributes nothing to the input schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "not an argument or an extractor",
    note = "arguments need `serde::Deserialize + schemars::JsonSchema`; extractors (State<T>, RequestContext, Args<T>) implement `ToolParam`"
)]
pub trait ToolParam: Sized + Send {
    /// Record what this parameter contributes (schema property, state needs). Runs once at start.
    fn describe(spec: &mut ParamSpec, name: &'static str, description: Option<&'static str>);

    /// Produce the value for one call.
    fn extract(parts: &mut CallParts<'_>, name: &'static str) -> Result<Self, Rejection>;
}

impl<T> ToolParam for T
where
    T: DeserializeOwned + JsonSchema + Send,
{
    fn describe(spec: &mut ParamSpec, name: &'static str, description: Option<&'static str>) {
        spec.argument::<T>(name, description);
    }

    fn extract(parts: &mut CallParts<'_>, name: &'static str) -> Result<Self, Rejection> {
        let value = parts.take_argument(name).unwrap_or(Value::Null);
        serde_json::from_value(value).map_err(|e| Rejection::Argument {
            name: name.to_owned(),
            message: e.to_string(),
        })
    }
}

impl ToolParam for RequestContext {
    fn describe(_: &mut ParamSpec, _: &'static str, _: Option<&'static str>) {}

    fn extract(parts: &mut CallParts<'_>, _: &'static str) -> Result<Self, Rejection> {
        Ok(parts.context().clone())
    }
}

/// Shared state registered with `Server::state(value)`, by type.
///
/// ```ignore
/// #[tool]
/// /// Looks an order up.
/// async fn order(id: u64, db: State<Db>) -> Result<Order, DbError> { db.order(id).await }
/// ```
///
/// A tool that takes `State<T>` for a `T` the server does not have is refused at start.
pub struct State<T>(pub Arc<T>);

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    fn describe(spec: &mut ParamSpec, _: &'static str, _: Option<&'static str>) {
        spec.require_state::<T>();
    }

    fn extract(parts: &mut CallParts<'_>, _: &'static str) -> Result<Self, Rejection> {
        parts.context().state::<T>().map(State).ok_or_else(|| {
            Rejection::Rpc(RpcError::internal(format!(
                "state {} is not registered",
                std::any::type_name::<T>()
            )))
        })
    }
}

/// The whole arguments object as one `#[derive(Deserialize, JsonSchema)]` struct.
///
/// ```ignore
/// #[tool]
/// /// Places an order.
/// async fn place_order(Args(order): Args<NewOrder>) -> Json<Receipt> { .. }
/// ```
///
/// The struct's schema is the tool's input schema, so it must be a struct with named fields.
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + JsonSchema + Send> ToolParam for Args<T> {
    fn describe(spec: &mut ParamSpec, _: &'static str, _: Option<&'static str>) {
        spec.root::<T>();
    }

    fn extract(parts: &mut CallParts<'_>, _: &'static str) -> Result<Self, Rejection> {
        serde_json::from_value(Value::Object(parts.take_arguments()))
            .map(Args)
            .map_err(|e| Rejection::Argument {
                name: "arguments".into(),
                message: e.to_string(),
            })
    }
}
