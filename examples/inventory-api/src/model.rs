//! What travels on the wire: the request and response bodies, in camelCase, each with the
//! schema the OpenAPI document publishes for it. The handlers and the database share these
//! types, so the document cannot describe a field the service does not send.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The largest page `GET /items` serves.
pub const MAX_PER_PAGE: u32 = 100;
/// The page size when the request names none.
pub const DEFAULT_PER_PAGE: u32 = 20;

/// What kind of thing an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Hand and power tools.
    Tools,
    /// Spare parts.
    Parts,
    /// Consumables.
    Supplies,
}

impl Category {
    /// The name the database and the wire use.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Tools => "tools",
            Category::Parts => "parts",
            Category::Supplies => "supplies",
        }
    }

    /// The category a stored name stands for.
    pub fn parse(name: &str) -> Option<Category> {
        match name {
            "tools" => Some(Category::Tools),
            "parts" => Some(Category::Parts),
            "supplies" => Some(Category::Supplies),
            _ => None,
        }
    }
}

/// One item of the inventory, with its stock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Its number, given by the service.
    pub id: i64,
    /// What people call it.
    pub name: String,
    /// The stock-keeping unit: unique across the inventory.
    pub sku: String,
    /// How many are on hand.
    pub quantity: u32,
    /// How many of those are reserved.
    pub reserved: u32,
    /// How many can still be reserved: `quantity - reserved`.
    pub available: u32,
    /// The unit price, in cents.
    pub price_cents: u32,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// What kind of thing it is.
    pub category: Category,
}

/// The body of `POST /items`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewItem {
    /// What people call it; not empty.
    #[schema(min_length = 1)]
    pub name: String,
    /// The stock-keeping unit; not empty, and not one another item has.
    #[schema(min_length = 1)]
    pub sku: String,
    /// How many are on hand.
    pub quantity: u32,
    /// The unit price, in cents.
    pub price_cents: u32,
    /// Free-form labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// What kind of thing it is.
    pub category: Category,
}

/// The body of `POST /items/{itemId}/reserve`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reservation {
    /// How many to reserve; at least 1.
    #[schema(minimum = 1)]
    pub quantity: u32,
}

/// The query of `GET /items`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Which page, from 1.
    #[param(minimum = 1, default = json!(1))]
    pub page: Option<u32>,
    /// How many items a page holds, 1 to 100.
    #[param(minimum = 1, maximum = 100, default = json!(20))]
    pub per_page: Option<u32>,
}

/// One page of items, in the order of their ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemPage {
    /// The items of this page; empty past the last one.
    pub items: Vec<Item>,
    /// This page's number, from 1.
    pub page: u32,
    /// The page size asked for.
    pub per_page: u32,
    /// How many items the inventory holds in all.
    pub total: u64,
}

/// The stable reason a request failed, for programs to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The query, the body or a header is not what the operation takes.
    InvalidRequest,
    /// No `X-Api-Key`, or not the service's key.
    Unauthorized,
    /// No item has this id.
    NotFound,
    /// The `Idempotency-Key` was used before with another body.
    IdempotencyConflict,
    /// Another item has this SKU.
    DuplicateSku,
    /// Fewer items are available than the reservation asks for.
    InsufficientStock,
    /// The service failed; trying again later may help.
    Internal,
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Error {
    /// The reason, for programs.
    pub code: ErrorCode,
    /// The reason, for people.
    pub message: String,
}

/// `POST /items` refused: another item has this SKU (`code` is `duplicate_sku`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateSku {
    /// Always `duplicate_sku`.
    pub code: ErrorCode,
    /// The reason, for people.
    pub message: String,
    /// The SKU that is taken.
    pub sku: String,
}

/// A reservation refused: not enough stock (`code` is `insufficient_stock`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InsufficientStock {
    /// Always `insufficient_stock`.
    pub code: ErrorCode,
    /// The reason, for people.
    pub message: String,
    /// How many could be reserved now.
    pub available: u32,
}
