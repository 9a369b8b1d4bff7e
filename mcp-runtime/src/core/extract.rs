//! Tool parameters: arguments and extractors, told apart by traits, never by type names.
//!
//! Every parameter of a `#[tool]` function goes through [`ToolParam`]. Any type that is
//! `Deserialize + JsonSchema` is an argument (its schema becomes a property of the input
//! schema); [`State`], [`RequestContext`] and [`Args`] are extractors with their own impls.
//! A type alias of either kind keeps its meaning, because the compiler resolves it.

use std::ops::Deref;
use std::sync::Arc;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::protocol::RpcError;
use crate::registry::ParamSpec;

use super::returns::tool::Tag;
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

// Not recommended: a type that is neither an argument nor an extractor is reported as not
// a tool parameter, in the trait's own words, not as a type missing `JsonSchema` (with
// the hundred types that have it).
#[diagnostic::do_not_recommend]
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

/// A tool argument type that `#[header("Name")]` can mirror into the `Mcp-Param-Name` HTTP
/// header: its JSON is a string, an integer or a boolean.
///
/// Implemented for `String`, `char`, `bool`, the integer types and `Option` of any of
/// them (an absent argument sends no header). Integers are published with the bounds
/// ±(2^53 - 1), the range a header may carry, so a wider value is refused like any
/// invalid argument. Implement it for your own type whose JSON is one of the three, such
/// as an enum of unit variants; the server checks its schema at start.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Region {
///     Eu,
///     Us,
/// }
///
/// impl mcp_runtime::HeaderArg for Region {}
///
/// /// Runs a report where the data lives.
/// #[tool]
/// async fn report(#[header("Region")] region: Region) -> String {
///     match region {
///         Region::Eu => "eu report".into(),
///         Region::Us => "us report".into(),
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mirrored into an `Mcp-Param` header",
    label = "a mirrored argument is a string, an integer or a boolean",
    note = "a number with a fraction has no single text form, and objects and lists do not fit in a header: take a `String`, an integer or a `bool`",
    note = "for your own type whose JSON is a string, an integer or a boolean, implement `mcp_runtime::HeaderArg`"
)]
pub trait HeaderArg {}

macro_rules! header_args {
    ($($ty:ty),*) => {$(impl HeaderArg for $ty {})*};
}

header_args!(String, char, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl<T: HeaderArg> HeaderArg for Option<T> {}

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
        <Self as FromContext>::describe(spec);
    }

    fn extract(parts: &mut CallParts<'_>, _: &'static str) -> Result<Self, Rejection> {
        <Self as FromContext>::from_context(parts.context()).map_err(Rejection::Rpc)
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

// ---- tool arguments with `#[schemars(..)]` on their parameter ---------------------------

/// The schema of `W`, the one-field struct `#[tool]` derives `JsonSchema` for with a
/// parameter's `#[schemars(..)]` attributes on its field.
#[doc(hidden)]
pub trait ConstraintsDerived {
    fn __mcp_constraints(&self) -> Option<fn(&mut SchemaGenerator) -> Schema>;
}

impl<W: JsonSchema> ConstraintsDerived for &Tag<W> {
    fn __mcp_constraints(&self) -> Option<fn(&mut SchemaGenerator) -> Schema> {
        Some(W::json_schema)
    }
}

/// Resolves when the derive failed: it reported the attribute it could not read, and this
/// keeps that the only error. Such code does not compile, so the `None` is never seen.
#[doc(hidden)]
pub trait ConstraintsUnread {
    fn __mcp_constraints(&self) -> Option<fn(&mut SchemaGenerator) -> Schema>;
}

impl<W> ConstraintsUnread for Tag<W> {
    fn __mcp_constraints(&self) -> Option<fn(&mut SchemaGenerator) -> Schema> {
        None
    }
}

// ---- resources and prompts ------------------------------------------------------------

/// An extractor usable in `#[resource]` and `#[prompt]` functions: a value built from the
/// request context alone (no arguments).
///
/// Implement it for your own extractors, for example a tenant read from
/// [`RequestContext::meta`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a URI template variable nor an extractor",
    label = "this parameter matches no `<name>` in the URI template",
    note = "a resource function takes its URI template's variables (by name) and extractors such as State<T> and RequestContext"
)]
pub trait FromContext: Sized + Send {
    /// Record state needs. Runs once at start.
    fn describe(_spec: &mut ParamSpec) {}

