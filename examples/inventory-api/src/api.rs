//! The handlers. Each one's `#[utoipa::path]` is its entry in the OpenAPI document: its
//! doc comment gives the summary (first line) and the description (the rest), and its
//! responses name the types the handler returns, so the document and the service are
//! written in one place.

// ANCHOR: uses
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use sha2::{Digest, Sha256};

use crate::db::{CreateRefusal, DbError, Once, ReserveRefusal, StoredResponse};
use crate::model::{
    DuplicateSku, Error, ErrorCode, InsufficientStock, Item, ItemPage, NewItem, PageQuery,
    Reservation, DEFAULT_PER_PAGE, MAX_PER_PAGE,
};
use crate::AppState;
// ANCHOR_END: uses

/// The header that carries the caller's API key.
pub const API_KEY_HEADER: &str = "x-api-key";
/// The header `POST /items` requires.
pub const IDEMPOTENCY_KEY_HEADER: &str = "idempotency-key";
/// The header set on an answer that is the stored answer of an earlier request.
pub const REPLAYED_HEADER: &str = "idempotent-replayed";
/// The longest idempotency key taken.
const MAX_IDEMPOTENCY_KEY: usize = 255;

/// A failed request, as the handlers return it.
#[derive(Debug)]
pub enum ApiError {
    /// 400: the query, the body or a header is not what the operation takes.
    Invalid(String),
    /// 401.
    Unauthorized,
    /// 404: no item with this id.
    NotFound(i64),
    /// 422: the idempotency key was used with another body.
    IdempotencyConflict,
    /// 409 on reserve.
    InsufficientStock {
        /// How many are available.
        available: u32,
    },
    /// 500.
    Database(DbError),
}

impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        ApiError::Database(e)
    }
}

fn error(status: StatusCode, code: ErrorCode, message: String) -> Response {
    (status, Json(Error { code, message })).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Invalid(message) => {
                error(StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest, message)
            }
            ApiError::Unauthorized => error(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "send the service's API key in the X-Api-Key header".to_owned(),
            ),
            ApiError::NotFound(id) => error(
                StatusCode::NOT_FOUND,
                ErrorCode::NotFound,
                format!("no item has the id {id}"),
            ),
            ApiError::IdempotencyConflict => error(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IdempotencyConflict,
                "this Idempotency-Key was used with another body: use a new key for a new item"
                    .to_owned(),
            ),
            ApiError::InsufficientStock { available } => (
                StatusCode::CONFLICT,
                Json(InsufficientStock {
                    code: ErrorCode::InsufficientStock,
                    message: format!("only {available} available"),
                    available,
                }),
            )
                .into_response(),
            ApiError::Database(e) => {
                // The detail is for the operator's log, not for the caller.
                eprintln!("inventory-api: {e}");
                error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Internal,
                    "the inventory's database failed".to_owned(),
                )
            }
        }
    }
}

/// Turn axum's plain-text rejections into the documented error body.
fn invalid(rejection: impl std::fmt::Display) -> ApiError {
    ApiError::Invalid(rejection.to_string())
}

/// Answer 401 unless the request carries the service's API key. Both sides are hashed
/// before they are compared, so the time the comparison takes says nothing about the key.
pub async fn require_api_key(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let given = request
        .headers()
        .get(API_KEY_HEADER)
        .map(|value| Sha256::digest(value.as_bytes()));
    if given.is_some_and(|given| given == Sha256::digest(state.api_key.as_bytes())) {
        next.run(request).await
    } else {
        ApiError::Unauthorized.into_response()
    }
}

/// List the items, a page at a time.
///
/// Items come in the order of their ids, so walking the pages from 1 until one comes back
/// short sees every item once. When there is a next page, the `Link` header points to it
/// with `rel="next"`.
#[utoipa::path(
    get,
    path = "/items",
    tag = "items",
    params(PageQuery),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "One page of items", body = ItemPage,
            headers(("Link" = String, description = "`</items?page=N&perPage=M>; rel=\"next\"` when there is a next page"))),
        (status = 400, description = "`page` or `perPage` out of range (`invalid_request`)", body = Error),
        (status = 401, description = "No API key, or not this service's (`unauthorized`)", body = Error),
    )
)]
pub async fn list_items(
    State(state): State<AppState>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(invalid)?;
    let page = query.page.unwrap_or(1);
    let per_page = query.per_page.unwrap_or(DEFAULT_PER_PAGE);
    if page == 0 {
        return Err(ApiError::Invalid("page starts at 1".to_owned()));
    }
    if !(1..=MAX_PER_PAGE).contains(&per_page) {
        return Err(ApiError::Invalid(format!(
            "perPage is from 1 to {MAX_PER_PAGE}"
        )));
    }
    let (items, total) = state.inventory.list(page, per_page).await?;
    let mut headers = HeaderMap::new();
    if u64::from(page) * u64::from(per_page) < total {
        let next = format!(
            "</items?page={}&perPage={per_page}>; rel=\"next\"",
            page + 1
        );
        if let Ok(value) = HeaderValue::from_str(&next) {
            headers.insert(header::LINK, value);
        }
    }
    let body = ItemPage {
        items,
        page,
        per_page,
        total,
    };
    Ok((headers, Json(body)).into_response())
}

