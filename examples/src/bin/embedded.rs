//! An axum service that already exists (a warehouse's stock API) gains an MCP endpoint.
//!
//! - Its database (SQLite, in memory here) serves the REST routes and the MCP tools alike:
//!   the REST handlers take it as axum's `State`, the tools as `State<Stock>`.
//! - Its own authentication middleware turns the identity the company gateway vouches for
//!   (`X-Forwarded-User` and `X-Forwarded-Scopes`, set by the gateway after single
//!   sign-on) into a `Principal` in the request's extensions, for REST handlers and tools
//!   alike. No token verifier is configured: the middleware is the authentication.
//! - The MCP router (`App::router`) is merged next to the REST routes, behind the same
//!   middleware.
//! - `restock` declares `scopes("stock:write")`: a caller without it, or anonymous, gets
//!   HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"`, as with tokens.
//!
//! ```text
//! cargo run -p mcp-examples --bin embedded -- --http 127.0.0.1:8080
//! curl -s http://127.0.0.1:8080/api/items
//! ```
//!
//! The gateway headers are trusted as they come, so the service must be reachable only
//! through the gateway, which sets them and strips what clients send. It serves loopback
//! addresses only, unless `TRUST_GATEWAY_HEADERS=1` says that is arranged.

// ANCHOR: uses
use std::sync::{Arc, Mutex};

use axum::extract::{self, Request};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use mcp_runtime::prelude::*;
use mcp_runtime::process::{self, Mode};
// ANCHOR_END: uses

// ANCHOR: db
/// The service's database, cheap to clone: one SQLite connection (in memory), used off
/// the async threads. A real service would hold its connection pool here.
#[derive(Clone)]
struct Stock(Arc<Mutex<rusqlite::Connection>>);

/// One item in stock.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct Item {
    /// What it is.
    name: String,
    /// How many are in the warehouse.
    quantity: i64,
    /// Who restocked it last, if anyone did.
    restocked_by: Option<String>,
}

impl Stock {
    fn open() -> rusqlite::Result<Stock> {
        let connection = rusqlite::Connection::open_in_memory()?;
        connection.execute_batch(
            "CREATE TABLE items (name TEXT PRIMARY KEY, quantity INTEGER NOT NULL, restocked_by TEXT);
             INSERT INTO items (name, quantity) VALUES ('anvil', 3), ('rocket skates', 0);",
        )?;
        Ok(Stock(Arc::new(Mutex::new(connection))))
    }

