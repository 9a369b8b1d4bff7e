//! The inventory's database: items and the answers given to idempotent requests, in one
//! SQLite file (or in memory), created at start. Each operation is one transaction, run off
//! the async threads on the one connection SQLite allows a writer.

use std::sync::{Arc, Mutex};

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use crate::model::{Category, Item, NewItem};

/// The database, cheap to clone.
#[derive(Clone)]
pub struct Inventory {
    connection: Arc<Mutex<rusqlite::Connection>>,
}

/// The database failed (not a business refusal: those are the `Ok` values).
#[derive(Debug)]
pub struct DbError(String);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the inventory's database failed: {}", self.0)
    }
}

impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError(e.to_string())
    }
}

/// Why `create` made no item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateRefusal {
    /// Another item has this SKU.
    DuplicateSku(String),
}

/// Why `reserve` reserved nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReserveRefusal {
    /// No item has this id.
    NotFound,
    /// Fewer are available than asked for.
    InsufficientStock {
        /// How many are available.
        available: u32,
    },
}

/// An answer as it went out the first time: what a retry with the same key gets again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// The HTTP status.
    pub status: u16,
    /// The JSON body, byte for byte.
    pub body: String,
}

/// What became of a request that carries an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Once {
    /// The key is new: the request ran, and this is its answer, now stored.
    First(StoredResponse),
    /// The key was used before with the same body: the stored answer.
    Replay(StoredResponse),
    /// The key was used before with another body: nothing ran.
    Conflict,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    sku TEXT NOT NULL UNIQUE,
    quantity INTEGER NOT NULL CHECK (quantity >= 0),
    reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= quantity),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    tags TEXT NOT NULL,
    category TEXT NOT NULL CHECK (category IN ('tools', 'parts', 'supplies'))
);
CREATE TABLE IF NOT EXISTS idempotency_keys (
    key TEXT PRIMARY KEY,
    request_hash BLOB NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL
);";

const ITEM_COLUMNS: &str =
    "id, name, sku, quantity, reserved, quantity - reserved, price_cents, tags, category";

fn item_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Item> {
    let tags: String = row.get(7)?;
    let tags = serde_json::from_str(&tags).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(e))
    })?;
    let category: String = row.get(8)?;
    let category = Category::parse(&category).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            8,
            rusqlite::types::Type::Text,
            format!("unknown category {category:?}").into(),
        )
    })?;
    Ok(Item {
        id: row.get(0)?,
        name: row.get(1)?,
        sku: row.get(2)?,
        quantity: row.get(3)?,
        reserved: row.get(4)?,
        available: row.get(5)?,
        price_cents: row.get(6)?,
        tags,
        category,
    })
}

fn find(tx: &rusqlite::Transaction<'_>, id: i64) -> rusqlite::Result<Option<Item>> {
    tx.query_row(
        &format!("SELECT {ITEM_COLUMNS} FROM items WHERE id = ?1"),
        params![id],
        item_from_row,
    )
    .optional()
}

fn insert(
    tx: &rusqlite::Transaction<'_>,
    new: &NewItem,
) -> Result<Result<Item, CreateRefusal>, DbError> {
    let taken: Option<i64> = tx
        .query_row(
            "SELECT id FROM items WHERE sku = ?1",
            params![new.sku],
            |row| row.get(0),
        )
        .optional()?;
    if taken.is_some() {
        return Ok(Err(CreateRefusal::DuplicateSku(new.sku.clone())));
    }
    let tags = serde_json::to_string(&new.tags).map_err(|e| DbError(e.to_string()))?;
    tx.execute(
        "INSERT INTO items (name, sku, quantity, price_cents, tags, category)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            new.name,
            new.sku,
            new.quantity,
            new.price_cents,
            tags,
            new.category.as_str()
        ],
    )?;
    let id = tx.last_insert_rowid();
    match find(tx, id)? {
        Some(item) => Ok(Ok(item)),
        None => Err(DbError(format!("item {id} vanished after its insert"))),
    }
}

