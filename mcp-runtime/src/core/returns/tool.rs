//! Turning a tool's return value into a `tools/call` result.
//!
//! What a tool returns decides what the client gets, at compile time:
//!
//! 1. `Result<T, E>`: `Ok` goes on to step 2; `Err` becomes an `isError: true` result with
//!    the error's message (`E: Display`), with structure for [`ToolError::with_detail`] and
//!    [`Rejected`], or a JSON-RPC error for [`ToolError::protocol`].
//! 2. A type implementing [`IntoToolResult`] (text, content blocks, [`Json`](struct@Json),
//!    [`CallToolResult`], `()`) converts itself.
//! 3. Otherwise a `Serialize + JsonSchema` value becomes `structuredContent` (with its JSON as
//!    a text block) and its schema the tool's `outputSchema`.
//! 4. Otherwise a `Serialize` value is a compile error naming both ways out: derive
//!    `JsonSchema`, or `#[tool(output_schema = false)]`, with which it becomes
//!    `structuredContent` without an `outputSchema`.
//! 5. Anything else is a compile error: "`T` cannot be returned from a tool".
//!
//! The choice is made by method resolution on the concrete type in generated code (autoref
//! specialization), so aliases such as `anyhow::Result<T>` behave like what they name. The
//! last step of each resolution takes every type and leaves a check (a trait such as
//! [`SendableOutput`]) to the generated code, so a type nothing takes fails that check with
//! the framework's message at the tool's return type.

use std::convert::Infallible;
use std::fmt::Display;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;

use crate::protocol::{CallToolResult, Content, RpcError, StructuredContent};
use crate::registry::ErrorDetail;

use crate::core::{Rejected, ToolError};

/// Values a tool can return that know their own result shape.
pub trait IntoToolResult {
    /// The output schema, when the value produces `structuredContent`.
    fn output_schema(_generator: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    /// The result.
    fn into_tool_result(self) -> CallToolResult;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

/// Structured output: `structuredContent` plus its JSON as text, and `outputSchema` from `T`.
///
/// Plain `Serialize + JsonSchema` return values get the same treatment; `Json` makes it
/// explicit and lets you set the text block yourself with [`Json::with_text`].
#[derive(Debug, Clone)]
pub struct Json<T> {
    pub(crate) value: T,
    pub(crate) text: Option<String>,
}

#[allow(non_snake_case)]
/// Wrap a value as structured output.
pub fn Json<T>(value: T) -> Json<T> {
    Json { value, text: None }
}

impl<T> Json<T> {
    /// Use `text` as the text block instead of the value's JSON.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(T::json_schema(generator))
    }

    fn into_tool_result(self) -> CallToolResult {
        let Some(text) = self.text else {
            return CallToolResult::structured(&self.value);
        };
        // The text is given: the value's JSON is only the structured content.
        match StructuredContent::new(&self.value) {
            Ok(value) => CallToolResult {
                content: vec![Content::text(text)],
                structured_content: Some(value),
                ..Default::default()
            },
            Err(e) => {
                CallToolResult::error(format!("The tool's result could not be serialized: {e}"))
            }
        }
    }
}

// ---- resolution machinery used by generated code -------------------------------------

/// A type-level tag; generated code calls methods on `&&&&Tag<T>` (and fewer references) and
/// method resolution picks the most specific impl.
#[doc(hidden)]
pub struct Tag<T>(PhantomData<fn() -> T>);

impl<T> Tag<T> {
    #[doc(hidden)]
    pub fn new() -> Self {
        Tag(PhantomData)
    }
}

impl<T> Default for Tag<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[doc(hidden)]
pub fn tag_of<T>(_: &T) -> Tag<T> {
    Tag::new()
}

/// Step 1: how a return value splits into success and failure.
#[doc(hidden)]
pub struct Split<R, T, E> {
    pub split: fn(R) -> Result<T, E>,
}

impl<R, T, E> Split<R, T, E> {
    #[doc(hidden)]
    pub fn ok_tag(&self) -> Tag<T> {
        Tag::new()
    }