    /// Run `f` on the connection, off the async threads.
    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, String> {
        let connection = self.0.clone();
        tokio::task::spawn_blocking(move || {
            f(&connection.lock().unwrap_or_else(|p| p.into_inner())).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| e.to_string())?
    }

    async fn items(&self) -> Result<Vec<Item>, String> {
        self.with(|c| {
            let mut query =
                c.prepare("SELECT name, quantity, restocked_by FROM items ORDER BY name")?;
            let rows = query.query_map([], |row| {
                Ok(Item {
                    name: row.get(0)?,
                    quantity: row.get(1)?,
                    restocked_by: row.get(2)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    /// Add `quantity` of `name`, as `by`: the item as it now is, `None` for an unknown one.
    async fn restock(
        &self,
        name: String,
        quantity: u32,
        by: String,
    ) -> Result<Option<Item>, String> {
        self.with(move |c| {
            let changed = c.execute(
                "UPDATE items SET quantity = quantity + ?1, restocked_by = ?2 WHERE name = ?3",
                rusqlite::params![quantity, by, name],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            c.query_row(
                "SELECT name, quantity, restocked_by FROM items WHERE name = ?1",
                [&name],
                |row| {
                    Ok(Some(Item {
                        name: row.get(0)?,
                        quantity: row.get(1)?,
                        restocked_by: row.get(2)?,
                    }))
                },
            )
        })
        .await
    }
}
// ANCHOR_END: db

// ANCHOR: middleware
/// The gateway's headers: who the employee is, and what they may do.
const USER_HEADER: &str = "x-forwarded-user";
const SCOPES_HEADER: &str = "x-forwarded-scopes";

/// The team's authentication middleware: the identity the gateway vouches for becomes a
/// `Principal` in the request's extensions. Without one the request goes on anonymous
/// (the stock list is public); each route decides what that may do.
async fn identify(mut request: Request, next: Next) -> Response {
    let headers = request.headers();
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let principal = text(USER_HEADER).map(|user| {
        let scopes = text(SCOPES_HEADER).unwrap_or_default();
        Principal::new(user).with_scopes(scopes.split_whitespace())
    });
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}
// ANCHOR_END: middleware

// ANCHOR: rest
/// `GET /api/items`: the stock, for anyone.
async fn list_items(
    extract::State(stock): extract::State<Stock>,
) -> Result<axum::Json<Vec<Item>>, StatusCode> {
    stock
        .items()
        .await
        .map(axum::Json)
        .map_err(|_| StatusCode::SERVICE_UNAVAILABLE)
}

/// What `POST /api/items/{name}/restock` takes.
#[derive(serde::Deserialize)]
struct Delivery {
    quantity: u32,
}

/// `POST /api/items/{name}/restock`: for employees with `stock:write`.
async fn restock_item(
    extract::State(stock): extract::State<Stock>,
    extract::Path(name): extract::Path<String>,
    who: Option<extract::Extension<Principal>>,
    axum::Json(delivery): axum::Json<Delivery>,
) -> Result<axum::Json<Item>, StatusCode> {
    let Some(extract::Extension(who)) = who else {
        return Err(StatusCode::UNAUTHORIZED);
    };
    if !who.has_scope("stock:write") {
        return Err(StatusCode::FORBIDDEN);
    }
    match stock.restock(name, delivery.quantity, who.subject).await {
        Ok(Some(item)) => Ok(axum::Json(item)),
        Ok(None) => Err(StatusCode::NOT_FOUND),
        Err(_) => Err(StatusCode::SERVICE_UNAVAILABLE),
    }
}
// ANCHOR_END: rest

// ANCHOR: tools
/// The warehouse's stock: every item and how many there are.
#[tool(read_only)]
async fn stock_levels(stock: State<Stock>) -> Result<Json<Vec<Item>>, ToolError> {
    stock
        .items()
        .await
        .map(Json)
        .map_err(|_| ToolError::new("the stock database is unavailable; try again later"))
}

/// Records a delivery: adds `quantity` of `item` to the stock, in your name.
#[tool(scopes("stock:write"))]
async fn restock(
    /// The item, as `stock_levels` names it.
    item: String,
    /// How many arrived (1 to 1000).
    quantity: u32,
    who: Principal,
    stock: State<Stock>,
) -> Result<Json<Item>, ToolError> {
    if !(1..=1000).contains(&quantity) {
        return Err(ToolError::new("quantity must be between 1 and 1000"));
    }
    match stock.restock(item.clone(), quantity, who.subject).await {
        Ok(Some(restocked)) => Ok(Json(restocked)),
        Ok(None) => Err(ToolError::new(format!(
            "there is no item {item:?} in stock"
        ))),
        Err(_) => Err(ToolError::new(
            "the stock database is unavailable; try again later",
        )),
    }
}
// ANCHOR_END: tools

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = process::parse_args(std::env::args().skip(1))?;
    process::init_logging();
    let stock = Stock::open().map_err(|e| mcp_runtime::Error::Args(e.to_string()))?;
    let app = Server::new("stock", env!("CARGO_PKG_VERSION"))
        .instructions("The warehouse's stock: levels, and recording deliveries.")
        .state(stock.clone())
        .build()?;
    let Mode::Http(addr) = mode else {
        return app.serve(mode).await;
    };
    if !addr.ip().is_loopback() && std::env::var("TRUST_GATEWAY_HEADERS").as_deref() != Ok("1") {
        return Err(mcp_runtime::Error::Args(format!(
            "refusing to serve {addr}: the identity headers are trusted as they come; set TRUST_GATEWAY_HEADERS=1 when only the gateway can reach this address"
        )));
    }
    // The REST API and the MCP endpoint: one router, one database, one middleware.
    let router = axum::Router::new()
        .route("/api/items", get(list_items))
        .route("/api/items/{name}/restock", post(restock_item))
        .with_state(stock)
        .merge(app.router())
        .layer(middleware::from_fn(identify));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(mcp_runtime::Error::Io)?;
    let local = listener.local_addr().map_err(mcp_runtime::Error::Io)?;
    tracing::info!("serving MCP over Streamable HTTP at http://{local}/mcp");
    let drained = app.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            process::shutdown_signal().await;
            tokio::spawn(async move { drained.shutdown().await });
        })
        .await
        .map_err(mcp_runtime::Error::Io)
}
// ANCHOR_END: main
