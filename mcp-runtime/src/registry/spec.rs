//! Collects what a function's parameters contribute: argument schemas (tools), prompt
//! arguments (prompts), required names and state needs.

use std::any::TypeId;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::protocol::PromptArgument;

/// Filled by the parameter traits' `describe` for each parameter of a tool, prompt or
/// resource, once at server start.
pub struct ParamSpec {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<String>,
    root: Option<(Value, &'static str)>,
    states: Vec<(TypeId, &'static str)>,
    prompt_arguments: Vec<PromptArgument>,
    errors: Vec<String>,
    logs: bool,
    principal: bool,
    paged: bool,
}

impl Default for ParamSpec {
    fn default() -> Self {
        ParamSpec {
            generator: SchemaSettings::draft2020_12().into_generator(),
            properties: Map::new(),
            required: Vec::new(),
            root: None,
            states: Vec::new(),
            prompt_arguments: Vec::new(),
            errors: Vec::new(),
            logs: false,
            principal: false,
            paged: false,
        }
    }
}

impl ParamSpec {
    /// What the parameters `params` describes contribute (a definition's `params`).
    pub(crate) fn of(params: fn(&mut ParamSpec)) -> ParamSpec {
        let mut spec = ParamSpec::default();
        params(&mut spec);
        spec
    }

    /// A named argument of type `T`. It is required unless `T` accepts a missing value
    /// (as `Option<T>` does): that is serde's own notion of optional, asked of the type.
    pub fn argument<T: JsonSchema + DeserializeOwned>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
    ) {
        let schema = self.generator.subschema_for::<T>().to_value();
        self.property::<T>(name, description, schema);
    }

    /// A named argument of type `T` whose parameter carries `#[schemars(..)]`: its schema is
    /// that of the field `value` in `wrapper`, the schema of a one-field struct `#[tool]`
    /// derives `JsonSchema` for with those attributes on the field, so constraints such as
    /// `range(min = 1)` are published, and enforced, as on a derived struct's field.
    pub(crate) fn constrained_argument<T: DeserializeOwned>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
        wrapper: Option<fn(&mut SchemaGenerator) -> Schema>,
    ) {
        let wrapper = wrapper.map(|schema| schema(&mut self.generator).to_value());
        match wrapper.as_ref().and_then(|w| w.pointer("/properties/value")) {
            Some(schema) => self.property::<T>(name, description, schema.clone()),
            None => self.errors.push(format!(
                "the #[schemars(..)] attributes of argument `{name}` leave it no schema: a tool argument is one property, named by its parameter (remove `skip` or `flatten`)"
            )),
        }
    }