    #[doc(hidden)]
    pub fn err_tag(&self) -> Tag<E> {
        Tag::new()
    }
}

#[doc(hidden)]
pub trait SplitResult {
    type R;
    type T;
    type E;
    fn __mcp_split(&self) -> Split<Self::R, Self::T, Self::E>;
}

impl<T, E> SplitResult for &Tag<Result<T, E>> {
    type R = Result<T, E>;
    type T = T;
    type E = E;
    fn __mcp_split(&self) -> Split<Result<T, E>, T, E> {
        Split { split: |r| r }
    }
}

#[doc(hidden)]
pub trait SplitPlain {
    type R;
    fn __mcp_split(&self) -> Split<Self::R, Self::R, Infallible>;
}

impl<R> SplitPlain for Tag<R> {
    type R = R;
    fn __mcp_split(&self) -> Split<R, R, Infallible> {
        Split { split: Ok }
    }
}

/// What is left for the tool's own crate to check about a resolution, so that a type the
/// runtime cannot send is a compile error in the framework's words, at the tool's return
/// type, rather than a method that cannot be found.
///
/// A resolution that found a way leaves `Checked`; one that did not leaves the type
/// itself, and the generated code asks it for [`SendableOutput`], [`DescribedOutput`],
/// [`ToolErrorMessage`] or [`RpcErrorMessage`](super::RpcErrorMessage) through a path call,
/// whose failure rustc reports with the trait's message. `Checked` passes every check
/// through the same blanket impls as any type (it is `Serialize`, `JsonSchema` and
/// `Display`), so the check traits have no impl of their own for rustc to point at.
#[doc(hidden)]
pub struct Checked;

impl Serialize for Checked {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl JsonSchema for Checked {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Checked".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({"type": "null"})
    }
}

impl Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("checked")
    }
}

/// Step 2: how a success value becomes a result, and its output schema. `V` is what must
/// still be sendable ([`SendableOutput`]) and `S` what must still have a schema
/// ([`DescribedOutput`], unless the tool says `output_schema = false`).
#[doc(hidden)]
pub struct Output<T, V = Checked, S = Checked> {
    pub schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    pub render: fn(T) -> CallToolResult,
    checks: PhantomData<fn() -> (V, S)>,
}

impl<T, V, S> Output<T, V, S> {
    fn new(
        schema: fn(&mut SchemaGenerator) -> Option<Schema>,
        render: fn(T) -> CallToolResult,
    ) -> Self {
        Output {
            schema,
            render,
            checks: PhantomData,
        }
    }

    #[doc(hidden)]
    pub fn sendable(&self) -> Tag<V> {
        Tag::new()
    }

    #[doc(hidden)]
    pub fn described(&self) -> Tag<S> {
        Tag::new()
    }
}

#[doc(hidden)]
pub trait OutputExplicit {
    type T;
    fn __mcp_output(&self) -> Output<Self::T>;
}

impl<T: IntoToolResult> OutputExplicit for &&&Tag<T> {
    type T = T;
    fn __mcp_output(&self) -> Output<T> {
        Output::new(T::output_schema, T::into_tool_result)
    }
}

#[doc(hidden)]
pub trait OutputStructured {
    type T;
    fn __mcp_output(&self) -> Output<Self::T>;
}

impl<T: Serialize + JsonSchema> OutputStructured for &&Tag<T> {
    type T = T;
    fn __mcp_output(&self) -> Output<T> {
        Output::new(|g| Some(T::json_schema(g)), CallToolResult::structured)
    }
}

/// A `Serialize` value without a schema: `structuredContent` and no `outputSchema`, which
/// the tool must ask for with `output_schema = false` (the schema check is left to it).
#[doc(hidden)]
pub trait OutputUnschemed {
    type T;
    fn __mcp_output(&self) -> Output<Self::T, Checked, Self::T>;
}

impl<T: Serialize> OutputUnschemed for &Tag<T> {
    type T = T;
    fn __mcp_output(&self) -> Output<T, Checked, T> {
        Output::new(|_| None, CallToolResult::structured)
    }
}

/// Anything else: resolves, so that the check left to the tool ([`SendableOutput`]) is the
/// one error. Code that resolves here does not compile, so `render` never runs.
#[doc(hidden)]
pub trait OutputUnsupported {
    type T;
    fn __mcp_output(&self) -> Output<Self::T, Self::T>;
}

impl<T> OutputUnsupported for Tag<T> {
    type T = T;
    fn __mcp_output(&self) -> Output<T, T> {
        Output::new(
            |_| None,
            |_| {
                CallToolResult::error(format!(
                    "A `{}` cannot be sent as a tool result.",
                    std::any::type_name::<T>()
                ))
            },
        )
    }
}

