// ANCHOR: uses
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::Root;
// ANCHOR_END: uses

/// A yes/no form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    /// Go ahead?
    pub confirm: bool,
}

/// A nested structure, which no elicitation form can carry.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Nested {
    /// Nested.
    pub inner: Confirm,
}

/// A form with an enum and an optional field.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Shipping {
    /// How fast.
    pub speed: Speed,
    /// A note for the courier.
    pub note: Option<String>,
}

/// Delivery speed.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// Standard.
    Standard,
    /// Express.
    Express,
}

// ANCHOR: transfer
/// Moves money after the user confirms; remembers when it was first asked.
#[tool(destructive)]
pub async fn transfer(
    /// Amount in cents.
    amount: u64,
    /// Recipient account.
    to: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    if ctx.kept::<u64>("quoted").is_none() {
        ctx.keep("quoted", &amount);
    }
    let answer = ctx.elicit::<Confirm>("confirm", &format!("Send {amount} cents to {to}?"))?;
    match answer {
        Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!(
            "Sent {amount} cents to {to} (quoted {} on round {}).",
            ctx.kept::<u64>("quoted").unwrap_or_default(),
            ctx.round()
        )),
        Elicitation::Accepted(_) | Elicitation::Declined => Ok("Transfer declined.".into()),
        Elicitation::Cancelled => Ok("Transfer cancelled.".into()),
    }
}
// ANCHOR_END: transfer

/// Asks for a shipping speed, then a confirmation, in two rounds.
#[tool]
pub async fn checkout(ctx: RequestContext) -> Result<String, ToolError> {
    let shipping = ctx.elicit::<Shipping>("shipping", "How should we ship?")?;
    let Some(shipping) = shipping.accepted() else {
        return Ok("No shipping chosen.".into());
    };
    let speed = match shipping.speed {
        Speed::Standard => "standard",
        Speed::Express => "express",
    };
    let confirm = ctx.elicit::<Confirm>("confirm", &format!("Ship {speed}?"))?;
    Ok(format!(
        "Shipping {speed} ({}), confirmed: {}",
        shipping.note.unwrap_or_default(),
        confirm.accepted().is_some_and(|c| c.confirm)
    ))
}

// ANCHOR: gather
/// Asks for everything at once: a form, a completion and the roots.
#[tool]
pub async fn gather(ctx: RequestContext) -> Result<String, ToolError> {
    let confirm = ctx.elicit::<Confirm>("confirm", "Proceed?");
    let summary = ctx.sample("summary", SamplingRequest::new(20).user("Summarize"));
    let roots = ctx.roots("roots");
    let (confirm, summary, roots) = (confirm?, summary?, roots?);
    let uris: Vec<String> = roots.into_iter().map(|r: Root| r.uri).collect();
    Ok(format!(
        "{} / {} / {}",
        confirm.is_accepted(),
        summary.text(),
        uris.join(",")
    ))
}
// ANCHOR_END: gather

/// Asks the model with a tool offered, which needs `sampling.tools`.
#[tool]
pub async fn sample_with_tools(ctx: RequestContext) -> Result<String, ToolError> {
    let mut request = SamplingRequest::new(20).user("Weather?");
    request.tools = Some(vec![
        serde_json::json!({"name": "weather", "inputSchema": {"type": "object"}}),
    ]);
    Ok(ctx.sample("weather", request)?.text())
}

/// Sends the user to a sign-in page (URL mode).
#[tool]
pub async fn connect_account(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit_url(
        "signin",
        "Sign in to the bank",
        "https://bank.example/signin",
    )?;
    Ok(format!("signed in: {}", answer.is_accepted()))
}

/// Sends the user to the page it is given (URL mode).
#[tool]
pub async fn open_page(url: String, ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit_url("page", "Open this page", &url)?;
    Ok(format!("opened: {}", answer.is_accepted()))
}

/// Asks with a form that cannot be flat.
#[tool]
pub async fn bad_form(ctx: RequestContext) -> Result<String, ToolError> {
    ctx.elicit::<Nested>("nested", "Fill this in")?;
    Ok("unreachable".into())
}

/// A handler whose errors are plain strings can ask too.
#[tool]
pub async fn nickname(ctx: RequestContext) -> Result<String, String> {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Nick {
        nick: String,
    }
    let nick = ctx.elicit::<Nick>("nick", "Your nickname?")?;
    nick.accepted()
        .map(|n| format!("Hi {}", n.nick))
        .ok_or_else(|| "no nickname given".to_owned())
}

// ANCHOR: optional
/// Asks but carries on without the answer.
#[tool]
pub async fn optional_input(ctx: RequestContext) -> String {
    match ctx.elicit::<Confirm>("confirm", "Want extras?") {
        Ok(answer) => format!("extras: {}", answer.accepted().is_some_and(|c| c.confirm)),
        Err(_) => "no extras".into(),
    }
}
// ANCHOR_END: optional

/// A secret that is only read after the user confirms.
#[resource("vault://<name>", mime = "text/plain")]
pub async fn vault(name: String, ctx: RequestContext) -> Result<String, InputRequired> {
    let answer = ctx.elicit::<Confirm>("reveal", &format!("Reveal {name}?"))?;
    Ok(if answer.accepted().is_some_and(|c| c.confirm) {
        format!("secret of {name}")
    } else {
        "hidden".into()
    })
}