    /// Publish `schema` as the property `name`, required unless `T` accepts a missing value.
    fn property<T: DeserializeOwned>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
        mut schema: Value,
    ) {
        if let (Some(doc), Value::Object(obj)) = (description, &mut schema) {
            obj.insert("description".into(), Value::String(doc.to_owned()));
        }
        if self.properties.insert(name.to_owned(), schema).is_some() {
            self.errors
                .push(format!("argument `{name}` is declared twice"));
        }
        if serde_json::from_value::<T>(Value::Null).is_err() {
            self.required.push(name.to_owned());
        }
    }

    /// Mirror the argument `name` into the `Mcp-Param-{header}` HTTP header
    /// (`#[header("..")]`). Its property is published as the one type a header carries:
    /// `Option<T>` as `T` (an absent argument sends no header; `null` is not offered), a
    /// referenced type inlined, integers bounded to ±(2^53 - 1). The catalog then checks it
    /// like any `x-mcp-header`.
    pub(crate) fn mirror(&mut self, name: &'static str, header: &'static str) {
        let Some(property) = self.properties.get(name) else {
            self.errors.push(format!(
                "#[header({header:?})] is on `{name}`, which is not a property of the input schema"
            ));
            return;
        };
        let mut schema = single_type(property.clone(), &self.generator);
        if let Value::Object(obj) = &mut schema {
            if obj.get("type").and_then(Value::as_str) == Some("integer") {
                let safe = crate::protocol::mirror::MAX_SAFE_INTEGER;
                let low = obj.get("minimum").and_then(Value::as_f64);
                if low.is_none_or(|low| low < -(safe as f64)) {
                    obj.insert("minimum".into(), Value::from(-safe));
                }
                let high = obj.get("maximum").and_then(Value::as_f64);
                if high.is_none_or(|high| high > safe as f64) {
                    obj.insert("maximum".into(), Value::from(safe));
                }
            }
            obj.insert(
                crate::protocol::mirror::ANNOTATION.into(),
                Value::String(header.to_owned()),
            );
        }
        self.properties.insert(name.to_owned(), schema);
    }

    /// The tool is paged (it takes a `Cursor<S>`): it publishes the optional `cursor`
    /// argument, under that name whatever the parameter is called.
    pub fn cursor(&mut self, description: Option<&'static str>) {
        let name = CURSOR_ARGUMENT;
        if self.paged {
            self.errors
                .push("a tool can take at most one `Cursor<S>` parameter".into());
            return;
        }
        self.paged = true;
        if self
            .properties
            .insert(name.to_owned(), cursor_schema(description))
            .is_some()
        {
            self.errors.push(format!(
                "it takes an argument named `{name}`, which `Cursor<S>` adds itself; rename the argument"
            ));
        }
    }

    /// Whether the tool takes a `Cursor<S>`.
    pub(crate) fn paged(&self) -> bool {
        self.paged
    }

    /// A prompt argument (prompt arguments are strings on the wire).
    pub fn prompt_argument(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
        required: bool,
    ) {
        if self.prompt_arguments.iter().any(|a| a.name == name) {
            self.errors
                .push(format!("argument `{name}` is declared twice"));
        }
        self.prompt_arguments.push(PromptArgument {
            name: name.to_owned(),
            title: None,
            description: description.map(str::to_owned),
            required,
        });
    }

    /// The whole arguments object is one `T` (the `Args<T>` extractor).
    pub fn root<T: JsonSchema>(&mut self) {
        let schema = T::json_schema(&mut self.generator).to_value();
        if self
            .root
            .replace((schema, std::any::type_name::<T>()))
            .is_some()
        {
            self.errors
                .push("a tool can take at most one `Args<T>` parameter".into());
        }
    }

    /// The tool needs `State<T>` registered on the server.
    pub fn require_state<T: 'static>(&mut self) {
        self.states
            .push((TypeId::of::<T>(), std::any::type_name::<T>()));
    }

    /// The function sends log messages (`Log`): the server declares `logging`.
    pub fn emits_logs(&mut self) {
        self.logs = true;
    }

    /// Whether some parameter sends log messages.
    /// The function reads the caller's principal, so its results vary by caller.
    pub fn reads_principal(&mut self) {
        self.principal = true;
    }

    pub(crate) fn principal(&self) -> bool {
        self.principal
    }

    pub(crate) fn logs(&self) -> bool {
        self.logs
    }

    /// Record a problem found while describing (reported at server start).
    pub fn error(&mut self, message: impl Into<String>) {
        self.errors.push(message.into());
    }

    /// State types this tool needs.
    pub(crate) fn states(&self) -> &[(TypeId, &'static str)] {
        &self.states
    }

    /// The prompt's arguments in declaration order, or what is wrong with them.
    pub(crate) fn finish_prompt(self) -> Result<Vec<PromptArgument>, Vec<String>> {
        if self.errors.is_empty() {
            Ok(self.prompt_arguments)
        } else {
            Err(self.errors)
        }
    }

    /// The object-rooted input schema, or what is wrong with the declaration.
    pub(crate) fn finish(mut self) -> Result<Value, Vec<String>> {
        let mut schema = match self.root.take() {
            Some((root, type_name)) => {
                // The cursor is the framework's, taken out before `Args<T>` reads the
                // arguments: it goes beside T's fields. Any other argument would be T's.
                let cursor = if self.paged {
                    self.properties.remove(CURSOR_ARGUMENT)
                } else {
                    None
                };
                if !self.properties.is_empty() {
                    let names: Vec<&str> = self.properties.keys().map(String::as_str).collect();
                    self.errors.push(format!(
                        "`Args<{type_name}>` takes the whole arguments object and cannot be combined with other arguments ({})",
                        names.join(", ")
                    ));
                }
                match root {
                    Value::Object(mut obj)
                        if obj.get("type").and_then(Value::as_str) == Some("object") =>
                    {
                        if let Some(cursor) = cursor {
                            let properties = obj
                                .entry("properties")
                                .or_insert_with(|| Value::Object(Map::new()));
                            match properties {
                                Value::Object(properties)
                                    if !properties.contains_key(CURSOR_ARGUMENT) =>
                                {
                                    properties.insert(CURSOR_ARGUMENT.to_owned(), cursor);
                                }
                                _ => self.errors.push(format!(
                                    "`Args<{type_name}>` has a field `{CURSOR_ARGUMENT}`, which `Cursor<S>` adds itself; rename the field"
                                )),
                            }
                        }
                        obj
                    }
                    _ => {
                        self.errors.push(format!(
                            "`Args<{type_name}>` must describe a JSON object (a struct with named fields), because tool arguments are always an object"
                        ));
                        Map::new()
                    }
                }
            }
            None => {
                let mut obj = Map::new();
                obj.insert("type".into(), "object".into());
                if !self.properties.is_empty() {
                    obj.insert(
                        "properties".into(),
                        Value::Object(std::mem::take(&mut self.properties)),
                    );
                }
                if !self.required.is_empty() {
                    obj.insert(
                        "required".into(),
                        self.required.iter().cloned().map(Value::String).collect(),
                    );
                }
                obj.insert("additionalProperties".into(), Value::Bool(false));
                obj
            }
        };
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        // Definitions the generator collected join any the schema brings itself (a
        // hand-written `JsonSchema` impl may carry its own `$defs`, `$schema`, `$anchor`s
        // and composition keywords: they are published as written).
        join_definitions(&mut schema, self.generator.take_definitions(true));
        Ok(Value::Object(schema))
    }
}