/// A tool's success value the runtime can send (checked where a tool returns a type no
/// step of the resolution takes).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not something a tool can send",
    note = "return text, content blocks, a value that derives `serde::Serialize` and `schemars::JsonSchema` (or `Json<T>` of one), `CallToolResult`, or `Result<T, E>` of those"
)]
pub trait SendableOutput: Sized {
    fn check(_: &Tag<Self>) {}
}

#[diagnostic::do_not_recommend]
impl<T: Serialize> SendableOutput for T {}

/// A tool's structured success value has a schema to publish as its `outputSchema`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON Schema, so the tool cannot publish its `outputSchema`",
    label = "`Serialize`, but not `JsonSchema`",
    note = "derive `schemars::JsonSchema` for it: its schema becomes the tool's `outputSchema`",
    note = "or write `#[tool(output_schema = false)]` to send its JSON as `structuredContent` without a schema"
)]
pub trait DescribedOutput: Sized {
    fn check(_: &Tag<Self>) {}
}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> DescribedOutput for T {}

/// Step 3: how an error value becomes a result or a JSON-RPC error, and the structure it
/// carries. `D` is what must still be `Display` ([`ToolErrorMessage`]).
#[doc(hidden)]
pub struct Failure<E, D = Checked> {
    pub render: fn(E) -> Result<CallToolResult, RpcError>,
    pub detail: fn(&mut SchemaGenerator) -> ErrorDetail,
    check: PhantomData<fn() -> D>,
}

impl<E, D> Failure<E, D> {
    fn new(
        render: fn(E) -> Result<CallToolResult, RpcError>,
        detail: fn(&mut SchemaGenerator) -> ErrorDetail,
    ) -> Self {
        Failure {
            render,
            detail,
            check: PhantomData,
        }
    }

    #[doc(hidden)]
    pub fn displayable(&self) -> Tag<D> {
        Tag::new()
    }
}

#[doc(hidden)]
pub trait FailureExplicit {
    type E;
    fn __mcp_failure(&self) -> Failure<Self::E>;
}

impl FailureExplicit for &&Tag<ToolError> {
    type E = ToolError;
    fn __mcp_failure(&self) -> Failure<ToolError> {
        Failure::new(ToolError::into_outcome, |_| ErrorDetail::Any)
    }
}

impl<E: Serialize + JsonSchema> FailureExplicit for &&Tag<Rejected<E>> {
    type E = Rejected<E>;
    fn __mcp_failure(&self) -> Failure<Rejected<E>> {
        Failure::new(Rejected::into_outcome, |generator| {
            ErrorDetail::Typed(generator.subschema_for::<E>())
        })
    }
}

impl FailureExplicit for &&Tag<RpcError> {
    type E = RpcError;
    fn __mcp_failure(&self) -> Failure<RpcError> {
        Failure::new(Err, |_| ErrorDetail::None)
    }
}

#[doc(hidden)]
pub trait FailureDisplay {
    type E;
    fn __mcp_failure(&self) -> Failure<Self::E>;
}

impl<E: Display> FailureDisplay for &Tag<E> {
    type E = E;
    fn __mcp_failure(&self) -> Failure<E> {
        // `{:#}` prints the whole chain for error types that support it (anyhow, eyre).
        Failure::new(
            |e| Ok(CallToolResult::error(format!("{e:#}"))),
            |_| ErrorDetail::None,
        )
    }
}

/// Any other error type: resolves, so that the check left to the tool
/// ([`ToolErrorMessage`]) is the one error. Code that resolves here does not compile, so
/// `render` never runs.
#[doc(hidden)]
pub trait FailureUnsupported {
    type E;
    fn __mcp_failure(&self) -> Failure<Self::E, Self::E>;
}

impl<E> FailureUnsupported for Tag<E> {
    type E = E;
    fn __mcp_failure(&self) -> Failure<E, E> {
        Failure::new(
            |_| {
                Ok(CallToolResult::error(format!(
                    "The tool failed with a `{}`, which has no message.",
                    std::any::type_name::<E>()
                )))
            },
            |_| ErrorDetail::None,
        )
    }
}

/// A tool's error type has a message (checked where no step of the resolution takes it).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the error type `{Self}` of a tool must implement `Display`",
    label = "`{Self}` has no message",
    note = "its message becomes the `isError: true` result the model reads; or return `ToolError`, `Rejected<E>` or `RpcError`"
)]
pub trait ToolErrorMessage: Sized {
    fn check(_: &Tag<Self>) {}
}

