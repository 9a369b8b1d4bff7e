//! An ordinary team's REST API: an inventory of items with stock, in SQLite, behind axum.
//!
//! It knows nothing of MCP. It is here as the other end of `mcp openapi`: the service a
//! team already has, whose OpenAPI document (`openapi.json` beside this crate) is produced
//! from its own handlers with `utoipa`, and from which an MCP server is generated. Every
//! route is registered through [`utoipa_axum`], so a route cannot exist without its entry
//! in the document, and `tests/document.rs` fails when the committed document is stale.
//!
//! What the document has to describe, and a generator has to map:
//! - camelCase names on the wire (`priceCents`, `perPage`, `itemId`);
//! - a paged list, with a `Link: <…>; rel="next"` header;
//! - a create that requires an `Idempotency-Key` header, which the service honours: a
//!   retry with the same key and body gets the stored answer again;
//! - typed business errors: 409 `duplicate_sku` with the `sku`, 409 `insufficient_stock`
//!   with what is `available`;
//! - an API key in the `X-Api-Key` header on every operation.

pub mod api;
pub mod db;
pub mod model;

use axum::Router;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use db::Inventory;

/// The environment variable `serve` reads the API key from.
pub const API_KEY_VARIABLE: &str = "INVENTORY_API_KEY";
/// The API key when [`API_KEY_VARIABLE`] is unset: for trying the service on one's own
/// machine, never for a deployment.
pub const DEFAULT_API_KEY: &str = "dev-key";

/// What every handler gets: the database and the key callers must send.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub inventory: Inventory,
    /// The key every request must carry in `X-Api-Key`.
    pub api_key: String,
}

/// The parts of the document no handler says: its title, its tag, its security scheme.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Inventory API",
        version = "1.0.0",
        description = "Items with stock: list, create (idempotently), reserve, delete. \
                       Every operation requires the service's API key in `X-Api-Key`."
    ),
    servers((url = "http://127.0.0.1:8090", description = "`inventory-api serve`, on its default address")),
    tags((name = "items", description = "The inventory's items and their stock")),
    modifiers(&ApiKeyScheme)
)]
struct ApiDoc;

/// Declares the `api_key` scheme the operations require.
struct ApiKeyScheme;

impl utoipa::Modify for ApiKeyScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Api-Key",
                "The service's key: `INVENTORY_API_KEY` where it runs (`dev-key` when unset).",
            ))),
        );
    }
}

/// The routes and the document, from one list of handlers.
fn routes() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(api::list_items, api::create_item))
        .routes(routes!(api::get_item, api::delete_item))
        .routes(routes!(api::reserve_item))
        .routes(routes!(api::item_label))
        .split_for_parts()
}

/// The service: every route, behind the API-key check.
pub fn router(inventory: Inventory, api_key: impl Into<String>) -> Router {
    let state = AppState {
        inventory,
        api_key: api_key.into(),
    };
    let (router, _) = routes();
    router
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            api::require_api_key,
        ))
        .with_state(state)
}

/// The service's OpenAPI 3.1 document, as its handlers describe it.
pub fn openapi() -> utoipa::openapi::OpenApi {
    routes().1
}