    /// Produce the value for one request.
    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError>;
}

impl FromContext for RequestContext {
    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        Ok(ctx.clone())
    }
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn describe(spec: &mut ParamSpec) {
        spec.require_state::<T>();
    }

    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        ctx.state::<T>().map(State).ok_or_else(|| {
            RpcError::internal(format!(
                "state {} is not registered",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// Parses one variable of a resource URI template (`<id>`, `<path..>`).
///
/// Every `FromStr` type with a `Display` error already implements it (integers, `String`,
/// `PathBuf`, `uuid::Uuid`, your own `FromStr` types). Implement it directly for a type
/// that is not `FromStr`. A value that does not parse makes the read fail with -32602 and
/// the URI in `data`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a URI template variable",
    label = "needs `FromStr` (with a `Display` error) or `FromUriParam`",
    note = "implement `std::str::FromStr` or `mcp_runtime::FromUriParam` for it"
)]
pub trait FromUriParam: Sized + Send {
    /// Parse the percent-decoded value; the error says what is wrong with it.
    fn from_uri_param(value: &str) -> Result<Self, String>;
}

impl<T> FromUriParam for T
where
    T: std::str::FromStr + Send,
    T::Err: std::fmt::Display,
{
    fn from_uri_param(value: &str) -> Result<Self, String> {
        value.parse::<T>().map_err(|e| e.to_string())
    }
}

/// The arguments of one `prompts/get`, as seen while extracting a prompt's parameters.
pub struct PromptParts<'a> {
    ctx: &'a RequestContext,
    args: Map<String, Value>,
}

impl<'a> PromptParts<'a> {
    #[doc(hidden)]
    pub fn new(ctx: &'a RequestContext, args: Map<String, Value>) -> Self {
        PromptParts { ctx, args }
    }

    /// The request context.
    pub fn context(&self) -> &RequestContext {
        self.ctx
    }

    /// Take the argument `name` (a string on the wire).
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.args.remove(name)
    }
}

/// A parameter of a `#[prompt]` function: a prompt argument or an extractor.
///
/// Any `Deserialize` type is an argument. Prompt arguments are strings on the wire; the
/// string is decoded as the type asks (`String`, a unit-variant enum by name), or as JSON
/// for numbers and booleans (`"3"` for a `u32`). `Option<T>` arguments are optional.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt parameter",
    label = "not an argument or an extractor",
    note = "arguments need `serde::Deserialize`; extractors are State<T> and RequestContext"
)]
pub trait PromptParam: Sized + Send {
    /// Record what this parameter contributes. Runs once at start.
    fn describe(spec: &mut ParamSpec, name: &'static str, description: Option<&'static str>);

    /// Produce the value for one request.
    fn extract(parts: &mut PromptParts<'_>, name: &'static str) -> Result<Self, RpcError>;
}

impl<T: DeserializeOwned + Send> PromptParam for T {
    fn describe(spec: &mut ParamSpec, name: &'static str, description: Option<&'static str>) {
        let required = serde_json::from_value::<T>(Value::Null).is_err();
        spec.prompt_argument(name, description, required);
    }

    fn extract(parts: &mut PromptParts<'_>, name: &'static str) -> Result<Self, RpcError> {
        let value = parts.take_argument(name).unwrap_or(Value::Null);
        let first = match serde_json::from_value::<T>(value.clone()) {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        // "3" for a number, "true" for a bool: the string holds JSON of another type.
        if let Value::String(text) = &value {
            if let Ok(inner) = serde_json::from_str::<Value>(text) {
                if !inner.is_string() {
                    if let Ok(v) = serde_json::from_value::<T>(inner) {
                        return Ok(v);
                    }
                }
            }
        }
        let prompt = parts.context().name().unwrap_or_default().to_owned();
        Err(RpcError::invalid_params(format!(
            "Invalid argument `{name}` for prompt `{prompt}`: {first}"
        ))
        .with_data(serde_json::json!({ "argument": name })))
    }
}

impl<T: Send + Sync + 'static> PromptParam for State<T> {
    fn describe(spec: &mut ParamSpec, _: &'static str, _: Option<&'static str>) {
        <Self as FromContext>::describe(spec);
    }

