//! A business API as an MCP server: the accounts and transfers of several organisations,
//! in an SQLite file or in PostgreSQL.
//!
//! - `accounts`, `history` (paged, newest first) and the `ledger://accounts/<id>`
//!   resource read; `export_statement` hands out a CSV statement as a link to an artifact
//!   instead of the rows; `transfer` moves money between two accounts of the caller's
//!   organisation.
//! - A transfer asks the user to confirm, and the confirmation runs once: replaying it is
//!   refused (`destructive` tools are single-use).
//! - A transfer takes an idempotency key: a client that retries after a lost answer gets
//!   the transfer it made, not a second one.
//! - Too little money is a typed business error (`insufficient_funds`, with the balance),
//!   which the tool's output schema describes beside the transfer.
//! - `statement` shows an account's latest transfers in a view (`ui://ledger/statement`,
//!   the MCP Apps extension) that a host renders beside the result; the view pages on with
//!   `statement_more`, a tool for views only. Clients without the extension get the same
//!   result as text and structured content.
//! - Every call sees only its caller's tenant; writing needs the `ledger:write` scope.
//!
//! The binary (`src/main.rs`) serves it over stdio or HTTP, with bearer tokens when an
//! issuer is configured; the book's "Exposing a business API" walks through it.

pub mod db;

// ANCHOR: uses
use mcp_runtime::prelude::*;
use mcp_runtime::{Artifact, ArtifactLink, Cursor, IntoToolResult, Page};

// The ledger's own database code (src/db.rs).
pub use db::Ledger;
use db::{Account, LedgerError, Refusal, Transfer};
// ANCHOR_END: uses

/// Cents as money: `123456` is `1234.56`.
fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, (cents % 100).abs())
}

/// A database failure as the model sees it: a protocol error that says to try later,
/// never the database's own message (it may name tables, hosts or users).
fn unavailable(error: LedgerError) -> RpcError {
    tracing::error!("{error}");
    RpcError::internal("The ledger is unavailable right now; try again in a minute")
}

/// The caller's accounts.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Accounts {
    /// The caller's organisation.
    pub tenant: String,
    /// Its accounts, by id.
    pub accounts: Vec<Account>,
}

/// Lists your organisation's accounts and their balances.
#[tool(read_only, scopes("ledger:read"))]
pub async fn accounts(tenant: Tenant, ledger: State<Ledger>) -> Result<Json<Accounts>, RpcError> {
    let accounts = ledger.accounts(&tenant).await.map_err(unavailable)?;
    Ok(Json(Accounts {
        tenant: tenant.0,
        accounts,
    }))
}

// ANCHOR: history
/// At most `limit` of `account`'s transfers older than the cursor's position, newest
/// first, and the position of the next page when there is one.
async fn page_of(
    ledger: &Ledger,
    tenant: &Tenant,
    account: &str,
    older_than: &Cursor<i64>,
    limit: u32,
) -> Result<(Vec<Transfer>, Option<i64>), Rejected> {
    let before = older_than.position().copied();
    // One more than a page: whether it comes back says if another page follows.
    let mut transfers = match ledger.history(tenant, account, before, limit + 1).await {
        Ok(transfers) => transfers,
        Err(LedgerError::Refused(Refusal::UnknownAccount(id))) => return Err(unknown_account(&id)),
        Err(e) => return Err(unavailable(e).into()),
    };
    let more = transfers.len() > limit as usize;
    transfers.truncate(limit as usize);
    let next = transfers.last().map(|t| t.id).filter(|_| more);
    Ok((transfers, next))
}

/// Shows the transfers of one of your organisation's accounts, newest first, a page at a
/// time: call again with the page's `nextCursor` for older ones.
#[tool(read_only, scopes("ledger:read"))]
pub async fn history(
    /// The account's id, such as `acme-operating`.
    account: String,
    /// Transfers per page (default 50, at most 200).
    limit: Option<u32>,
    // Where the previous page ended: the number of its oldest transfer.
    older_than: Cursor<i64>,
    tenant: Tenant,
    ledger: State<Ledger>,
) -> Result<Page<Transfer>, Rejected> {
    let limit = limit.unwrap_or(50).clamp(1, 200);
    let (transfers, next) = page_of(&ledger, &tenant, &account, &older_than, limit).await?;
    let total = ledger
        .history_len(&tenant, &account)
        .await
        .map_err(unavailable)?;
    Ok(older_than.page(transfers, next).total(total))
}
// ANCHOR_END: history