/// Get one item.
///
/// The item with this id, with its stock.
#[utoipa::path(
    get,
    path = "/items/{itemId}",
    tag = "items",
    params(("itemId" = i64, Path, description = "The item's id")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The item", body = Item),
        (status = 400, description = "The id is not a number (`invalid_request`)", body = Error),
        (status = 401, description = "No API key, or not this service's (`unauthorized`)", body = Error),
        (status = 404, description = "No item has this id (`not_found`)", body = Error),
    )
)]
pub async fn get_item(
    State(state): State<AppState>,
    id: Result<Path<i64>, PathRejection>,
) -> Result<Json<Item>, ApiError> {
    let Path(id) = id.map_err(invalid)?;
    match state.inventory.get(id).await? {
        Some(item) => Ok(Json(item)),
        None => Err(ApiError::NotFound(id)),
    }
}

/// Print an item's shelf label.
///
/// The item's label as an SVG image: its name, SKU and category, to print and stick on
/// the shelf.
#[utoipa::path(
    get,
    path = "/items/{itemId}/label",
    tag = "items",
    params(("itemId" = i64, Path, description = "The item's id")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The label", content_type = "image/svg+xml", body = String),
        (status = 400, description = "The id is not a number (`invalid_request`)", body = Error),
        (status = 401, description = "No API key, or not this service's (`unauthorized`)", body = Error),
        (status = 404, description = "No item has this id (`not_found`)", body = Error),
    )
)]
pub async fn item_label(
    State(state): State<AppState>,
    id: Result<Path<i64>, PathRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Path(id) = id.map_err(invalid)?;
    let Some(item) = state.inventory.get(id).await? else {
        return Err(ApiError::NotFound(id));
    };
    let svg = format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="320" height="120">"#,
            r#"<text x="10" y="40" font-size="24">{}</text>"#,
            r#"<text x="10" y="75" font-size="18">{}</text>"#,
            r#"<text x="10" y="105" font-size="14">{}</text></svg>"#
        ),
        xml_text(&item.name),
        xml_text(&item.sku),
        xml_text(item.category.as_str()),
    );
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg))
}

/// `text` with the characters XML gives a meaning escaped: a name is shown, never read as
/// markup.
fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