#[diagnostic::do_not_recommend]
impl<E: Display> ToolErrorMessage for E {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, JsonSchema)]
    struct Sum {
        sum: i64,
    }

    macro_rules! render {
        ($e:expr) => {{
            let out = $e;
            let split = (&&tag_of(&out)).__mcp_split();
            match (split.split)(out) {
                Ok(v) => Ok(((&&&&tag_of(&v)).__mcp_output().render)(v)),
                Err(e) => ((&&&tag_of(&e)).__mcp_failure().render)(e),
            }
        }};
    }

    /// `Serialize`, without a schema.
    #[derive(Serialize)]
    struct Unschemed {
        id: u32,
    }

    #[test]
    // The references are the generated code's: the resolution depends on them.
    #[allow(clippy::needless_borrow)]
    fn each_step_leaves_what_the_tool_must_still_check() {
        // The `let _: Tag<..>` lines are the assertions the compiler makes: which type each
        // resolution leaves to the generated code's checks.
        let schema =
            |f: fn(&mut SchemaGenerator) -> Option<Schema>| f(&mut SchemaGenerator::default());

        let text = (&&&&Tag::<String>::new()).__mcp_output();
        let _: (Tag<Checked>, Tag<Checked>) = (text.sendable(), text.described());
        assert!(schema(text.schema).is_none());

        let sum = (&&&&Tag::<Sum>::new()).__mcp_output();
        let _: (Tag<Checked>, Tag<Checked>) = (sum.sendable(), sum.described());
        assert!(schema(sum.schema).is_some());

        // Without a schema: structured content, no schema, and the schema left to check
        // (a compile error unless the tool says `output_schema = false`).
        let unschemed = (&&&&Tag::<Unschemed>::new()).__mcp_output();
        let _: (Tag<Checked>, Tag<Unschemed>) = (unschemed.sendable(), unschemed.described());
        assert!(schema(unschemed.schema).is_none());
        let r = (unschemed.render)(Unschemed { id: 7 });
        assert_eq!(r.structured_content, Some(json!({"id": 7}).into()));
        assert_eq!(r.content, vec![Content::text("{\"id\":7}")]);

        // Not even `Serialize`: the value itself is left to check, and fails it.
        struct Opaque;
        let opaque = (&&&&Tag::<Opaque>::new()).__mcp_output();
        let _: (Tag<Opaque>, Tag<Checked>) = (opaque.sendable(), opaque.described());

        let display = (&&&Tag::<String>::new()).__mcp_failure();
        let _: Tag<Checked> = display.displayable();
        let explicit = (&&&Tag::<ToolError>::new()).__mcp_failure();
        let _: Tag<Checked> = explicit.displayable();
        let silent = (&&&Tag::<Opaque>::new()).__mcp_failure();
        let _: Tag<Opaque> = silent.displayable();
    }

    #[test]
    fn return_types_pick_their_shape() {
        let r = render!(String::from("hi")).unwrap();
        assert_eq!(r.content, vec![Content::text("hi")]);
        assert!(r.structured_content.is_none());

        let r = render!(Sum { sum: 5 }).unwrap();
        assert_eq!(r.structured_content, Some(json!({"sum": 5}).into()));
        assert_eq!(r.content, vec![Content::text("{\"sum\":5}")]);

        let r = render!(Ok::<_, String>(Sum { sum: 2 })).unwrap();
        assert_eq!(r.structured_content, Some(json!({"sum": 2}).into()));

        let r = render!(Err::<Sum, _>("no such order")).unwrap();
        assert!(r.is_error);
        assert_eq!(r.content, vec![Content::text("no such order")]);

        let r = render!(Err::<Sum, _>(ToolError::protocol(
            RpcError::invalid_params("x")
        )));
        assert_eq!(r.unwrap_err().code, -32602);

        let r = render!(Json(Sum { sum: 5 }).with_text("5")).unwrap();
        assert_eq!(r.content, vec![Content::text("5")]);
        assert_eq!(r.structured_content, Some(json!({"sum": 5}).into()));

        type Alias = Result<String, std::io::Error>;
        let a: Alias = Ok("aliased".into());
        assert_eq!(render!(a).unwrap().content, vec![Content::text("aliased")]);
    }
}
