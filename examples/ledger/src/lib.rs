//! A business API as an MCP server: the accounts and transfers of several organisations,
//! in an SQLite file or in PostgreSQL.
//!
//! - `accounts`, `history` and the `ledger://accounts/<id>` resource read; `transfer`
//!   moves money between two accounts of the caller's organisation.
//! - A transfer asks the user to confirm, and the confirmation runs once: replaying it is
//!   refused (`destructive` tools are single-use).
//! - A transfer takes an idempotency key: a client that retries after a lost answer gets
//!   the transfer it made, not a second one.
//! - Too little money is a typed business error (`insufficient_funds`, with the balance),
//!   which the tool's output schema describes beside the transfer.
//! - Every call sees only its caller's tenant; writing needs the `ledger:write` scope.
//!
//! The binary (`src/main.rs`) serves it over stdio or HTTP, with bearer tokens when an
//! issuer is configured; the book's "Exposing a business API" walks through it.

pub mod db;

use mcp_runtime::prelude::*;

pub use db::Ledger;
use db::{Account, LedgerError, Refusal, Transfer};

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

/// Transfers that touched one account.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct History {
    /// The account.
    pub account: String,
    /// Its latest transfers, newest first.
    pub transfers: Vec<Transfer>,
}

/// Shows the latest transfers of one of your organisation's accounts, newest first.
#[tool(read_only, scopes("ledger:read"))]
pub async fn history(
    /// The account's id, such as `acme-operating`.
    account: String,
    /// How many transfers to show (default 20, at most 200).
    limit: Option<u32>,
    tenant: Tenant,
    ledger: State<Ledger>,
) -> Result<Json<History>, Rejected> {
    let limit = limit.unwrap_or(20).clamp(1, 200);
    match ledger.history(&tenant, &account, limit).await {
        Ok(transfers) => Ok(Json(History { account, transfers })),
        Err(LedgerError::Refused(Refusal::UnknownAccount(id))) => Err(unknown_account(&id)),
        Err(e) => Err(unavailable(e).into()),
    }
}

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