/// The argument a paged tool (one taking `Cursor<S>`) publishes.
pub(crate) const CURSOR_ARGUMENT: &str = "cursor";

/// Longest cursor accepted, in characters (a position of about 3 KiB of JSON).
pub(crate) const MAX_CURSOR_CHARS: usize = 4096;

/// The published schema of the cursor argument: what the model is told.
pub(crate) fn cursor_schema(description: Option<&str>) -> Value {
    let told = "Opaque cursor from the previous page's `nextCursor`; omit it for the first page. \
                Pass it back unchanged, with the same other arguments, to get the next page.";
    serde_json::json!({
        "type": "string",
        "maxLength": MAX_CURSOR_CHARS,
        "description": match description {
            Some(own) => format!("{own} {told}"),
            None => told.to_owned(),
        },
    })
}

/// The argument `#[tool(idempotency)]` adds: the caller's key for one operation.
pub(crate) const IDEMPOTENCY_KEY: &str = "idempotencyKey";

/// Longest idempotency key accepted, in characters.
pub(crate) const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// The published schema of the idempotency key: what the model is told.
fn idempotency_key_schema() -> Value {
    serde_json::json!({
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_IDEMPOTENCY_KEY_CHARS,
        "pattern": "^[!-~]+$",
        "description": "A key you make up for this one operation, such as a UUID (1 to 255 visible ASCII characters, no spaces). If the call fails, times out or its answer is lost, call again with the same key and the same arguments: the operation then happens at most once and you get its outcome. Use a new key for each new operation."
    })
}

/// The input schema as published for an idempotent tool: the tool's own, plus the optional
/// key argument. Arguments are checked against the tool's own schema once the key is taken
/// out, so the key fits whatever shape that schema has.
pub(crate) fn with_idempotency_key(schema: &Value) -> Result<Value, String> {
    let mut published = schema.clone();
    let Value::Object(root) = &mut published else {
        return Err("its input schema is not an object".into());
    };
    let properties = root
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(properties) = properties else {
        return Err("its input schema's `properties` is not an object".into());
    };
    if properties.contains_key(IDEMPOTENCY_KEY) {
        return Err(format!(
            "it takes an argument named `{IDEMPOTENCY_KEY}`, which `idempotency` adds itself; rename the argument"
        ));
    }
    properties.insert(IDEMPOTENCY_KEY.into(), idempotency_key_schema());
    Ok(published)
}

/// The key of a spilled result's `structuredContent` (`{"artifact": {..link..}}`), for
/// tools with an output schema, which allows that shape too.
pub(crate) const SPILLED_KEY: &str = "artifact";

/// The URI scheme of artifacts, the server's own: no resource may take it.
pub(crate) const ARTIFACT_SCHEME: &str = "artifact://";