// ANCHOR: view
/// The statement view: a table and a chart of an account's transfers, with a button that
/// loads older ones. A host that renders views shows it beside `statement`'s result.
#[view(
    "ui://ledger/statement",
    csp(connect("https://api.ledger.example")),
    prefers_border = true
)]
pub fn statement_view() -> &'static str {
    include_str!("../views/statement.html")
}
// ANCHOR_END: view

// ANCHOR: statement_result
/// One page of an account's statement.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Statement {
    /// The account.
    pub account: String,
    /// Its transfers, newest first.
    pub transfers: Vec<Transfer>,
    /// Pass this to `statement_more` (or as `statement`'s `cursor`) for older transfers.
    /// Absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

impl IntoToolResult for Statement {
    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        Some(<Statement as schemars::JsonSchema>::json_schema(generator))
    }

    /// A line the model reads first, then the page as JSON: what a client without views
    /// shows, and what a view draws from.
    fn into_tool_result(self) -> CallToolResult {
        let more = if self.next_cursor.is_some() {
            "; older ones follow"
        } else {
            ""
        };
        let summary = format!(
            "{} transfer(s) of {}, newest first{more}.",
            self.transfers.len(),
            self.account
        );
        match StructuredContent::new(&self) {
            Ok(value) => CallToolResult {
                content: vec![Content::text(summary), Content::text(value.json())],
                structured_content: Some(value),
                ..Default::default()
            },
            Err(e) => CallToolResult::error(format!("The statement could not be serialized: {e}")),
        }
    }
}
// ANCHOR_END: statement_result

/// Transfers on a statement page.
const STATEMENT_PAGE: u32 = 20;

/// One page of `account`'s transfers after `older_than`, as a statement.
async fn statement_page(
    account: String,
    older_than: Cursor<i64>,
    tenant: &Tenant,
    ledger: &Ledger,
) -> Result<Statement, Rejected> {
    let (transfers, next) = page_of(ledger, tenant, &account, &older_than, STATEMENT_PAGE).await?;
    let (transfers, next_cursor) = older_than
        .page(transfers, next)
        .into_parts()
        .map_err(|problem| Rejected::from(RpcError::internal(problem)))?;
    Ok(Statement {
        account,
        transfers,
        next_cursor,
    })
}

// ANCHOR: statement
/// Shows a statement of one of your organisation's accounts: its latest 20 transfers,
/// newest first. Hosts that render views show it as a table and a chart.
#[tool(read_only, scopes("ledger:read"), ui = "ui://ledger/statement")]
pub async fn statement(
    /// The account's id, such as `acme-operating`.
    account: String,
    older_than: Cursor<i64>,
    tenant: Tenant,
    ledger: State<Ledger>,
) -> Result<Statement, Rejected> {
    statement_page(account, older_than, &tenant, &ledger).await
}

/// The next page of a statement, for the statement view's "Load more" button.
#[tool(
    read_only,
    scopes("ledger:read"),
    visibility = app,
    continues = "statement"
)]
pub async fn statement_more(
    /// The account's id, as given to `statement`.
    account: String,
    older_than: Cursor<i64>,
    tenant: Tenant,
    ledger: State<Ledger>,
) -> Result<Statement, Rejected> {
    statement_page(account, older_than, &tenant, &ledger).await
}
// ANCHOR_END: statement

// ANCHOR: export
/// Exports every transfer of one of your organisation's accounts as a CSV statement. The
/// result is a link to the file (with its size and SHA-256), not the rows: read the link
/// only if you need the data itself.
#[tool(read_only, scopes("ledger:read"))]
pub async fn export_statement(
    /// The account's id, such as `acme-operating`.
    account: String,
    tenant: Tenant,
    ledger: State<Ledger>,
    ctx: RequestContext,
) -> Result<ArtifactLink, Rejected> {
    let mut csv = String::from("id,from,to,amount_cents,memo,made_by,made_at_ms\n");
    let mut before = None;
    let mut rows = 0u64;
    loop {
        let page = match ledger.history(&tenant, &account, before, 1000).await {
            Ok(page) => page,
            Err(LedgerError::Refused(Refusal::UnknownAccount(id))) => {
                return Err(unknown_account(&id))
            }
            Err(e) => return Err(unavailable(e).into()),
        };
        let Some(last) = page.last() else { break };
        before = Some(last.id);
        for t in &page {
            rows += 1;
            csv.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                t.id,
                t.from,
                t.to,
                t.amount_cents,
                csv_field(&t.memo),
                csv_field(&t.made_by),
                t.made_at_ms
            ));
        }
    }
    let statement = Artifact::text(csv)
        .mime("text/csv")
        .name(format!("{account}-statement.csv"))
        .summary(format!(
            "Statement of {account}: {rows} transfers, newest first"
        ));
    Ok(ctx.save_artifact(statement).await?)
}