    fn extract(parts: &mut PromptParts<'_>, _: &'static str) -> Result<Self, RpcError> {
        <State<T> as FromContext>::from_context(parts.context())
    }
}

/// A `completion/complete` request, as a completer function receives it.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// The weather in a city.
/// #[prompt(complete(city = cities))]
/// async fn weather(city: String) -> String {
///     format!("What is the weather in {city}?")
/// }
///
/// async fn cities(req: CompletionRequest) -> Vec<String> {
///     req.matching(["Berlin", "Bern", "Bordeaux"])
/// }
/// ```
#[derive(Debug, Clone)]
pub struct CompletionRequest {
    /// The request context.
    pub ctx: RequestContext,
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Arguments the user already filled in (`context.arguments`).
    pub context: Map<String, Value>,
}

impl CompletionRequest {
    /// The candidates that start with the typed value (ignoring ASCII case), in order.
    pub fn matching<S: AsRef<str>>(&self, candidates: impl IntoIterator<Item = S>) -> Vec<String> {
        let typed = self.value.to_ascii_lowercase();
        candidates
            .into_iter()
            .filter(|c| c.as_ref().to_ascii_lowercase().starts_with(&typed))
            .map(|c| c.as_ref().to_owned())
            .collect()
    }

    /// An argument filled in earlier, when the client sent it.
    pub fn filled(&self, name: &str) -> Option<&str> {
        self.context.get(name).and_then(Value::as_str)
    }
}

// ---- request-scoped extractors ----------------------------------------------------------

impl FromContext for super::Progress {
    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        Ok(super::Progress::new(ctx.clone()))
    }
}

impl FromContext for super::Log {
    fn describe(spec: &mut ParamSpec) {
        spec.emits_logs();
    }

    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        Ok(super::Log::new(ctx.clone()))
    }
}

impl FromContext for super::Cancellation {
    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        Ok(ctx.cancellation())
    }
}

impl FromContext for crate::policy::principal::Principal {
    fn describe(spec: &mut ParamSpec) {
        spec.reads_principal();
    }

    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        ctx.principal()
            .cloned()
            .ok_or_else(|| anonymous(ctx, "an authenticated caller"))
    }
}

impl FromContext for crate::policy::principal::Tenant {
    fn describe(spec: &mut ParamSpec) {
        spec.reads_principal();
    }

    fn from_context(ctx: &RequestContext) -> Result<Self, RpcError> {
        ctx.principal()
            .and_then(|p| p.tenant())
            .map(|t| crate::policy::principal::Tenant(t.to_owned()))
            .ok_or_else(|| anonymous(ctx, "a caller whose credentials name a tenant"))
    }
}

/// The refusal of a call whose handler needs to know who calls, when nobody is named.
fn anonymous(ctx: &RequestContext, needs: &str) -> RpcError {
    let target = ctx.name().unwrap_or_else(|| ctx.method());
    RpcError::new(
        crate::protocol::codes::ACCESS_DENIED,
        format!("Access denied to {target}: it needs {needs}"),
    )
    .with_data(serde_json::json!({ "name": target, "reason": format!("it needs {needs}") }))
}

/// Tool and prompt parameter impls for extractors that only need the context (the
/// argument blanket impls rule out a blanket over `FromContext`).
macro_rules! context_params {
    ($($ty:ty),*) => {$(
        impl ToolParam for $ty {
            fn describe(spec: &mut ParamSpec, _: &'static str, _: Option<&'static str>) {
                <Self as FromContext>::describe(spec);
            }

            fn extract(parts: &mut CallParts<'_>, _: &'static str) -> Result<Self, Rejection> {
                <Self as FromContext>::from_context(parts.context()).map_err(Rejection::Rpc)
            }
        }

        impl PromptParam for $ty {
            fn describe(spec: &mut ParamSpec, _: &'static str, _: Option<&'static str>) {
                <Self as FromContext>::describe(spec);
            }

            fn extract(parts: &mut PromptParts<'_>, _: &'static str) -> Result<Self, RpcError> {
                <Self as FromContext>::from_context(parts.context())
            }
        }
    )*};
}

context_params!(
    crate::policy::principal::Principal,
    crate::policy::principal::Tenant,
    RequestContext,
    super::Progress,
    super::Log,
    super::Cancellation
);