/// The schema of a spilled result's `structuredContent`, `{"artifact": {..}}`: the result
/// was larger than the server sends inline and is stored whole behind the link. Kept
/// short, as every structured tool publishes it; the link's fields are in its
/// `resource_link` block too.
fn spilled_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            SPILLED_KEY: {
                "type": "object",
                "description": "Too large to send inline: stored whole, read its `uri` with resources/read.",
            }
        },
        "required": [SPILLED_KEY],
    })
}

/// The schema of a business error's `structuredContent`, `{"error": {..}}`, with `detail`
/// described when its type is declared.
fn error_schema(detail: Option<Value>) -> Value {
    let mut error = serde_json::json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "What went wrong, for programs (e.g. `insufficient_funds`, or the server's own `idempotency_conflict`, `in_progress`, `outcome_unknown`)."
            },
            "message": {"type": "string", "description": "What went wrong, in words."}
        },
        "required": ["message"]
    });
    if let (Some(detail), Some(Value::Object(properties))) = (detail, error.get_mut("properties")) {
        properties.insert("detail".into(), detail);
    }
    serde_json::json!({
        "type": "object",
        "description": "A business error: the result has `isError: true`.",
        "properties": {"error": error},
        "required": ["error"]
    })
}

/// A tool's published output schema: its success shape, and beside it (`anyOf`) the shape
/// of its business errors when they carry structure, so `structuredContent` conforms to
/// the schema in both cases (S-184). Without a success shape there is no output schema.
pub(crate) fn output_schema(
    success: Option<Schema>,
    errors: crate::registry::ErrorDetail,
    idempotency: bool,
    spill: bool,
    generator: &mut SchemaGenerator,
) -> Option<Value> {
    use crate::registry::ErrorDetail;
    let success = success?;
    let error = match errors {
        ErrorDetail::None if !idempotency => None,
        ErrorDetail::None | ErrorDetail::Any => Some(None),
        ErrorDetail::Typed(detail) => Some(Some(detail.to_value())),
    };
    if error.is_none() && !spill {
        return Some(finish_output(success, generator));
    }
    let mut success = success.to_value();
    let mut composed = Map::new();
    if let Value::Object(obj) = &mut success {
        obj.remove("$schema");
        // The success shape's own definitions stay at the root, where its `$ref`s point.
        if let Some(defs) = obj.remove("$defs") {
            composed.insert("$defs".into(), defs);
        }
        if obj.get("type").and_then(Value::as_str) == Some("object") {
            composed.insert("type".into(), "object".into());
        }
    }
    let mut alternatives = vec![success];
    if let Some(detail) = error {
        alternatives.push(error_schema(detail));
    }
    if spill {
        alternatives.push(spilled_schema());
    }
    composed.insert("anyOf".into(), Value::Array(alternatives));
    join_definitions(&mut composed, generator.take_definitions(true));
    Some(Value::Object(composed))
}

/// The definitions a generator collected joined to the `$defs` of `schema` (a definition
/// the schema brings itself wins), or made its `$defs` when it has none.
fn join_definitions(schema: &mut Map<String, Value>, defs: Map<String, Value>) {
    if defs.is_empty() {
        return;
    }
    match schema.get_mut("$defs") {
        Some(Value::Object(own)) => {
            for (name, def) in defs {
                own.entry(name).or_insert(def);
            }
        }
        _ => {
            schema.insert("$defs".into(), Value::Object(defs));
        }
    }
}

/// `schema` as a single JSON type: `Option<T>`'s null dropped, a `$ref` to a definition
/// the generator holds replaced by the definition. Its description stays.
fn single_type(mut schema: Value, generator: &SchemaGenerator) -> Value {
    let description = schema.as_object_mut().and_then(|o| o.remove("description"));
    // `Option<Referenced>` is `anyOf: [ref, null]`, and the ref is a second step.
    for _ in 0..3 {
        let Value::Object(obj) = &schema else { break };
        if let Some(Value::Array(branches)) = obj.get("anyOf") {
            let mut rest = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
            if let (Some(only), None, 1, 2) = (rest.next(), rest.next(), obj.len(), branches.len())
            {
                schema = only.clone();
                continue;
            }
        }
        let definition = obj
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| generator.definitions().get(name));
        if let (Some(definition), 1) = (definition, obj.len()) {
            schema = definition.clone();
            continue;
        }
        break;
    }
    if let Value::Object(obj) = &mut schema {
        if let Some(Value::Array(types)) = obj.get_mut("type") {
            types.retain(|t| t != "null");
            if let [one] = types.as_slice() {
                let one = one.clone();
                obj.insert("type".into(), one);
            }
        }
        if let Some(Value::Array(values)) = obj.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        // An enum whose variants carry docs is `oneOf` constants, typed one by one: the
        // property states their common type itself, where clients look for it.
        if !obj.contains_key("type") {
            if let Some(common) = common_type(obj) {
                obj.insert("type".into(), Value::String(common));
            }
        }
        if let Some(description) = description {
            obj.insert("description".into(), description);
        }
    }
    schema
}

