use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use crate::interactive::Confirm;

/// The payments made, by payee. Clones share them.
#[derive(Clone, Default)]
pub struct Payments {
    made: Arc<Mutex<HashMap<String, u32>>>,
    journal: Option<PathBuf>,
}

impl Payments {
    /// Payments counted in memory only.
    pub fn new() -> Payments {
        Payments::default()
    }

    /// Payments also appended to `path`, a line per payment: `payee amount`.
    pub fn journaled(path: impl Into<PathBuf>) -> Payments {
        Payments {
            made: Arc::default(),
            journal: Some(path.into()),
        }
    }

    /// How many payments `payee` received.
    pub fn to(&self, payee: &str) -> u32 {
        let made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        made.get(payee).copied().unwrap_or(0)
    }

    /// Make one; its number for this payee.
    fn pay(&self, payee: &str, amount_cents: u64) -> u32 {
        if let Some(path) = &self.journal {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .expect("the payment journal opens");
            writeln!(file, "{payee} {amount_cents}").expect("the journal takes a line");
            file.sync_all().expect("the journal syncs");
        }
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        let count = made.entry(payee.to_owned()).or_default();
        *count += 1;
        *count
    }
}

/// A payment made.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Receipt {
    /// Who was paid.
    pub payee: String,
    /// How much.
    pub amount_cents: u64,
    /// The how-many-th payment to this payee.
    pub number: u32,
}

/// Why a payment over the limit was refused.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OverLimit {
    /// The most one payment may be.
    pub limit_cents: u64,
    /// What was asked for.
    pub requested_cents: u64,
}

/// The most one payment may be.
pub const LIMIT_CENTS: u64 = 100_000;

/// Pays after the user confirms. Refuses amounts over the limit.
#[tool(destructive, idempotency)]
pub async fn pay(
    /// Who to pay.
    payee: String,
    /// How much, in cents.
    amount_cents: u64,
    ctx: RequestContext,
    payments: State<Payments>,
) -> Result<Json<Receipt>, Rejected<OverLimit>> {
    if amount_cents > LIMIT_CENTS {
        return Err(
            Rejected::new("over_limit", "The amount is over the payment limit.").with_detail(
                OverLimit {
                    limit_cents: LIMIT_CENTS,
                    requested_cents: amount_cents,
                },
            ),
        );
    }
    let answer =
        ctx.elicit::<Confirm>("confirm", &format!("Pay {amount_cents} cents to {payee}?"))?;
    if !matches!(answer, Elicitation::Accepted(Confirm { confirm: true })) {
        return Err(Rejected::new(
            "declined",
            "The user did not confirm the payment.",
        ));
    }
    let number = payments.pay(&payee, amount_cents);
    Ok(Json(Receipt {
        payee,
        amount_cents,
        number,
    }))
}

/// Pays at once, then takes `linger_ms` more before answering.
#[tool(destructive, idempotency)]
pub async fn pay_now(
    /// Who to pay.
    payee: String,
    /// How much, in cents.
    amount_cents: u64,
    /// How long to take after paying, in milliseconds.
    linger_ms: Option<u64>,
    payments: State<Payments>,
) -> Json<Receipt> {
    let number = payments.pay(&payee, amount_cents);
    tokio::time::sleep(Duration::from_millis(linger_ms.unwrap_or(0))).await;
    Json(Receipt {
        payee,
        amount_cents,
        number,
    })
}

/// Pays, unless the payee is blank, which it refuses as a malformed request before
/// paying anything.
#[tool(destructive, idempotency)]
pub async fn pay_checked(
    /// Who to pay.
    payee: String,
    payments: State<Payments>,
) -> Result<String, ToolError> {
    if payee.trim().is_empty() {
        return Err(ToolError::protocol(RpcError::invalid_params(
            "payee must not be blank",
        )));
    }
    Ok(format!("payment {}", payments.pay(&payee, 1)))
}

/// Pays, then fails unexpectedly.
#[tool(destructive, idempotency)]
pub async fn pay_then_crash(
    /// Who to pay.
    payee: String,
    payments: State<Payments>,
) -> String {
    payments.pay(&payee, 1);
    panic!("the connection to the bank dropped after the payment")
}

/// Books a payment at a bank that takes retry keys of its own: the call's key is forwarded.
#[tool(idempotency)]
pub async fn pay_via_bank(
    /// Who to pay.
    payee: String,
    ctx: RequestContext,
    payments: State<Payments>,
) -> String {
    let number = payments.pay(&payee, 1);
    match ctx.idempotency_key() {
        Some(key) => format!("payment {number} sent with Idempotency-Key {key}"),
        None => format!("payment {number} sent without a key"),
    }
}

/// Hands out a voucher once the user confirms; single use although not destructive.
#[tool(once)]
pub async fn voucher(
    /// Who gets it.
    payee: String,
    ctx: RequestContext,
    payments: State<Payments>,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Hand out a voucher?")?;
    if !matches!(answer, Elicitation::Accepted(Confirm { confirm: true })) {
        return Ok("No voucher.".into());
    }
    Ok(format!("voucher {}", payments.pay(&payee, 0)))
}

/// Logs a note after the user confirms; destructive, but replaying it is harmless, so
/// it opts out of single use.
#[tool(destructive, once = false)]
pub async fn note(
    /// Who it is about.
    payee: String,
    ctx: RequestContext,
    payments: State<Payments>,
) -> Result<String, ToolError> {
    ctx.elicit::<Confirm>("confirm", "Write the note?")?;
    Ok(format!("note {}", payments.pay(&payee, 0)))
}

/// The side-effect tools alone, counting into `payments`.
pub fn server(payments: Payments) -> Server {
    Server::new("side-effects", "1.0.0")
        .only_module(module_path!())
        .state(payments)
}