impl Inventory {
    /// Open the SQLite file at `path` (created if missing; `:memory:` for a database that
    /// lives as long as the value), and create the tables it lacks.
    pub async fn open(path: &str) -> Result<Inventory, DbError> {
        let path = path.to_owned();
        let connection = tokio::task::spawn_blocking(move || {
            let connection = rusqlite::Connection::open(&path)?;
            connection.busy_timeout(std::time::Duration::from_secs(5))?;
            connection.execute_batch(SCHEMA)?;
            Ok::<_, DbError>(connection)
        })
        .await
        .map_err(|e| DbError(e.to_string()))??;
        Ok(Inventory {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// Run `f` in one transaction, off the async threads. Immediate, so that two processes
    /// on one file cannot both read a key as unused and then both write it.
    async fn transaction<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, DbError> {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || {
            // A panic while the lock was held rolled its transaction back: the connection
            // is still sound.
            let mut connection = connection.lock().unwrap_or_else(|p| p.into_inner());
            let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = f(&tx)?;
            tx.commit()?;
            Ok(value)
        })
        .await
        .map_err(|e| DbError(e.to_string()))?
    }

    /// One page of items in the order of their ids (`page` from 1), and how many items
    /// there are in all, read together.
    pub async fn list(&self, page: u32, per_page: u32) -> Result<(Vec<Item>, u64), DbError> {
        let offset = i64::from(page.saturating_sub(1)) * i64::from(per_page);
        self.transaction(move |tx| {
            let total: i64 = tx.query_row("SELECT COUNT(*) FROM items", [], |row| row.get(0))?;
            let total = u64::try_from(total).map_err(|e| DbError(e.to_string()))?;
            let mut statement = tx.prepare(&format!(
                "SELECT {ITEM_COLUMNS} FROM items ORDER BY id LIMIT ?1 OFFSET ?2"
            ))?;
            let items = statement
                .query_map(params![per_page, offset], item_from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok((items, total))
        })
        .await
    }

    /// The item with this id, if there is one.
    pub async fn get(&self, id: i64) -> Result<Option<Item>, DbError> {
        self.transaction(move |tx| Ok(find(tx, id)?)).await
    }

    /// Create an item once per idempotency `key`. A new key runs the insert, turns its
    /// outcome into an HTTP answer with `respond`, and stores that answer with
    /// `request_hash` in the same transaction: there is never an item without its stored
    /// answer, nor the reverse. A used key runs nothing.
    pub async fn create_once(
        &self,
        key: String,
        request_hash: Vec<u8>,
        new: NewItem,
        respond: impl FnOnce(Result<Item, CreateRefusal>) -> StoredResponse + Send + 'static,
    ) -> Result<Once, DbError> {
        self.transaction(move |tx| {
            let stored: Option<(Vec<u8>, u16, String)> = tx
                .query_row(
                    "SELECT request_hash, status, body FROM idempotency_keys WHERE key = ?1",
                    params![key],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()?;
            if let Some((hash, status, body)) = stored {
                return Ok(if hash == request_hash {
                    Once::Replay(StoredResponse { status, body })
                } else {
                    Once::Conflict
                });
            }
            let answer = respond(insert(tx, &new)?);
            tx.execute(
                "INSERT INTO idempotency_keys (key, request_hash, status, body)
                 VALUES (?1, ?2, ?3, ?4)",
                params![key, request_hash, answer.status, answer.body],
            )?;
            Ok(Once::First(answer))
        })
        .await
    }

    /// Delete the item with this id; `false` if there was none.
    pub async fn delete(&self, id: i64) -> Result<bool, DbError> {
        self.transaction(move |tx| {
            Ok(tx.execute("DELETE FROM items WHERE id = ?1", params![id])? > 0)
        })
        .await
    }

    /// Reserve `quantity` of the item with this id, if that many are available.
    pub async fn reserve(
        &self,
        id: i64,
        quantity: u32,
    ) -> Result<Result<Item, ReserveRefusal>, DbError> {
        self.transaction(move |tx| {
            let Some(item) = find(tx, id)? else {
                return Ok(Err(ReserveRefusal::NotFound));
            };
            if item.available < quantity {
                return Ok(Err(ReserveRefusal::InsufficientStock {
                    available: item.available,
                }));
            }
            tx.execute(
                "UPDATE items SET reserved = reserved + ?1 WHERE id = ?2",
                params![quantity, id],
            )?;
            match find(tx, id)? {
                Some(item) => Ok(Ok(item)),
                None => Err(DbError(format!(
                    "item {id} vanished during its reservation"
                ))),
            }
        })
        .await
    }
}