// ANCHOR: create_item
/// Create an item.
///
/// Requires an `Idempotency-Key` header: a client that retries after a lost answer sends the
/// same key and the same body, and gets the first answer again (same status, same body,
/// with `Idempotent-Replayed: true`) instead of a second item. The outcome stored for a key
/// is the 201 or the 409 it first got. The same key with another body is refused with 422
/// `idempotency_conflict`. A SKU another item has is refused with 409 `duplicate_sku`.
#[utoipa::path(
    post,
    path = "/items",
    tag = "items",
    request_body = NewItem,
    params(("Idempotency-Key" = String, Header, description = "A key unique to this item's creation (1 to 255 characters), reused when the request is retried")),
    security(("api_key" = [])),
    responses(
        (status = 201, description = "The item, created", body = Item),
        (status = 400, description = "The body is not an item, or the Idempotency-Key header is missing (`invalid_request`)", body = Error),
        (status = 401, description = "No API key, or not this service's (`unauthorized`)", body = Error),
        (status = 409, description = "Another item has this SKU (`duplicate_sku`)", body = DuplicateSku),
        (status = 422, description = "This Idempotency-Key was used with another body (`idempotency_conflict`)", body = Error),
    )
)]
pub async fn create_item(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<NewItem>, JsonRejection>,
) -> Result<Response, ApiError> {
    // ANCHOR_END: create_item
    let key = headers
        .get(IDEMPOTENCY_KEY_HEADER)
        .ok_or_else(|| ApiError::Invalid("the Idempotency-Key header is required".to_owned()))?
        .to_str()
        .map_err(|_| ApiError::Invalid("the Idempotency-Key header is not text".to_owned()))?
        .to_owned();
    if key.is_empty() || key.len() > MAX_IDEMPOTENCY_KEY {
        return Err(ApiError::Invalid(format!(
            "the Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} characters"
        )));
    }
    let Json(new) = body.map_err(invalid)?;
    if new.name.trim().is_empty() || new.sku.trim().is_empty() {
        return Err(ApiError::Invalid(
            "name and sku must not be empty".to_owned(),
        ));
    }
    // The body as parsed, not as sent: a retry that spaces or orders its JSON differently
    // is still the same request.
    let canonical = serde_json::to_vec(&new).map_err(|e| ApiError::Invalid(e.to_string()))?;
    let hash = Sha256::digest(&canonical).to_vec();
    let once = state
        .inventory
        .create_once(key, hash, new, |outcome| match outcome {
            Ok(item) => stored(StatusCode::CREATED, &item),
            Err(CreateRefusal::DuplicateSku(sku)) => stored(
                StatusCode::CONFLICT,
                &DuplicateSku {
                    code: ErrorCode::DuplicateSku,
                    message: format!("another item has the SKU {sku}"),
                    sku,
                },
            ),
        })
        .await?;
    match once {
        Once::First(answer) => Ok(replay(answer, false)),
        Once::Replay(answer) => Ok(replay(answer, true)),
        Once::Conflict => Err(ApiError::IdempotencyConflict),
    }
}

/// An answer to store: its status and its JSON body.
fn stored(status: StatusCode, body: &impl serde::Serialize) -> StoredResponse {
    StoredResponse {
        status: status.as_u16(),
        // Our own types always serialize; "null" keeps the signature infallible.
        body: serde_json::to_string(body).unwrap_or_else(|_| "null".to_owned()),
    }
}

/// A stored answer as a response.
fn replay(answer: StoredResponse, replayed: bool) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        answer.body,
    )
        .into_response();
    if replayed {
        response
            .headers_mut()
            .insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    }
    response
}

/// Delete an item.
///
/// Removes the item with this id, with its stock and reservations.
#[utoipa::path(
    delete,
    path = "/items/{itemId}",
    tag = "items",
    params(("itemId" = i64, Path, description = "The item's id")),
    security(("api_key" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "The id is not a number (`invalid_request`)", body = Error),
        (status = 401, description = "No API key, or not this service's (`unauthorized`)", body = Error),
        (status = 404, description = "No item has this id (`not_found`)", body = Error),
    )
)]
pub async fn delete_item(
    State(state): State<AppState>,
    id: Result<Path<i64>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    let Path(id) = id.map_err(invalid)?;
    if state.inventory.delete(id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(id))
    }
}

/// Reserve stock of an item.
///
/// Sets `quantity` of the item aside, if at least that many are available; the answer is
/// the item with its new `reserved` and `available`. When fewer are available, nothing is
/// reserved and the 409 `insufficient_stock` says how many are.
#[utoipa::path(
    post,
    path = "/items/{itemId}/reserve",
    tag = "items",
    params(("itemId" = i64, Path, description = "The item's id")),
    request_body = Reservation,
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The item, with the stock reserved", body = Item),
        (status = 400, description = "The id is not a number, or the body is not a reservation of at least 1 (`invalid_request`)", body = Error),
        (status = 401, description = "No API key, or not this service's (`unauthorized`)", body = Error),
        (status = 404, description = "No item has this id (`not_found`)", body = Error),
        (status = 409, description = "Fewer are available than asked for (`insufficient_stock`)", body = InsufficientStock),
    )
)]
pub async fn reserve_item(
    State(state): State<AppState>,
    id: Result<Path<i64>, PathRejection>,
    body: Result<Json<Reservation>, JsonRejection>,
) -> Result<Json<Item>, ApiError> {
    let Path(id) = id.map_err(invalid)?;
    let Json(reservation) = body.map_err(invalid)?;
    if reservation.quantity == 0 {
        return Err(ApiError::Invalid("reserve at least 1".to_owned()));
    }
    match state.inventory.reserve(id, reservation.quantity).await? {
        Ok(item) => Ok(Json(item)),
        Err(ReserveRefusal::NotFound) => Err(ApiError::NotFound(id)),
        Err(ReserveRefusal::InsufficientStock { available }) => {
            Err(ApiError::InsufficientStock { available })
        }
    }
}
