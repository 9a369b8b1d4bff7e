//! The mapping of one document (`tests/documents/shop.yaml`) that exercises each rule:
//! names, parameters, bodies, results, errors, annotations, retry keys, paging, scopes,
//! credentials, curation and the reasons operations are skipped.

use mcp_openapi::{
    map, Credential, Curation, Hidden, Location, Method, OutputKind, PageBy, Placement, Style,
};
use serde_json::json;

const SHOP: &str = include_str!("documents/shop.yaml");

fn tool<'a>(api: &'a mcp_openapi::Api, name: &str) -> &'a mcp_openapi::Operation {
    api.operations
        .iter()
        .find(|o| o.tool == name)
        .unwrap_or_else(|| {
            panic!(
                "no tool {name}: {:?}",
                api.operations.iter().map(|o| &o.tool).collect::<Vec<_>>()
            )
        })
}

#[test]
fn the_document_maps_to_tools_with_the_api_s_own_shape() {
    let api = map(SHOP, &Curation::default()).unwrap();
    assert_eq!(api.title, "Shop");
    assert_eq!(api.base_url.as_deref(), Some("https://eu.shop.example/v2"));
    let names: Vec<&str> = api.operations.iter().map(|o| o.tool.as_str()).collect();
    assert_eq!(
        names,
        [
            "list_events",
            "list_items",
            "create_item",
            "put_items_item_id",
            "delete_item"
        ]
    );

    let list = tool(&api, "list_items");
    assert_eq!(list.method, Method::Get);
    assert!(list.annotations.read_only && list.annotations.idempotent && !list.confirm);
    // The summary is the title; the description is the first paragraph of the document's,
    // the rest stays in the docs.
    assert_eq!(list.title.as_deref(), Some("List items"));
    assert!(
        list.description.starts_with("Lists the shop's items"),
        "{}",
        list.description
    );
    assert!(!list.description.contains("Archived"));
    assert!(list.docs.as_deref().is_some_and(|d| d.contains("Archived")));
    let arguments: Vec<(&str, &str)> = list
        .params
        .iter()
        .map(|p| (p.argument.as_str(), p.field.as_str()))
        .collect();
    // Arguments keep the API's names, with Rust identifiers for the code. The API key is a
    // credential of the deployment, never an argument.
    assert_eq!(
        arguments,
        [("page", "page"), ("perPage", "per_page"), ("tag", "tag")]
    );
    assert_eq!(list.params[2].style, Style::Form { explode: false });
    // Paged: the page number is the framework's cursor; the items and the total are the
    // answer's properties.
    let pages = list.pagination.as_ref().unwrap();
    assert_eq!(
        pages.by,
        PageBy::Page {
            page: "page".into(),
            first: 1,
            size: Some("perPage".into()),
            size_default: None,
        }
    );
    assert_eq!(pages.param(), "page");
    assert_eq!(
        (pages.items.as_deref(), pages.total.as_deref()),
        (Some("items"), Some("total"))
    );
    assert_eq!(pages.item_schema, json!({"$ref": "#/$defs/Item"}));
    assert_eq!(list.scopes, ["shop:read"]);
    assert_eq!(list.output.status, "200");
    assert_eq!(
        list.output_schema(&api.schemas).unwrap()["properties"]["items"]["items"],
        json!({"$ref": "#/$defs/Item"})
    );

    let create = tool(&api, "create_item");
    assert!(create.idempotency);
    assert_eq!(create.idempotency_key.as_deref(), Some("Idempotency-Key"));
    assert!(
        create.params.is_empty(),
        "the retry key is the framework's argument"
    );
    assert_eq!(create.scopes, ["shop:write"]);
    let body = create.body.as_ref().unwrap();
    assert_eq!(body.content_type, "application/json");
    assert_eq!(
        body.placement,
        Placement::Flattened(vec![
            ("name".into(), "name".into()),
            ("priceCents".into(), "price_cents".into()),
            ("sku".into(), "sku".into()),
            ("type".into(), "type_".into()),
        ])
    );
    let input = create.input_schema(&api.schemas);
    assert_eq!(input["required"], json!(["name", "sku"]));
    assert_eq!(input["properties"]["type"]["enum"], json!(["tool", "part"]));
    assert_eq!(input["additionalProperties"], json!(false));
    assert_eq!(create.errors.len(), 1);
    assert_eq!(create.errors[0].status, "409");
    // `id` is only read: not required of a created item's input, allowed in its output.
    let item = &api.schemas["Item"];
    assert_eq!(item["allOf"][1]["required"], json!([]));

    let delete = tool(&api, "delete_item");
    assert!(delete.annotations.destructive && delete.annotations.idempotent && delete.confirm);
    assert_eq!(delete.output.kind, OutputKind::Empty);
    assert_eq!(delete.params[0].location, Location::Path);
    assert_eq!(delete.params[0].argument, "itemId");
    assert_eq!(delete.params[0].field, "item_id");

    // A body property named like a parameter keeps the body whole; a result that is no
    // object is wrapped.
    let put = tool(&api, "put_items_item_id");
    assert_eq!(
        put.body.as_ref().unwrap().placement,
        Placement::Argument("body".into())
    );
    assert_eq!(
        put.output_schema(&api.schemas).unwrap(),
        json!({"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}, "required": ["result"]})
    );

    let events = tool(&api, "list_events");
    let pages = events.pagination.as_ref().unwrap();
    assert_eq!(
        pages.by,
        PageBy::Cursor {
            param: "cursor".into(),
            next: "next_cursor".into()
        }
    );
    assert_eq!(
        (pages.items.as_deref(), pages.total.as_deref()),
        (Some("events"), None)
    );

    // Only the schemes some tool uses; OAuth is a bearer token.
    assert_eq!(api.credentials.get("oauth"), Some(&Credential::Bearer));
    assert_eq!(api.credentials.get("key"), None);
}

#[test]
fn what_cannot_be_mapped_is_skipped_with_its_reason() {
    let api = map(SHOP, &Curation::default()).unwrap();
    let reasons: Vec<(&str, &str)> = api
        .skipped
        .iter()
        .map(|s| (s.operation.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons.contains(&(
        "GET /orders/{orderId}",
        "the path names `{orderId}`, which no parameter describes"
    )));
    assert!(reasons
        .iter()
        .any(|(op, why)| *op == "PUT /items/{itemId}/photo" && why.contains("image/png")));
}

#[test]
fn every_published_schema_compiles() {
    let api = map(SHOP, &Curation::default()).unwrap();
    for operation in &api.operations {
        let input = operation.input_schema(&api.schemas);
        assert!(
            jsonschema::draft202012::new(&input).is_ok(),
            "{}",
            operation.tool
        );
        assert_eq!(input["type"], "object");
        if let Some(output) = operation.output_schema(&api.schemas) {
            assert!(
                jsonschema::draft202012::new(&output).is_ok(),
                "{}",
                operation.tool
            );
            assert_eq!(output["type"], "object", "{}", operation.tool);
        }
    }
}

#[test]
fn the_curation_file_selects_renames_hides_and_decides() {
    let curation = Curation::from_toml(
        r#"
        [select]
        tags = ["items", "events"]
        exclude = ["deleteItem"]
        tag_prefix = true

        [operations.listItems]
        name = "browse"
        description = "Browse the catalogue."
        scopes = ["catalogue:read"]

        [operations.listItems.arguments]
        perPage = { rename = "page_size", description = "Items per page." }
        page = { rename = "pageNumber" }
        tag = { fixed = ["featured"] }

        [operations.listEvents.arguments]
        tenant = { from = "tenant" }

        [operations.createItem]
        confirm = true
        idempotency = false
        scopes = []
        "#,
    )
    .unwrap();
    let api = map(SHOP, &curation).unwrap();
    let names: Vec<&str> = api.operations.iter().map(|o| o.tool.as_str()).collect();
    assert_eq!(
        names,
        [
            "events_list_events",
            "browse",
            "items_create_item",
            "items_put_items_item_id"
        ]
    );
    let browse = tool(&api, "browse");
    assert_eq!(browse.description, "Browse the catalogue.");
    assert_eq!(browse.scopes, ["catalogue:read"]);
    let input = browse.input_schema(&api.schemas);
    assert_eq!(
        input["properties"]["page_size"]["description"],
        "Items per page."
    );
    assert!(
        input["properties"].get("tag").is_none(),
        "a fixed argument is hidden"
    );
    assert_eq!(
        browse.params[2].hidden,
        Some(Hidden::Fixed(json!(["featured"])))
    );
    let events = tool(&api, "events_list_events");
    assert_eq!(events.params[1].hidden, Some(Hidden::Tenant));
    assert!(events.input_schema(&api.schemas)["properties"]
        .get("tenant")
        .is_none());
    let create = tool(&api, "items_create_item");
    assert!(create.confirm && !create.idempotency);
    // An empty list takes the document's scopes away.
    assert!(create.scopes.is_empty());
}

#[test]
fn a_curation_naming_what_is_not_there_is_an_error() {
    for (toml, expected) in [
        ("[operations.nope]\nname = \"x\"\n", "`nope`"),
        (
            "[operations.listItems.arguments.nope]\nrename = \"y\"\n",
            "argument `nope`",
        ),
        (
            "[operations.listItems]\nname = \"has space\"\n",
            "has space",
        ),
        (
            "[operations.listItems.arguments.page]\nrename = \"9 lives\"\n",
            "not a name",
        ),
        (
            "[operations.listItems.arguments.page]\nrename = \"perPage\"\n",
            "already called",
        ),
        (
            "[operations.listItems.arguments.page]\nfixed = 1\nfrom = \"tenant\"\n",
            "exclude each other",
        ),
    ] {
        let curation = Curation::from_toml(toml).unwrap();
        let error = map(SHOP, &curation).unwrap_err().to_string();
        assert!(error.contains(expected), "{toml}: {error}");
    }
}

#[test]
fn an_operation_named_by_a_path_fragment_sends_it_as_a_fixed_parameter() {
    let document = r##"
openapi: 3.0.0
info: { title: Aws, version: "1" }
paths:
  /#X-Amz-Target=Budgets.Describe:
    post:
      operationId: Describe
      parameters:
        - { name: X-Amz-Target, in: header, required: true, schema: { type: string, enum: [Budgets.Describe] } }
      responses: { "200": { description: ok } }
  /#Action=RunInstances:
    get:
      operationId: RunInstances
      responses: { "200": { description: ok } }
"##;
    let api = map(document, &Curation::default()).unwrap();
    let describe = tool(&api, "describe");
    assert_eq!(describe.path, "/");
    assert_eq!(
        describe.params[0].hidden,
        Some(Hidden::Fixed(json!("Budgets.Describe")))
    );
    let run = tool(&api, "run_instances");
    assert_eq!(
        (run.params[0].name.as_str(), run.params[0].location),
        ("Action", Location::Query)
    );
    assert_eq!(
        run.params[0].hidden,
        Some(Hidden::Fixed(json!("RunInstances")))
    );
    assert!(run.input_schema(&api.schemas)["properties"]
        .as_object()
        .unwrap()
        .is_empty());
}

#[test]
fn an_operation_s_error_detail_is_its_documented_bodies_with_their_defs() {
    let api = map(SHOP, &Curation::default()).unwrap();
    let create = tool(&api, "create_item");
    let detail = create.error_schema(&api.schemas).unwrap();
    assert_eq!(detail["$ref"], "#/$defs/Problem");
    assert_eq!(detail["$defs"]["Problem"], api.schemas["Problem"]);
    assert!(jsonschema::draft202012::new(&detail).is_ok());
    // None documented: no detail.
    assert_eq!(tool(&api, "list_items").error_schema(&api.schemas), None);
}

#[test]
fn scheme_names_become_environment_variable_names() {
    assert_eq!(mcp_openapi::env_name("apiKey"), "API_KEY");
    assert_eq!(mcp_openapi::env_name("oauth"), "OAUTH");
    assert_eq!(mcp_openapi::env_name("basic-auth"), "BASIC_AUTH");
}

#[test]
fn a_path_fragment_naming_a_declared_parameter_leaves_it_to_the_caller() {
    // AWS's documents tell `DELETE /tags/{Arn}` from the other `/tags/{Arn}` operations by
    // the required query parameter it declares; an undeclared bare name is a flag.
    let document = r##"
openapi: 3.0.0
info: { title: Aws, version: "1" }
paths:
  /tags/{ResourceArn}#TagKeys:
    delete:
      operationId: UntagResource
      parameters:
        - { name: ResourceArn, in: path, required: true, schema: { type: string } }
        - { name: TagKeys, in: query, required: true, schema: { type: array, items: { type: string } } }
      responses: { "200": { description: ok } }
  /{Bucket}#uploads:
    get:
      operationId: ListUploads
      parameters:
        - { name: Bucket, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok } }
"##;
    let api = map(document, &Curation::default()).unwrap();
    let untag = tool(&api, "untag_resource");
    assert_eq!(untag.path, "/tags/{ResourceArn}");
    let tag_keys = untag.params.iter().find(|p| p.name == "TagKeys").unwrap();
    assert_eq!(tag_keys.hidden, None);
    let input = untag.input_schema(&api.schemas);
    assert_eq!(input["properties"]["TagKeys"]["type"], "array");
    assert_eq!(input["required"], json!(["ResourceArn", "TagKeys"]));
    let uploads = tool(&api, "list_uploads");
    let flag = uploads.params.iter().find(|p| p.name == "uploads").unwrap();
    assert_eq!(
        (flag.location, flag.hidden.clone()),
        (Location::Query, Some(Hidden::Fixed(json!(""))))
    );
}

#[test]
fn paging_is_recognised_only_where_it_is_certain_and_the_curation_can_turn_it_off() {
    let document = r##"
openapi: 3.0.0
info: { title: Paging, version: "1" }
paths:
  /logs:
    get:
      operationId: listLogs
      parameters:
        - { name: offset, in: query, schema: { type: integer } }
        - { name: limit, in: query, schema: { type: integer, default: 50 } }
      responses:
        "200":
          description: A list.
          content:
            application/json:
              schema: { type: array, items: { type: string } }
  /pairs:
    get:
      operationId: listPairs
      parameters:
        - { name: page, in: query, schema: { type: integer, default: 0 } }
      responses:
        "200":
          description: Two lists, which one is the page?
          content:
            application/json:
              schema:
                type: object
                properties:
                  left: { type: array, items: { type: string } }
                  right: { type: array, items: { type: string } }
    post:
      operationId: addPair
      parameters:
        - { name: page, in: query, schema: { type: integer } }
      responses:
        "200":
          description: A list.
          content:
            application/json:
              schema: { type: array, items: { type: string } }
  /named:
    get:
      operationId: listNamed
      parameters:
        - { name: page, in: query, schema: { type: string } }
        - { name: cursor, in: query, schema: { type: integer } }
      responses:
        "200":
          description: A list.
          content:
            application/json:
              schema: { type: array, items: { type: string } }
"##;
    let api = map(document, &Curation::default()).unwrap();
    let logs = tool(&api, "list_logs").pagination.clone().unwrap();
    assert_eq!(
        logs.by,
        PageBy::Offset {
            offset: "offset".into(),
            limit: Some("limit".into()),
            limit_default: Some(50),
        }
    );
    // The answer is the list itself.
    assert_eq!(logs.items, None);
    assert_eq!(logs.item_schema, json!({"type": "string"}));
    // Two lists, a POST, a page number that is no integer beside an argument the cursor
    // would take the name of: the API's own arguments.
    for name in ["list_pairs", "add_pair", "list_named"] {
        assert_eq!(tool(&api, name).pagination, None, "{name}");
    }

    // The curation keeps the API's paging, or takes it over.
    let curation = Curation::from_toml("[operations.listLogs]\npages = false\n").unwrap();
    let api = map(document, &curation).unwrap();
    assert_eq!(tool(&api, "list_logs").pagination, None);
    let curation =
        Curation::from_toml("[operations.listLogs.arguments]\noffset = { fixed = 0 }\n").unwrap();
    let api = map(document, &curation).unwrap();
    assert_eq!(tool(&api, "list_logs").pagination, None);
    let curation =
        Curation::from_toml("[operations.listLogs.arguments]\nlimit = { rename = \"cursor\" }\n")
            .unwrap();
    let api = map(document, &curation).unwrap();
    assert_eq!(tool(&api, "list_logs").pagination, None);
}

/// Schemas that are not valid JSON Schema: one inline in an operation, one named and used by one
/// operation; a third operation uses only a good named schema.
const CHECKS: &str = r##"
openapi: 3.0.3
info: { title: Checks, version: "1" }
paths:
  /inline:
    get:
      operationId: inlineBad
      parameters:
        - { name: q, in: query, schema: { type: string, minLength: -1 } }
      responses:
        "200":
          description: Good.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Good" }
  /named:
    get:
      operationId: namedBad
      responses:
        "200":
          description: Bad.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Bad" }
  /good:
    get:
      operationId: allGood
      responses:
        "200":
          description: Good.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Good" }
components:
  schemas:
    Good:
      type: object
      properties:
        name: { type: string, minLength: 1 }
    Bad:
      type: object
      properties:
        code: { type: string, minLength: -2 }
"##;

#[test]
fn an_operation_whose_schema_does_not_compile_is_skipped_and_only_it() {
    // Whether the broken schema is the operation's own or a named one it uses (every
    // named schema is checked once, together; when one fails, each operation is checked
    // with the named schemas it uses).
    let api = map(CHECKS, &Curation::default()).unwrap();
    let kept: Vec<&str> = api.operations.iter().map(|o| o.tool.as_str()).collect();
    assert_eq!(kept, ["all_good"]);
    let skipped: Vec<(&str, &str)> = api
        .skipped
        .iter()
        .map(|s| (s.operation.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(skipped.iter().any(|(op, why)| *op == "GET /inline"
        && why.contains("its input schema is not valid JSON Schema")));
    assert!(skipped.iter().any(|(op, why)| *op == "GET /named"
        && why.contains("its output schema is not valid JSON Schema")));

    // Without the bad named schema, every named schema compiles and the inline one is
    // still caught.
    let good_only = CHECKS.replace("minLength: -2", "minLength: 2");
    let api = map(&good_only, &Curation::default()).unwrap();
    let mut kept: Vec<&str> = api.operations.iter().map(|o| o.tool.as_str()).collect();
    kept.sort_unstable();
    assert_eq!(kept, ["all_good", "named_bad"]);
    assert_eq!(api.skipped.len(), 1, "{:?}", api.skipped);
    assert_eq!(api.skipped[0].operation, "GET /inline");
}
