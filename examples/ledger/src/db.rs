//! The ledger's database: accounts and transfers, in an SQLite file (the default) or in
//! PostgreSQL (a `postgres://` URL), migrated at start. A transfer is one database
//! transaction: both balances and the transfer row change together or not at all.
//!
//! This is the team's own database, not the framework's store: the framework keeps its
//! records (used confirmations, idempotency outcomes) where `MCP_STORE` says, which may be
//! the same PostgreSQL.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use deadpool_postgres::{Pool, Runtime};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::Serialize;
use tokio_postgres::NoTls;

/// The database, cheap to clone: a connection pool for PostgreSQL, the one connection
/// SQLite allows a writer for an embedded file.
#[derive(Clone)]
pub struct Ledger {
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Sqlite(Arc<Mutex<rusqlite::Connection>>),
    Postgres(Pool),
}

/// One account.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Account {
    /// Its id, such as `acme-operating`.
    pub id: String,
    /// What its owner calls it.
    pub name: String,
    /// The balance, in cents.
    pub balance_cents: i64,
}

/// One transfer, as booked.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Transfer {
    /// Its number in the ledger.
    pub id: i64,
    /// The account the money left.
    pub from: String,
    /// The account it went to.
    pub to: String,
    /// How much, in cents.
    pub amount_cents: i64,
    /// What it was for.
    pub memo: String,
    /// Who made it.
    pub made_by: String,
    /// When, in milliseconds since the Unix epoch.
    pub made_at_ms: i64,
}

/// Why a transfer was not booked.
#[derive(Debug)]
pub enum Refusal {
    /// No such account in the caller's organisation.
    UnknownAccount(String),
    /// The account holds less than the amount.
    InsufficientFunds {
        /// The account.
        account: String,
        /// What it holds, in cents.
        balance_cents: i64,
    },
}

/// A failure of the ledger.
#[derive(Debug)]
pub enum LedgerError {
    /// The business rules say no.
    Refused(Refusal),
    /// The database failed.
    Database(String),
}

impl From<rusqlite::Error> for LedgerError {
    fn from(e: rusqlite::Error) -> Self {
        LedgerError::Database(e.to_string())
    }
}

impl From<tokio_postgres::Error> for LedgerError {
    fn from(e: tokio_postgres::Error) -> Self {
        LedgerError::Database(e.to_string())
    }
}

impl From<deadpool_postgres::PoolError> for LedgerError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        LedgerError::Database(e.to_string())
    }
}

impl std::fmt::Display for LedgerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LedgerError::Refused(Refusal::UnknownAccount(id)) => write!(f, "no account {id}"),
            LedgerError::Refused(Refusal::InsufficientFunds { account, .. }) => {
                write!(f, "{account} holds too little")
            }
            LedgerError::Database(e) => write!(f, "the ledger's database failed: {e}"),
        }
    }
}

/// The schema, one step per version, in each dialect: `(version, SQLite, PostgreSQL)`.
const MIGRATIONS: &[(i64, &str, &str)] = &[(
    1,
    "CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        balance_cents BIGINT NOT NULL CHECK (balance_cents >= 0)
     );
     CREATE TABLE transfers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant TEXT NOT NULL,
        from_account TEXT NOT NULL REFERENCES accounts (id),
        to_account TEXT NOT NULL REFERENCES accounts (id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        memo TEXT NOT NULL,
        made_by TEXT NOT NULL,
        made_at_ms BIGINT NOT NULL
     );
     CREATE INDEX transfers_by_tenant ON transfers (tenant, id);",
    "CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        balance_cents BIGINT NOT NULL CHECK (balance_cents >= 0)
     );
     CREATE TABLE transfers (
        id BIGSERIAL PRIMARY KEY,
        tenant TEXT NOT NULL,
        from_account TEXT NOT NULL REFERENCES accounts (id),
        to_account TEXT NOT NULL REFERENCES accounts (id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        memo TEXT NOT NULL,
        made_by TEXT NOT NULL,
        made_at_ms BIGINT NOT NULL
     );
     CREATE INDEX transfers_by_tenant ON transfers (tenant, id);",
)];