/// A CSV field, quoted when it has to be.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}
// ANCHOR_END: export

// ANCHOR: errors
/// Why a transfer found too little money: the detail of an `insufficient_funds` error.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Shortfall {
    /// The account the money would have left.
    pub account: String,
    /// What it holds, in cents.
    pub balance_cents: i64,
    /// What the transfer asked for, in cents.
    pub requested_cents: i64,
}

fn unknown_account<E>(id: &str) -> Rejected<E> {
    Rejected::new(
        "unknown_account",
        format!("Your organisation has no account {id}; list them with the accounts tool."),
    )
}

/// A refusal of the ledger as the business error the model reads.
fn refused(error: LedgerError, requested_cents: i64) -> Rejected<Shortfall> {
    match error {
        LedgerError::Refused(Refusal::UnknownAccount(id)) => unknown_account(&id),
        LedgerError::Refused(Refusal::InsufficientFunds {
            account,
            balance_cents,
        }) => Rejected::new(
            "insufficient_funds",
            format!(
                "{account} holds {}, less than the {} to transfer; nothing was moved.",
                money(balance_cents),
                money(requested_cents)
            ),
        )
        .with_detail(Shortfall {
            account,
            balance_cents,
            requested_cents,
        }),
        LedgerError::Database(_) => unavailable(error).into(),
    }
}
// ANCHOR_END: errors

// ANCHOR: transfer
/// The user's answer to "Transfer …?".
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    /// Make the transfer?
    pub confirm: bool,
}

/// Transfers money between two of your organisation's accounts, once the user confirms.
/// Give it an idempotencyKey: if the answer is lost, calling again with the same key and
/// arguments returns the transfer already made instead of making a second one.
#[tool(destructive, idempotency, scopes("ledger:write"))]
#[allow(clippy::too_many_arguments)] // four arguments and four extractors
pub async fn transfer(
    /// The account to take the money from.
    from: String,
    /// The account to put it in.
    to: String,
    /// How much, in cents (at least 1).
    amount_cents: i64,
    /// What it is for, as statements show it.
    memo: String,
    who: Principal,
    tenant: Tenant,
    ctx: RequestContext,
    ledger: State<Ledger>,
) -> Result<Json<Transfer>, Rejected<Shortfall>> {
    if amount_cents < 1 || from == to {
        return Err(Rejected::new(
            "invalid_transfer",
            "A transfer moves at least 1 cent between two different accounts.",
        ));
    }
    // Look before asking: no point confirming a transfer that cannot happen.
    let source = match ledger.account(&tenant, &from).await {
        Ok(account) => account,
        Err(e) => return Err(refused(e, amount_cents)),
    };
    if source.balance_cents < amount_cents {
        let shortfall = LedgerError::Refused(Refusal::InsufficientFunds {
            account: from,
            balance_cents: source.balance_cents,
        });
        return Err(refused(shortfall, amount_cents));
    }
    let question = format!(
        "Transfer {} from {from} to {to} ({memo})?",
        money(amount_cents)
    );
    let answer = ctx.elicit::<Confirm>("confirm", &question)?;
    if !matches!(answer, Elicitation::Accepted(Confirm { confirm: true })) {
        return Err(Rejected::new(
            "not_confirmed",
            "The user did not confirm the transfer; nothing was moved.",
        ));
    }
    // The balance is checked again inside the transaction: it may have changed since.
    ledger
        .transfer(&tenant, &who.subject, (&from, &to), amount_cents, &memo)
        .await
        .map(Json)
        .map_err(|e| refused(e, amount_cents))
}
// ANCHOR_END: transfer

/// One of your organisation's accounts, as JSON.
#[resource(
    "ledger://accounts/<id>",
    mime = "application/json",
    scopes("ledger:read")
)]
pub async fn account(
    id: String,
    tenant: Tenant,
    ledger: State<Ledger>,
) -> Result<Json<Account>, RpcError> {
    match ledger.account(&tenant, &id).await {
        Ok(account) => Ok(Json(account)),
        // Another tenant's account is as unknown as one that does not exist.
        Err(LedgerError::Refused(_)) => Err(RpcError::resource_not_found(&format!(
            "ledger://accounts/{id}"
        ))),
        Err(e) => Err(unavailable(e)),
    }
}

// ANCHOR: server
/// The ledger's MCP server, reading and writing `ledger`.
pub fn server(ledger: Ledger) -> Server {
    Server::new("ledger", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Accounts and transfers of the caller's organisation. Amounts are in cents. \
             Give every transfer a fresh idempotencyKey and reuse it when retrying.",
        )
        .only_module(module_path!())
        .state(ledger)
}
// ANCHOR_END: server
