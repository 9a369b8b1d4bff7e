//! {{name}}: a support desk's tickets as MCP tools, for callers with API keys.
//!
//! - `list_tickets` pages through the tickets (a `Cursor` in, a `Page` out);
//! - `open_ticket` takes an idempotency key, so a retried call opens one ticket;
//! - `close_ticket` is destructive: it asks the user first, and its confirmation works once;
//! - `tickets://<id>` is one ticket as a resource;
//! - hosts that render views show `list_tickets` as a table with a "Load more" button
//!   (`src/tickets.html`, plain HTML with mcp-runtime's view bridge inlined).
//!
//! Callers show an API key (`API_KEY_READ`: `tickets:read`; `API_KEY_WRITE`: both scopes).

mod desk;

pub use desk::{Desk, Status, Ticket};

use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::prelude::*;
use mcp_runtime::{Cursor, Page};

/// How many tickets a page holds.
const PAGE: usize = 20;

/// The tickets as a table, with a button for the next page: what hosts that render views
/// show for `list_tickets`.
#[view("ui://{{name}}/tickets", title = "Tickets")]
fn tickets_page() -> String {
    include_str!("tickets.html").replace("/*VIEW_BRIDGE_JS*/", mcp_runtime::VIEW_BRIDGE_JS)
}

/// Lists the tickets in the order of their numbers, 20 at a time; to see more, call again
/// with the `cursor` of the page before.
#[tool(read_only, scopes("tickets:read"), ui = "ui://{{name}}/tickets")]
pub async fn list_tickets(
    /// Only the tickets in this state (all when left out).
    status: Option<Status>,
    after: Cursor<u64>,
    desk: State<Desk>,
) -> Page<Ticket> {
    let tickets = desk.list(status, after.position().copied().unwrap_or(0), PAGE);
    let next = if tickets.len() == PAGE {
        tickets.last().map(|ticket| ticket.id)
    } else {
        None
    };
    after.page(tickets, next)
}

/// Opens a ticket. Send an `idempotencyKey` of your own: if the answer is lost, calling
/// again with the same key and title opens no second ticket and gives the first one.
#[tool(idempotency, scopes("tickets:write"))]
pub async fn open_ticket(
    /// What the ticket is about, in one line.
    title: String,
    desk: State<Desk>,
) -> Result<Json<Ticket>, ToolError> {
    if title.trim().is_empty() {
        return Err(ToolError::new("the title is empty: say in one line what it is about"));
    }
    Ok(Json(desk.open(title)))
}

/// The user's answer to "close this ticket?".
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct ConfirmClose {
    /// Close the ticket for good?
    pub confirm: bool,
}

/// Closes a ticket for good, once the user confirms it.
#[tool(destructive, idempotent, scopes("tickets:write"))]
pub async fn close_ticket(
    /// The ticket's number.
    id: u64,
    desk: State<Desk>,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let ticket = desk
        .get(id)
        .ok_or_else(|| ToolError::new(format!("There is no ticket {id}.")))?;
    let question = format!("Close ticket {id}, \"{}\"?", ticket.title);
    // Without an answer in the request, `?` ends this call asking the user.
    match ctx.elicit::<ConfirmClose>("confirm_close", &question)? {
        Elicitation::Accepted(ConfirmClose { confirm: true }) => {
            desk.close(id);
            Ok(format!("Ticket {id} closed."))
        }
        _ => Ok(format!("Ticket {id} stays open: the user did not confirm.")),
    }
}

/// One ticket, as JSON. Not kept by clients (`ttl = "0s"`): the tools change tickets.
#[resource(
    "tickets://<id>",
    mime = "application/json",
    cache = private,
    ttl = "0s",
    scopes("tickets:read")
)]
pub async fn ticket(id: u64, desk: State<Desk>) -> Option<Json<Ticket>> {
    desk.get(id).map(Json)
}

/// The server: the tools, the desk they use, and the API keys callers show over HTTP
/// (`API_KEY_READ`, `API_KEY_WRITE`; none set: loopback only, callers unchecked). Over
/// stdio the host names the caller (`MCP_PRINCIPAL=agent MCP_SCOPES="tickets:read tickets:write"`).
pub fn server() -> Result<Server, mcp_runtime::Error> {
    let server = Server::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Support tickets: list them, open one, close one (the user confirms).")
        .state(Desk::sample(120));
    let mut keys = ApiKeys::new();
    if let Ok(key) = std::env::var("API_KEY_READ") {
        keys = keys.key(&key, Principal::new("reader").with_scopes(["tickets:read"]))?;
    }
    if let Ok(key) = std::env::var("API_KEY_WRITE") {
        let agent = Principal::new("agent").with_scopes(["tickets:read", "tickets:write"]);
        keys = keys.key(&key, agent)?;
    }
    if keys.is_empty() {
        Ok(server)
    } else {
        Ok(server.verify_tokens(keys))
    }
}