/// The one `type` every branch of the schema's `oneOf` (or `anyOf`) states.
fn common_type(schema: &Map<String, Value>) -> Option<String> {
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    let mut types = branches
        .iter()
        .map(|b| b.get("type").and_then(Value::as_str));
    let first = types.next()??;
    types.all(|t| t == Some(first)).then(|| first.to_owned())
}

/// A fresh generator with the settings every schema of this crate uses.
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// Inline the generator's `$defs` into an output schema.
pub(crate) fn finish_output(schema: Schema, generator: &mut SchemaGenerator) -> Value {
    let mut value = schema.to_value();
    let defs = generator.take_definitions(true);
    if let Value::Object(obj) = &mut value {
        obj.remove("$schema");
        if !defs.is_empty() {
            obj.insert("$defs".into(), Value::Object(defs));
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `finish` finds wrong once `describe` has described the parameters.
    fn problems(describe: impl FnOnce(&mut ParamSpec)) -> Vec<String> {
        let mut spec = ParamSpec::default();
        describe(&mut spec);
        spec.finish().unwrap_err()
    }

    /// A type whose schema is written by hand, with its own dialect and definitions.
    struct HandWritten;

    impl JsonSchema for HandWritten {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "HandWritten".into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            // One definition of its own, one the generator collects.
            let nested = generator.subschema_for::<Nested>();
            schemars::json_schema!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"own": {"$anchor": "ownDef", "type": "string"}},
                "properties": {"a": {"$ref": "#/$defs/own"}, "b": nested},
                "if": {"required": ["a"]},
                "then": {"required": ["b"]},
                "else": {},
                "additionalProperties": false
            })
        }
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        x: u8,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    #[serde(rename_all = "lowercase")]
    enum Region {
        Eu,
        Us,
    }

    #[test]
    fn mirrored_arguments_are_published_as_one_type() {
        // S-188: a header carries one string, integer or boolean, so `Option<T>` is `T`
        // (left out of `required`), a referenced enum is inlined and integers are bounded.
        let mut spec = ParamSpec::default();
        spec.argument::<Option<String>>("note", Some("A note."));
        spec.argument::<i64>("offset", None);
        spec.argument::<u8>("small", None);
        spec.argument::<Region>("region", Some("Where."));
        spec.argument::<Option<Region>>("backup", None);
        spec.argument::<bool>("plain", None);
        for (name, header) in [
            ("note", "Note"),
            ("offset", "Offset"),
            ("small", "Small"),
            ("region", "Region"),
            ("backup", "Backup"),
        ] {
            spec.mirror(name, header);
        }
        let schema = spec.finish().unwrap();
        let p = &schema["properties"];
        assert_eq!(
            p["note"],
            json!({"type": "string", "description": "A note.", "x-mcp-header": "Note"})
        );
        assert_eq!(p["offset"]["minimum"], -9007199254740991_i64);
        assert_eq!(p["offset"]["maximum"], 9007199254740991_i64);
        assert_eq!(
            (&p["small"]["minimum"], &p["small"]["maximum"]),
            (&json!(0), &json!(255))
        );
        assert_eq!(p["region"]["type"], "string");
        assert_eq!(p["region"]["enum"], json!(["eu", "us"]));
        assert_eq!(p["region"]["description"], "Where.");
        assert_eq!(p["backup"]["enum"], json!(["eu", "us"]), "{schema}");
        assert_eq!(p["backup"]["x-mcp-header"], "Backup");
        assert!(p["plain"].get("x-mcp-header").is_none());
        let required = schema["required"].as_array().unwrap();
        assert!(!required.contains(&json!("note")) && !required.contains(&json!("backup")));
        let found = crate::protocol::mirror::scan(&schema).unwrap();
        assert_eq!(found.len(), 5);
        // Published bounds are enforced like any other.
        let validator = crate::validate::ArgValidator::compile(&schema).unwrap();
        let args =
            |offset: Value| json!({"offset": offset, "small": 1, "region": "eu", "plain": true});
        assert!(validator.check(&args(json!(9007199254740991_i64))).is_ok());
        assert!(validator.check(&args(json!(9007199254740992_i64))).is_err());
    }

    /// A unit enum whose variants carry docs.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Tier {
        /// The free plan.
        Free,
        /// The paid plan.
        Paid,
    }

    #[test]
    fn an_enum_of_documented_variants_is_published_with_its_type() {
        let mut spec = ParamSpec::default();
        spec.argument::<Tier>("tier", None);
        spec.mirror("tier", "Tier");
        let schema = spec.finish().unwrap();
        let tier = &schema["properties"]["tier"];
        assert_eq!(tier["type"], "string", "{schema}");
        assert_eq!(tier["oneOf"][0]["const"], "Free");
        assert_eq!(crate::protocol::mirror::scan(&schema).unwrap().len(), 1);
    }

    /// What `#[tool]` derives for `#[schemars(range(min = 1))] quantity: u32`.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Constrained {
        #[schemars(range(min = 1))]
        value: u32,
    }

    /// What it derives when the attributes skip the field.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Skipped {
        #[schemars(skip)]
        value: u32,
    }

    #[test]
    fn a_constrained_argument_is_the_field_of_its_derived_struct() {
        let mut spec = ParamSpec::default();
        spec.constrained_argument::<u32>(
            "quantity",
            Some("How many."),
            Some(Constrained::json_schema),
        );
        spec.constrained_argument::<Option<u32>>("spare", None, Some(Constrained::json_schema));
        let schema = spec.finish().unwrap();
        assert_eq!(
            schema["properties"]["quantity"],
            json!({"type": "integer", "format": "uint32", "minimum": 1, "description": "How many."})
        );
        // Required or not as for any argument, by its own type.
        assert_eq!(schema["required"], json!(["quantity"]));
        let validator = crate::validate::ArgValidator::compile(&schema).unwrap();
        assert!(validator.check(&json!({"quantity": 0})).is_err());
        assert!(validator.check(&json!({"quantity": 1})).is_ok());

        // Attributes that leave no field (or a derive that failed, which does not compile)
        // stop the server at start, naming the argument.
        for wrapper in [
            Some(Skipped::json_schema as fn(&mut SchemaGenerator) -> Schema),
            None,
        ] {
            let problems =
                problems(|spec| spec.constrained_argument::<u32>("quantity", None, wrapper));
            assert!(problems[0].contains("argument `quantity`"), "{problems:?}");
        }
    }

    #[test]
    fn mirroring_something_that_is_no_argument_is_reported() {
        let problems = problems(|spec| spec.mirror("ghost", "Ghost"));
        assert!(problems[0].contains("`ghost`"), "{problems:?}");
    }

    #[test]
    fn an_arguments_type_that_is_not_an_object_is_refused() {
        let problems = problems(|spec| spec.root::<u32>());
        // S-183: tool arguments are an object, so no other root is published.
        assert!(
            problems[0].contains("must describe a JSON object"),
            "{problems:?}"
        );
    }

    #[test]
    fn hand_written_argument_schemas_are_published_as_written() {
        let mut spec = ParamSpec::default();
        spec.root::<HandWritten>();
        let schema = spec.finish().unwrap();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(schema["$defs"]["own"]["$anchor"], "ownDef");
        assert!(schema["$defs"]["Nested"].is_object(), "{schema}");
        assert_eq!(schema["then"], json!({"required": ["b"]}));
        assert_eq!(schema["additionalProperties"], false);
        // Arguments are checked against it as written: the conditional, the local `$ref`.
        let validator = crate::validate::ArgValidator::compile(&schema).unwrap();
        assert!(validator.check(&json!({"a": "x", "b": {"x": 1}})).is_ok());
        assert!(
            validator.check(&json!({"a": "x"})).is_err(),
            "then: b required"
        );
        assert!(
            validator.check(&json!({"a": 1, "b": {"x": 1}})).is_err(),
            "own $ref"
        );
        assert!(
            validator.check(&json!({})).is_ok(),
            "else: nothing required"
        );
    }
}
