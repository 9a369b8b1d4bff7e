//! The API's behaviour, in process: each test builds the router on an in-memory database
//! and sends it requests with `ServiceExt::oneshot`.

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use inventory_api::model::{
    Category, DuplicateSku, Error, ErrorCode, InsufficientStock, Item, ItemPage,
};
use inventory_api::Inventory;
use serde_json::{json, Value};
use tower::ServiceExt;

const KEY: &str = "test-key";

async fn app() -> Router {
    let inventory = Inventory::open(":memory:")
        .await
        .expect("open the database");
    inventory_api::router(inventory, KEY)
}

/// One answer: status, headers, and the body's bytes.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{e}: {} {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Send one request; `headers` come after the API key, which `api_key` gives (or omits).
async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    api_key: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Answer {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(key) = api_key {
        request = request.header("x-api-key", key);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(Body::from(body.to_owned())),
        None => request.body(Body::empty()),
    }
    .expect("a valid request");
    let response = app.clone().oneshot(request).await.expect("an answer");
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .expect("the body")
        .to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

async fn get(app: &Router, uri: &str) -> Answer {
    send(app, Method::GET, uri, Some(KEY), &[], None).await
}

async fn create(app: &Router, idempotency_key: &str, item: &Value) -> Answer {
    let body = item.to_string();
    send(
        app,
        Method::POST,
        "/items",
        Some(KEY),
        &[("idempotency-key", idempotency_key)],
        Some(&body),
    )
    .await
}

fn hammer(sku: &str, quantity: u32) -> Value {
    json!({
        "name": "Claw hammer",
        "sku": sku,
        "quantity": quantity,
        "priceCents": 1299,
        "tags": ["steel", "16oz"],
        "category": "tools",
    })
}

async fn total(app: &Router) -> u64 {
    get(app, "/items").await.json::<ItemPage>().total
}

#[tokio::test]
async fn paging_to_the_end_returns_every_row_exactly_once() {
    let app = app().await;
    let mut created = Vec::new();
    for n in 0..45 {
        let answer = create(&app, &format!("key-{n}"), &hammer(&format!("H-{n}"), n)).await;
        assert_eq!(answer.status, StatusCode::CREATED);
        created.push(answer.json::<Item>().id);
    }
    // Follow the `Link: <…>; rel="next"` headers from the first page, as a client would.
    let mut seen = Vec::new();
    let mut next = Some("/items?perPage=7".to_owned());
    let mut pages = 0;
    while let Some(uri) = next.take() {
        let answer = get(&app, &uri).await;
        assert_eq!(answer.status, StatusCode::OK);
        let page: ItemPage = answer.json();
        assert_eq!((page.per_page, page.total), (7, 45));
        pages += 1;
        assert_eq!(page.page, pages);
        seen.extend(page.items.iter().map(|item| item.id));
        next = answer.header("link").map(|link| {
            let (target, rel) = link.split_once("; ").expect("target; rel");
            assert_eq!(rel, "rel=\"next\"");
            target
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned()
        });
    }
    assert_eq!(pages, 7, "45 items in pages of 7");
    assert_eq!(seen, created, "every item once, in the order of their ids");

    // Past the end: an empty page, no link.
    let past = get(&app, "/items?page=8&perPage=7").await;
    assert_eq!(past.status, StatusCode::OK);
    assert!(past.json::<ItemPage>().items.is_empty());
    assert_eq!(past.header("link"), None);

    // The default page size is 20.
    let first: ItemPage = get(&app, "/items").await.json();
    assert_eq!((first.page, first.per_page, first.items.len()), (1, 20, 20));
}

#[tokio::test]
async fn page_and_page_size_out_of_range_are_400() {
    let app = app().await;
    for uri in [
        "/items?page=0",
        "/items?perPage=0",
        "/items?perPage=101",
        "/items?page=first",
    ] {
        let answer = get(&app, uri).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{uri}");
        assert_eq!(
            answer.json::<Error>().code,
            ErrorCode::InvalidRequest,
            "{uri}"
        );
    }
    assert_eq!(get(&app, "/items?perPage=100").await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_create_retried_with_its_key_creates_once_and_replays_the_same_answer() {
    let app = app().await;
    let first = create(&app, "retry-1", &hammer("H-1", 10)).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(first.header("idempotent-replayed"), None);
    let item: Item = first.json();
    assert_eq!(
        (
            item.name.as_str(),
            item.sku.as_str(),
            item.quantity,
            item.price_cents
        ),
        ("Claw hammer", "H-1", 10, 1299)
    );
    assert_eq!(item.category, Category::Tools);
    assert_eq!(item.tags, ["steel", "16oz"]);

    let again = create(&app, "retry-1", &hammer("H-1", 10)).await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.body, first.body, "the stored body, byte for byte");
    assert_eq!(again.header("idempotent-replayed"), Some("true"));

    // The same request with its JSON laid out differently is still the same request.
    let reordered = r#"{ "category": "tools", "tags": ["steel", "16oz"], "priceCents": 1299,
                          "quantity": 10, "sku": "H-1", "name": "Claw hammer" }"#;
    let third = send(
        &app,
        Method::POST,
        "/items",
        Some(KEY),
        &[("idempotency-key", "retry-1")],
        Some(reordered),
    )
    .await;
    assert_eq!(
        (third.status, &third.body),
        (StatusCode::CREATED, &first.body)
    );

    assert_eq!(total(&app).await, 1, "one row for three requests");
}

#[tokio::test]
async fn another_body_under_a_used_key_is_422_and_creates_nothing() {
    let app = app().await;
    assert_eq!(
        create(&app, "k", &hammer("H-1", 10)).await.status,
        StatusCode::CREATED
    );
    let conflict = create(&app, "k", &hammer("H-2", 10)).await;
    assert_eq!(conflict.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        conflict.json::<Error>().code,
        ErrorCode::IdempotencyConflict
    );
    assert_eq!(total(&app).await, 1);
}

#[tokio::test]
async fn a_create_without_an_idempotency_key_or_with_a_bad_body_is_400() {
    let app = app().await;
    let body = hammer("H-1", 1).to_string();
    let no_key = send(&app, Method::POST, "/items", Some(KEY), &[], Some(&body)).await;
    assert_eq!(no_key.status, StatusCode::BAD_REQUEST);
    let error: Error = no_key.json();
    assert_eq!(error.code, ErrorCode::InvalidRequest);
    assert!(
        error.message.contains("Idempotency-Key"),
        "{}",
        error.message
    );

    let mut wrong_category = hammer("H-1", 1);
    wrong_category["category"] = json!("food");
    let mut negative = hammer("H-1", 1);
    negative["quantity"] = json!(-1);
    let mut empty_name = hammer("H-1", 1);
    empty_name["name"] = json!(" ");
    for (n, body) in [wrong_category, negative, empty_name].iter().enumerate() {
        let answer = create(&app, &format!("bad-{n}"), body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer.json::<Error>().code, ErrorCode::InvalidRequest);
    }
    assert_eq!(total(&app).await, 0);
}

#[tokio::test]
async fn a_duplicate_sku_is_409_with_the_sku_and_its_answer_is_stored_too() {
    let app = app().await;
    assert_eq!(
        create(&app, "a", &hammer("H-1", 10)).await.status,
        StatusCode::CREATED
    );
    let duplicate = create(&app, "b", &hammer("H-1", 3)).await;
    assert_eq!(duplicate.status, StatusCode::CONFLICT);
    let error: DuplicateSku = duplicate.json();
    assert_eq!(error.code, ErrorCode::DuplicateSku);
    assert_eq!(error.sku, "H-1");

    // Retried, the key gets the same refusal, even now that nothing else would change.
    let again = create(&app, "b", &hammer("H-1", 3)).await;
    assert_eq!(
        (again.status, &again.body),
        (StatusCode::CONFLICT, &duplicate.body)
    );
    assert_eq!(total(&app).await, 1);
}

#[tokio::test]
async fn a_deleted_item_is_404() {
    let app = app().await;
    let id = create(&app, "k", &hammer("H-1", 1)).await.json::<Item>().id;
    let uri = format!("/items/{id}");
    assert_eq!(get(&app, &uri).await.json::<Item>().id, id);

    let deleted = send(&app, Method::DELETE, &uri, Some(KEY), &[], None).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert!(deleted.body.is_empty());

    let gone = get(&app, &uri).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(gone.json::<Error>().code, ErrorCode::NotFound);
    let again = send(&app, Method::DELETE, &uri, Some(KEY), &[], None).await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
    assert_eq!(again.json::<Error>().code, ErrorCode::NotFound);

    let not_a_number = get(&app, "/items/hammer").await;
    assert_eq!(not_a_number.status, StatusCode::BAD_REQUEST);
    assert_eq!(not_a_number.json::<Error>().code, ErrorCode::InvalidRequest);
}

#[tokio::test]
async fn reserving_beyond_the_stock_is_409_with_what_is_available() {
    let app = app().await;
    let id = create(&app, "k", &hammer("H-1", 5)).await.json::<Item>().id;
    let reserve = |quantity: u32| {
        let app = app.clone();
        async move {
            let body = json!({ "quantity": quantity }).to_string();
            let uri = format!("/items/{id}/reserve");
            send(&app, Method::POST, &uri, Some(KEY), &[], Some(&body)).await
        }
    };

    let reserved = reserve(3).await;
    assert_eq!(reserved.status, StatusCode::OK);
    let item: Item = reserved.json();
    assert_eq!((item.quantity, item.reserved, item.available), (5, 3, 2));

    let refused = reserve(3).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    let error: InsufficientStock = refused.json();
    assert_eq!(
        (error.code, error.available),
        (ErrorCode::InsufficientStock, 2)
    );
    let unchanged: Item = get(&app, &format!("/items/{id}")).await.json();
    assert_eq!(
        unchanged.reserved, 3,
        "a refused reservation reserves nothing"
    );

    assert_eq!(reserve(2).await.json::<Item>().available, 0);
    assert_eq!(reserve(0).await.status, StatusCode::BAD_REQUEST);

    let body = json!({ "quantity": 1 }).to_string();
    let missing = send(
        &app,
        Method::POST,
        "/items/999/reserve",
        Some(KEY),
        &[],
        Some(&body),
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.json::<Error>().code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_missing_or_wrong_api_key_is_401_on_every_operation() {
    let app = app().await;
    let id = create(&app, "k", &hammer("H-1", 5)).await.json::<Item>().id;
    let item = format!("/items/{id}");
    let reserve = format!("/items/{id}/reserve");
    let new = hammer("H-2", 1).to_string();
    let one = json!({ "quantity": 1 }).to_string();
    let label = format!("/items/{id}/label");
    let operations: [(Method, &str, Option<&str>); 6] = [
        (Method::GET, "/items", None),
        (Method::POST, "/items", Some(&new)),
        (Method::GET, &item, None),
        (Method::GET, &label, None),
        (Method::DELETE, &item, None),
        (Method::POST, &reserve, Some(&one)),
    ];
    for (method, uri, body) in operations {
        for key in [None, Some("wrong-key"), Some("")] {
            let answer = send(
                &app,
                method.clone(),
                uri,
                key,
                &[("idempotency-key", "other")],
                body,
            )
            .await;
            assert_eq!(
                answer.status,
                StatusCode::UNAUTHORIZED,
                "{method} {uri} {key:?}"
            );
            assert_eq!(answer.json::<Error>().code, ErrorCode::Unauthorized);
        }
    }
    // Nothing the refused requests asked for happened.
    let item: Item = get(&app, &item).await.json();
    assert_eq!(item.reserved, 0);
    assert_eq!(total(&app).await, 1);
}

#[tokio::test]
async fn a_label_is_an_svg_whose_text_is_never_markup() {
    let app = app().await;
    let mut odd = hammer("H-<1>", 1);
    odd["name"] = json!("Hammer & <tongs>");
    let id = create(&app, "k", &odd).await.json::<Item>().id;
    let label = get(&app, &format!("/items/{id}/label")).await;
    assert_eq!(label.status, StatusCode::OK);
    assert_eq!(label.header("content-type"), Some("image/svg+xml"));
    let svg = String::from_utf8(label.body).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(">Hammer &amp; &lt;tongs&gt;</text>"), "{svg}");
    assert!(svg.contains(">H-&lt;1&gt;</text>"), "{svg}");
    assert!(svg.contains(">tools</text>"), "{svg}");
    let missing = get(&app, "/items/999/label").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}