/// A prompt that asks for the user's role first.
#[prompt(complete(topic = topics))]
pub async fn briefing(topic: String, ctx: RequestContext) -> Result<String, RpcError> {
    let role = ctx.elicit::<Confirm>("expert", "Are you an expert?")?;
    let level = if role.accepted().is_some_and(|c| c.confirm) {
        "expert"
    } else {
        "beginner"
    };
    Ok(format!("Brief a {level} on {topic}."))
}

/// Completers cannot ask for input: the request fails with a clear error.
pub async fn topics(request: CompletionRequest) -> Result<Vec<String>, InputRequired> {
    request.ctx.elicit::<Confirm>("x", "never sent")?;
    Ok(vec![])
}

// ANCHOR: progress
/// Reports progress `steps` times.
#[tool]
pub async fn crunch(steps: u32, progress: Progress) -> String {
    for step in 1..=steps {
        progress.report_with(step as f64, Some(steps as f64), &format!("step {step}"));
        // A report that does not advance is skipped.
        progress.report(step as f64, Some(steps as f64));
        tokio::task::yield_now().await;
    }
    format!(
        "{steps} steps, progress requested: {}",
        progress.is_requested()
    )
}
// ANCHOR_END: progress

// ANCHOR: log
/// Logs at every level.
#[tool]
pub async fn chatty(log: Log) -> &'static str {
    for level in mcp_runtime::protocol::LogLevel::ALL {
        log.logger("chatty")
            .log(level, format!("a {} message", level.as_str()));
    }
    "logged"
}
// ANCHOR_END: log

/// Counts cancellations it observed.
#[derive(Default)]
pub struct Probe {
    /// Handlers started.
    pub started: AtomicUsize,
    /// Cancellations seen by spawned work.
    pub cancelled: AtomicUsize,
    /// Calls that finished.
    pub finished: AtomicUsize,
    /// Reports `heartbeat`'s spawned work tried to send.
    pub beats: AtomicUsize,
}

// ANCHOR: cancel
/// Waits (up to a minute) for cancellation, watching it from a spawned task.
#[tool]
pub async fn wait_for_cancel(
    probe: State<Arc<Probe>>,
    cancel: Cancellation,
    progress: Progress,
) -> &'static str {
    probe.started.fetch_add(1, Ordering::SeqCst);
    let watcher = {
        let probe = probe.0.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            cancel.cancelled().await;
            probe.cancelled.fetch_add(1, Ordering::SeqCst);
        })
    };
    // Tell the client (over SSE) that work has started.
    progress.report(1.0, None);
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    watcher.abort();
    probe.finished.fetch_add(1, Ordering::SeqCst);
    "finished"
}
// ANCHOR_END: cancel

/// Reports progress and logs every 10 ms for 5 s from a spawned task, whatever happens
/// to the call, which answers after `stay_ms`: work that outlives its request and
/// ignores cancellation.
#[tool]
pub async fn heartbeat(
    /// How long the call itself takes.
    stay_ms: u64,
    probe: State<Arc<Probe>>,
    progress: Progress,
    log: Log,
) -> &'static str {
    let probe = probe.0.clone();
    tokio::spawn(async move {
        for beat in 1..=500_u32 {
            progress.report(f64::from(beat), None);
            log.info(format!("beat {beat}"));
            probe.beats.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(stay_ms)).await;
    "finished"
}

// ANCHOR: toggle
/// Toggles `extra_tool` and reports an update of `vault://alpha`.
#[tool]
pub async fn toggle(ctx: RequestContext) -> Result<String, ToolError> {
    let server = ctx.server();
    server.resource_updated("vault://alpha");
    if server.remove_tool("extra_tool") {
        return Ok("removed".into());
    }
    server
        .add_tools(tools![extra_tool])
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok("added".into())
}
// ANCHOR_END: toggle

/// Served only while toggled on.
#[tool]
pub async fn extra_tool() -> &'static str {
    "extra"
}

// ANCHOR: detach
/// Lets go of the client's connection, then finishes a moment later.
#[tool]
pub async fn detach(ctx: RequestContext, progress: Progress) -> &'static str {
    progress.report(1.0, Some(2.0));
    // A handshake-era HTTP client is told to come back; elsewhere nothing happens.
    ctx.release_connection();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    progress.report(2.0, Some(2.0));
    "reattached"
}
// ANCHOR_END: detach

/// Which client calls, in which revision, declaring what.
#[tool]
pub async fn client(ctx: RequestContext) -> String {
    let info = ctx
        .client_info()
        .map_or("unnamed".into(), |c| format!("{} {}", c.name, c.version));
    let mut declared: Vec<&String> = ctx.client_capabilities().as_map().keys().collect();
    declared.sort();
    format!(
        "{info} speaks {} declaring {declared:?}",
        ctx.protocol_version()
    )
}

/// Who is calling.
#[tool]
pub async fn whoami(ctx: RequestContext) -> String {
    ctx.principal()
        .map_or("anonymous".into(), |p| p.subject.clone())
}