/// The accounts an empty ledger starts with, so there is something to try:
/// `(id, tenant, name, balance in cents)`.
const DEMO_ACCOUNTS: &[(&str, &str, &str, i64)] = &[
    ("acme-operating", "acme", "Operating", 1_000_000),
    ("acme-payroll", "acme", "Payroll", 250_000),
    ("globex-main", "globex", "Main", 50_000),
];

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Ledger {
    /// Open the ledger `target` names: a `postgres://` URL, else the path of an SQLite
    /// file (created if missing). Brings the schema up to date, and gives an empty ledger
    /// its demo accounts.
    pub async fn open(target: &str) -> Result<Ledger, LedgerError> {
        let backend = if target.starts_with("postgres://") || target.starts_with("postgresql://") {
            let config = deadpool_postgres::Config {
                url: Some(target.to_owned()),
                ..Default::default()
            };
            let pool = config
                .create_pool(Some(Runtime::Tokio1), NoTls)
                .map_err(|e| LedgerError::Database(e.to_string()))?;
            Backend::Postgres(pool)
        } else {
            let connection = rusqlite::Connection::open(target)?;
            connection.pragma_update(None, "journal_mode", "WAL")?;
            connection.pragma_update(None, "foreign_keys", "ON")?;
            connection.busy_timeout(std::time::Duration::from_secs(5))?;
            Backend::Sqlite(Arc::new(Mutex::new(connection)))
        };
        let ledger = Ledger { backend };
        ledger.migrate().await?;
        Ok(ledger)
    }

    /// Run `f` on the SQLite connection, off the async threads.
    async fn sqlite<T: Send + 'static>(
        connection: &Arc<Mutex<rusqlite::Connection>>,
        f: impl FnOnce(&mut rusqlite::Connection) -> Result<T, LedgerError> + Send + 'static,
    ) -> Result<T, LedgerError> {
        let connection = connection.clone();
        tokio::task::spawn_blocking(move || {
            let mut connection = connection.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut connection)
        })
        .await
        .map_err(|e| LedgerError::Database(e.to_string()))?
    }

    /// Apply the migrations not applied yet, each in its own transaction; several
    /// instances starting together apply each once.
    async fn migrate(&self) -> Result<(), LedgerError> {
        match &self.backend {
            Backend::Sqlite(connection) => {
                Self::sqlite(connection, |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    tx.execute_batch(
                        "CREATE TABLE IF NOT EXISTS ledger_migrations (version BIGINT PRIMARY KEY)",
                    )?;
                    for (version, sql, _) in MIGRATIONS {
                        let done: Option<i64> = tx
                            .query_row(
                                "SELECT version FROM ledger_migrations WHERE version = ?1",
                                params![version],
                                |row| row.get(0),
                            )
                            .optional()?;
                        if done.is_none() {
                            tx.execute_batch(sql)?;
                            tx.execute(
                                "INSERT INTO ledger_migrations (version) VALUES (?1)",
                                params![version],
                            )?;
                        }
                    }
                    let empty: i64 =
                        tx.query_row("SELECT COUNT(*) FROM accounts", [], |row| row.get(0))?;
                    if empty == 0 {
                        for (id, tenant, name, balance) in DEMO_ACCOUNTS {
                            tx.execute(
                                "INSERT INTO accounts (id, tenant, name, balance_cents) VALUES (?1, ?2, ?3, ?4)",
                                params![id, tenant, name, balance],
                            )?;
                        }
                    }
                    tx.commit()?;
                    Ok(())
                })
                .await
            }
            Backend::Postgres(pool) => {
                let mut client = pool.get().await?;
                let tx = client.transaction().await?;
                // One migrator at a time across instances.
                tx.execute("SELECT pg_advisory_xact_lock(7151)", &[])
                    .await?;
                tx.batch_execute(
                    "CREATE TABLE IF NOT EXISTS ledger_migrations (version BIGINT PRIMARY KEY)",
                )
                .await?;
                for (version, _, sql) in MIGRATIONS {
                    let done = tx
                        .query_opt(
                            "SELECT version FROM ledger_migrations WHERE version = $1",
                            &[version],
                        )
                        .await?;
                    if done.is_none() {
                        tx.batch_execute(sql).await?;
                        tx.execute(
                            "INSERT INTO ledger_migrations (version) VALUES ($1)",
                            &[version],
                        )
                        .await?;
                    }
                }
                let count: i64 = tx
                    .query_one("SELECT COUNT(*) FROM accounts", &[])
                    .await?
                    .get(0);
                if count == 0 {
                    for (id, tenant, name, balance) in DEMO_ACCOUNTS {
                        tx.execute(
                            "INSERT INTO accounts (id, tenant, name, balance_cents) VALUES ($1, $2, $3, $4)",
                            &[id, tenant, name, balance],
                        )
                        .await?;
                    }
                }
                tx.commit().await?;
                Ok(())
            }
        }
    }

    /// The accounts of `tenant`, by id.
    pub async fn accounts(&self, tenant: &str) -> Result<Vec<Account>, LedgerError> {
        let tenant = tenant.to_owned();
        match &self.backend {
            Backend::Sqlite(connection) => {
                Self::sqlite(connection, move |c| {
                    let mut statement = c.prepare_cached(
                    "SELECT id, name, balance_cents FROM accounts WHERE tenant = ?1 ORDER BY id",
                )?;
                    let rows = statement.query_map(params![tenant], |row| {
                        Ok(Account {
                            id: row.get(0)?,
                            name: row.get(1)?,
                            balance_cents: row.get(2)?,
                        })
                    })?;
                    Ok(rows.collect::<Result<Vec<_>, _>>()?)
                })
                .await
            }
            Backend::Postgres(pool) => {
                let client = pool.get().await?;
                let rows = client
                    .query(
                        "SELECT id, name, balance_cents FROM accounts WHERE tenant = $1 ORDER BY id",
                        &[&tenant],
                    )
                    .await?;
                Ok(rows
                    .iter()
                    .map(|row| Account {
                        id: row.get(0),
                        name: row.get(1),
                        balance_cents: row.get(2),
                    })
                    .collect())
            }
        }
    }

    /// One account of `tenant`.
    pub async fn account(&self, tenant: &str, id: &str) -> Result<Account, LedgerError> {
        self.accounts(tenant)
            .await?
            .into_iter()
            .find(|a| a.id == id)
            .ok_or_else(|| LedgerError::Refused(Refusal::UnknownAccount(id.to_owned())))
    }

    /// Up to `limit` transfers of `tenant` that touch `account`, newest first, starting
    /// after the transfer numbered `before` (the newest when `None`): one page of a
    /// keyset walk, which stays correct while transfers are added.
    pub async fn history(
        &self,
        tenant: &str,
        account: &str,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<Transfer>, LedgerError> {
        // Unknown accounts are refused, not shown as empty.
        self.account(tenant, account).await?;
        let (tenant, account, limit) = (tenant.to_owned(), account.to_owned(), i64::from(limit));
        let before = before.unwrap_or(i64::MAX);
        const QUERY: &str =
            "SELECT id, from_account, to_account, amount_cents, memo, made_by, made_at_ms
            FROM transfers WHERE tenant = $1 AND (from_account = $2 OR to_account = $2) AND id < $4
            ORDER BY id DESC LIMIT $3";
        match &self.backend {
            Backend::Sqlite(connection) => {
                Self::sqlite(connection, move |c| {
                    let mut statement = c.prepare_cached(&QUERY.replace('$', "?"))?;
                    let rows =
                        statement.query_map(params![tenant, account, limit, before], |row| {
                            Ok(Transfer {
                                id: row.get(0)?,
                                from: row.get(1)?,
                                to: row.get(2)?,
                                amount_cents: row.get(3)?,
                                memo: row.get(4)?,
                                made_by: row.get(5)?,
                                made_at_ms: row.get(6)?,
                            })
                        })?;
                    Ok(rows.collect::<Result<Vec<_>, _>>()?)
                })
                .await
            }
            Backend::Postgres(pool) => {
                let client = pool.get().await?;
                let rows = client
                    .query(QUERY, &[&tenant, &account, &limit, &before])
                    .await?;
                Ok(rows
                    .iter()
                    .map(|row| Transfer {
                        id: row.get(0),
                        from: row.get(1),
                        to: row.get(2),
                        amount_cents: row.get(3),
                        memo: row.get(4),
                        made_by: row.get(5),
                        made_at_ms: row.get(6),
                    })
                    .collect())
            }
        }
    }

    /// How many transfers of `tenant` touch `account`.
    pub async fn history_len(&self, tenant: &str, account: &str) -> Result<u64, LedgerError> {
        let (tenant, account) = (tenant.to_owned(), account.to_owned());
        const QUERY: &str =
            "SELECT COUNT(*) FROM transfers WHERE tenant = $1 AND (from_account = $2 OR to_account = $2)";
        let count: i64 = match &self.backend {
            Backend::Sqlite(connection) => {
                Self::sqlite(connection, move |c| {
                    Ok(
                        c.query_row(&QUERY.replace('$', "?"), params![tenant, account], |row| {
                            row.get(0)
                        })?,
                    )
                })
                .await?
            }
            Backend::Postgres(pool) => {
                let client = pool.get().await?;
                client.query_one(QUERY, &[&tenant, &account]).await?.get(0)
            }
        };
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Move `amount_cents` from `from` to `to`, both of `tenant`, in one transaction: the
    /// balance is checked with the account locked, so two transfers cannot both spend it.
    pub async fn transfer(
        &self,
        tenant: &str,
        made_by: &str,
        (from, to): (&str, &str),
        amount_cents: i64,
        memo: &str,
    ) -> Result<Transfer, LedgerError> {
        let mut transfer = Transfer {
            id: 0,
            from: from.to_owned(),
            to: to.to_owned(),
            amount_cents,
            memo: memo.to_owned(),
            made_by: made_by.to_owned(),
            made_at_ms: now_ms(),
        };
        let tenant = tenant.to_owned();
        match &self.backend {
            Backend::Sqlite(connection) => {
                Self::sqlite(connection, move |c| {
                    // IMMEDIATE takes the write lock first: the balance read below cannot
                    // change before the update.
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let balance = |id: &str| {
                        tx.query_row(
                            "SELECT balance_cents FROM accounts WHERE id = ?1 AND tenant = ?2",
                            params![id, tenant],
                            |row| row.get::<_, i64>(0),
                        )
                        .optional()
                    };
                    check(balance(&transfer.from)?, balance(&transfer.to)?, &transfer)?;
                    tx.execute(
                        "UPDATE accounts SET balance_cents = balance_cents - ?1 WHERE id = ?2",
                        params![transfer.amount_cents, transfer.from],
                    )?;
                    tx.execute(
                        "UPDATE accounts SET balance_cents = balance_cents + ?1 WHERE id = ?2",
                        params![transfer.amount_cents, transfer.to],
                    )?;
                    tx.execute(
                        "INSERT INTO transfers (tenant, from_account, to_account, amount_cents, memo, made_by, made_at_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![tenant, transfer.from, transfer.to, transfer.amount_cents, transfer.memo, transfer.made_by, transfer.made_at_ms],
                    )?;
                    transfer.id = tx.last_insert_rowid();
                    tx.commit()?;
                    Ok(transfer)
                })
                .await
            }
            Backend::Postgres(pool) => {
                let mut client = pool.get().await?;
                let tx = client.transaction().await?;
                // Lock both rows, in id order so two opposite transfers cannot deadlock.
                let rows = tx
                    .query(
                        "SELECT id, balance_cents FROM accounts WHERE tenant = $1 AND id IN ($2, $3) ORDER BY id FOR UPDATE",
                        &[&tenant, &transfer.from, &transfer.to],
                    )
                    .await?;
                let balance = |id: &str| {
                    rows.iter()
                        .find(|row| row.get::<_, String>(0) == id)
                        .map(|row| row.get::<_, i64>(1))
                };
                check(balance(&transfer.from), balance(&transfer.to), &transfer)?;
                tx.execute(
                    "UPDATE accounts SET balance_cents = balance_cents - $1 WHERE id = $2",
                    &[&transfer.amount_cents, &transfer.from],
                )
                .await?;
                tx.execute(
                    "UPDATE accounts SET balance_cents = balance_cents + $1 WHERE id = $2",
                    &[&transfer.amount_cents, &transfer.to],
                )
                .await?;
                let row = tx
                    .query_one(
                        "INSERT INTO transfers (tenant, from_account, to_account, amount_cents, memo, made_by, made_at_ms)
                         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                        &[&tenant, &transfer.from, &transfer.to, &transfer.amount_cents, &transfer.memo, &transfer.made_by, &transfer.made_at_ms],
                    )
                    .await?;
                transfer.id = row.get(0);
                tx.commit().await?;
                Ok(transfer)
            }
        }
    }

    /// How many transfers the whole ledger holds (for the health page).
    pub async fn transfer_count(&self) -> Result<i64, LedgerError> {
        match &self.backend {
            Backend::Sqlite(connection) => {
                Self::sqlite(connection, |c| {
                    Ok(c.query_row("SELECT COUNT(*) FROM transfers", [], |row| row.get(0))?)
                })
                .await
            }
            Backend::Postgres(pool) => Ok(pool
                .get()
                .await?
                .query_one("SELECT COUNT(*) FROM transfers", &[])
                .await?
                .get(0)),
        }
    }
}

/// The business rules of a transfer, given the two balances as found (`None`: no such
/// account in the tenant).
fn check(from: Option<i64>, to: Option<i64>, transfer: &Transfer) -> Result<(), LedgerError> {
    let refuse = |refusal| Err(LedgerError::Refused(refusal));
    let Some(balance_cents) = from else {
        return refuse(Refusal::UnknownAccount(transfer.from.clone()));
    };
    if to.is_none() {
        return refuse(Refusal::UnknownAccount(transfer.to.clone()));
    }
    if balance_cents < transfer.amount_cents {
        return refuse(Refusal::InsufficientFunds {
            account: transfer.from.clone(),
            balance_cents,
        });
    }
    Ok(())
}
