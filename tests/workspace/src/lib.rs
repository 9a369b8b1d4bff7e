//! Fixture tools, resources and prompts for the workspace tests, and the server that
//! serves them.

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Tools used by the transcripts and behaviour tests.
pub mod large;

/// Tools whose input and output schemas the Tools chapter explains.
pub mod schemas;

/// A resource that tries to take the server's own scheme: refused at start.
pub mod artifact_clash {
    use mcp_runtime::prelude::*;

    /// Not allowed.
    #[resource("artifact://<id>")]
    async fn fake(id: String) -> String {
        id
    }
}

pub mod fixtures {
    use super::*;

    /// Adds two integers.
    #[tool(read_only, idempotent)]
    pub async fn add(
        /// The first addend.
        a: i64,
        /// The second addend.
        b: i64,
    ) -> i64 {
        a + b
    }

    /// Greets someone, politely by default.
    #[tool(name = "greet", title = "Greeter")]
    pub fn greeting(
        /// Who to greet.
        name: String,
        /// Use an informal greeting.
        casual: Option<bool>,
    ) -> String {
        if casual.unwrap_or(false) {
            format!("Hi {name}!")
        } else {
            format!("Good day, {name}.")
        }
    }

    // ANCHOR: place_order
    /// A new order.
    #[derive(Debug, Deserialize, Serialize, JsonSchema)]
    pub struct NewOrder {
        /// Stock keeping unit.
        pub sku: String,
        /// How many; at least one.
        #[schemars(range(min = 1))]
        pub quantity: u32,
    }

    /// The placed order.
    #[derive(Debug, Serialize, JsonSchema)]
    pub struct Receipt {
        /// Order number.
        pub order: u64,
        /// What was ordered.
        pub sku: String,
    }

    /// Places an order.
    #[tool(destructive = false, open_world = false)]
    pub async fn place_order(Args(order): Args<NewOrder>) -> Result<Receipt, ToolError> {
        if order.sku == "discontinued" {
            return Err(
                ToolError::new("That product is discontinued; pick another SKU.")
                    .with_detail(serde_json::json!({"sku": order.sku})),
            );
        }
        Ok(Receipt {
            order: 1001,
            sku: order.sku,
        })
    }
    // ANCHOR_END: place_order

    /// Always panics, to show a panic fails only its own call.
    #[tool]
    pub async fn explode() -> String {
        panic!("boom")
    }

    /// Needs the client's elicitation capability.
    #[tool]
    pub async fn needs_elicitation(ctx: RequestContext) -> Result<String, RpcError> {
        ctx.client_capabilities().require("elicitation")?;
        Ok(format!(
            "elicitation declared on {}",
            ctx.protocol_version()
        ))
    }

    /// Deletes everything (refused by the test authorizer).
    #[tool(destructive)]
    pub async fn wipe() -> &'static str {
        "wiped"
    }
}

/// Resources and prompts used by the transcripts and behaviour tests: a small library.
pub mod library {
    use super::*;
    use mcp_runtime::protocol::Annotations;
    use mcp_runtime::{CompletionRequest, ResourceContents};

    // ANCHOR: readme
    /// How to read the library.
    #[resource(
        "library://readme",
        title = "Read me",
        mime = "text/markdown",
        size = 26,
        audience = [user, assistant],
        priority = 0.9,
        ttl = "5m"
    )]
    pub async fn readme() -> &'static str {
        "# Library\nBooks by number."
    }
    // ANCHOR_END: readme

    /// A book in the library.
    #[derive(Debug, Serialize, JsonSchema)]
    pub struct Book {
        /// Its number.
        pub id: u32,
        /// Its title.
        pub title: &'static str,
    }

    const BOOKS: &[(u32, &str)] = &[(1, "Dune"), (2, "Emma"), (12, "Ulysses")];

    // ANCHOR: book
    /// One book by its number.
    #[resource(
        "library://books/<id>",
        name = "book",
        mime = "application/json",
        cache = private,
        complete(id = book_ids)
    )]
    pub async fn book(id: u32) -> Option<Json<Book>> {
        BOOKS
            .iter()
            .find(|(n, _)| *n == id)
            .map(|(id, title)| Json(Book { id: *id, title }))
    }
    // ANCHOR_END: book

    // ANCHOR: book_ids
    /// Book numbers starting with what was typed.
    pub async fn book_ids(request: CompletionRequest) -> Vec<String> {
        request.matching(BOOKS.iter().map(|(id, _)| id.to_string()))
    }
    // ANCHOR_END: book_ids

    /// A book's cover image (a few bytes standing in for a PNG).
    #[resource("library://covers/<id>.png", mime = "image/png")]
    pub fn cover(id: u32) -> Vec<u8> {
        vec![0x89, b'P', b'N', b'G', id as u8]
    }

    /// A file of the shelf archive; the path may have several segments.
    #[resource("archive:///<path..>", mime = "text/plain")]
    pub async fn archive(path: String) -> Result<String, RpcError> {
        match path.as_str() {
            "notes/2024/jan.txt" => Ok("January notes".to_owned()),
            "a b.txt" => Ok("spaces decoded".to_owned()),
            _ => Err(RpcError::resource_not_found(&format!("archive:///{path}"))),
        }
    }

    /// An ISBN-13: parsed by a direct `FromUriParam` impl, since it has no `FromStr`.
    #[derive(Debug)]
    pub struct Isbn(pub String);

    impl mcp_runtime::FromUriParam for Isbn {
        fn from_uri_param(value: &str) -> Result<Self, String> {
            let digits: String = value.chars().filter(|c| *c != '-').collect();
            if digits.len() == 13 && digits.chars().all(|c| c.is_ascii_digit()) {
                Ok(Isbn(digits))
            } else {
                Err(format!(
                    "`{value}` is not an ISBN-13 (13 digits, dashes allowed)"
                ))
            }
        }
    }

    /// A book by its ISBN (this doc comment is replaced by the `description` option).
    #[resource(
        "library://isbn/<isbn>",
        mime = "text/plain",
        description = "A book by its ISBN-13; dashes are allowed."
    )]
    pub async fn by_isbn(isbn: Isbn) -> String {
        format!("ISBN {}", isbn.0)
    }

    /// Every book on one shelf, one entry per book.
    #[resource("library://shelves/<name>")]
    pub async fn shelf(name: String) -> Vec<ResourceContents> {
        BOOKS
            .iter()
            .map(|(id, title)| {
                ResourceContents::text(
                    format!("library://books/{id}"),
                    "text/plain",
                    format!("{title} (shelf {name})"),
                )
            })
            .collect()
    }

    /// Always fails with an internal error.
    #[resource("library://flaky")]
    pub async fn flaky() -> Result<String, std::io::Error> {
        Err(std::io::Error::other("the disk is on fire"))
    }

    /// Always panics, to show a panic fails only its own read.
    #[resource("library://broken")]
    pub async fn broken() -> String {
        panic!("shelf collapsed")
    }

    /// Readers' notes kept by the server.
    pub struct Notes {
        /// The notes, oldest first.
        pub items: Vec<&'static str>,
    }

    /// The readers' notes (needs `State<Notes>`).
    #[resource("library://notes", cache = private, ttl = "0s")]
    pub async fn notes(notes: State<Notes>, ctx: RequestContext) -> String {
        format!(
            "{} ({} notes, read over {})",
            notes.items.join("; "),
            notes.items.len(),
            ctx.protocol_version()
        )
    }

    /// Summary styles.
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Style {
        /// One line.
        Short,
        /// A paragraph.
        Long,
    }

    /// Asks for a summary of a book, with the book embedded.
    #[prompt(title = "Summarize a book", complete(id = book_ids, style = styles))]
    pub async fn summarize_book(
        /// The book's number.
        id: u32,
        /// `short` or `long`; short by default.
        style: Option<Style>,
    ) -> Result<Vec<PromptMessage>, RpcError> {
        let Some((_, title)) = BOOKS.iter().find(|(n, _)| *n == id) else {
            return Err(RpcError::invalid_params(format!("There is no book {id}")));
        };
        let length = match style.unwrap_or(Style::Short) {
            Style::Short => "in one line",
            Style::Long => "in one paragraph",
        };
        Ok(vec![
            PromptMessage::user(Content::embedded_text(
                format!("library://books/{id}"),
                "text/plain",
                *title,
            )),
            PromptMessage::user(format!("Summarize {title} {length}.")),
        ])
    }

    /// Styles starting with what was typed; Ulysses (book 12) is only summarized at length.
    pub async fn styles(request: CompletionRequest) -> Completion {
        let styles: &[&str] = if request.filled("id") == Some("12") {
            &["long"]
        } else {
            &["short", "long"]
        };
        Completion::new(request.matching(styles))
    }

    // ANCHOR: media
    /// Shows a cover, says it aloud, and links the book.
    #[prompt(name = "cover_story")]
    pub fn media() -> GetPromptResult {
        GetPromptResult::new([
            PromptMessage::user(Content::image([1u8, 2, 3], "image/png")),
            PromptMessage::user(Content::audio([4u8, 5], "audio/wav")),
            PromptMessage::assistant(Content::link("library://books/1", "Dune").with_annotations(
                Annotations {
                    audience: Some(vec![mcp_runtime::protocol::Role::User]),
                    priority: None,
                    last_modified: None,
                },
            )),
        ])
        .with_description("A cover, read aloud")
    }
    // ANCHOR_END: media

    /// Has a thousand completions for `word` (replaced by the `description` option).
    #[prompt(
        complete(word = many_words),
        description = "Spells a word; `word` has a thousand completions, to show the 100-value bound."
    )]
    pub async fn spell(
        /// Any word.
        word: String,
    ) -> String {
        format!("Spell {word}.")
    }

    /// A thousand words.
    pub async fn many_words(_request: CompletionRequest) -> Vec<String> {
        (0..1000).map(|i| format!("word{i}")).collect()
    }
}

/// Two templates that can match the same URI (`shop://items/new`): refused at start.
pub mod overlapping {
    use super::*;

    /// An item by id.
    #[resource("shop://items/<id>")]
    pub async fn item(id: String) -> String {
        id
    }

    /// Anything under shop://.
    #[resource("shop://<section>/new")]
    pub async fn newest(section: String) -> String {
        section
    }
}

/// Handlers that ask the client for input, report progress, log, wait for cancellation,
/// and change the catalog while the server runs.
pub mod interactive {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use mcp_runtime::prelude::*;
    use mcp_runtime::protocol::Root;

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
}

/// A secured service: scoped tools, resources and prompts over per-tenant data, with a
/// tenant check on concrete resource URIs.
pub mod secured {
    use super::*;
    use mcp_runtime::{Principal, Tenant};

    /// Orders of every tenant (fixed data).
    pub fn orders_of(tenant: &str) -> Vec<&'static str> {
        match tenant {
            "acme" => vec!["acme-1: anvils", "acme-2: rockets"],
            "globex" => vec!["globex-1: magnets"],
            _ => Vec::new(),
        }
    }

    /// Lists the orders of the caller's tenant.
    #[tool(read_only, scopes("orders:read"))]
    pub async fn tenant_orders(tenant: Tenant) -> Vec<String> {
        orders_of(&tenant).into_iter().map(str::to_owned).collect()
    }

    /// Places an order for the caller's tenant.
    #[tool(scopes("orders:write"))]
    pub async fn place_tenant_order(item: String, tenant: Tenant) -> String {
        format!("{tenant} ordered {item}")
    }

    /// Says who calls (anyone may ask).
    #[tool(read_only)]
    pub async fn caller(ctx: RequestContext) -> String {
        ctx.principal().map_or("anonymous".into(), |p| {
            format!(
                "{} of {} with [{}]",
                p.subject,
                p.tenant().unwrap_or("no tenant"),
                p.scopes().collect::<Vec<_>>().join(" ")
            )
        })
    }

    /// Sleeps for `ms` milliseconds, then says so.
    #[tool(read_only)]
    pub async fn nap(ms: u64) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        format!("slept {ms} ms")
    }

    /// One order, by tenant and position.
    #[resource("tenant-orders://<tenant>/<index>", scopes("orders:read"))]
    pub async fn order(tenant: String, index: usize) -> Result<String, ToolError> {
        orders_of(&tenant)
            .get(index)
            .map(|o| (*o).to_owned())
            .ok_or_else(|| ToolError::new(format!("{tenant} has no order {index}")))
    }

    /// The caller's profile (differs per caller, so never shared by caches).
    #[resource("secured://profile")]
    pub async fn profile(who: Principal) -> String {
        format!("profile of {}", who.subject)
    }

    /// The public price list.
    #[resource("secured://prices")]
    pub async fn prices() -> String {
        "anvils: 10".into()
    }

    /// Summarizes the caller's orders.
    #[prompt(scopes("orders:read"))]
    pub async fn order_summary(tenant: Tenant) -> String {
        format!("Summarize: {}", orders_of(&tenant).join("; "))
    }

    /// Refuses resource URIs naming another tenant than the caller's.
    pub struct SameTenant;

    impl Authorize for SameTenant {
        async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
            let Action::ReadResource { uri, .. } = action else {
                return Ok(());
            };
            let Some(rest) = uri.strip_prefix("tenant-orders://") else {
                return Ok(());
            };
            let owner = rest.split('/').next().unwrap_or_default();
            match ctx.principal().and_then(Principal::tenant) {
                Some(tenant) if tenant == owner => Ok(()),
                _ => Err(Denied::new("that order belongs to another tenant")),
            }
        }
    }

    /// The secured service, without authentication configured (tests add it).
    pub fn server() -> Server {
        Server::new("secured", "1.0.0")
            .only_module(module_path!())
            .authorize(SameTenant)
    }
}

/// Long-running tools (the Tasks extension).
pub mod long {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Counts what task handlers saw.
    #[derive(Default)]
    pub struct TaskProbe {
        /// Handler runs started.
        pub runs: AtomicUsize,
        /// Cancellations observed.
        pub cancelled: AtomicUsize,
    }

    /// Never a task.
    #[tool]
    pub async fn plain() -> &'static str {
        "plain"
    }

    /// Takes `ms` milliseconds; a task when that is long enough.
    #[tool(task)]
    pub async fn takes(ms: u64, probe: State<Arc<TaskProbe>>) -> String {
        probe.runs.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        format!("took {ms} ms")
    }

    /// A task at once, whose tool fails (an `isError` result).
    #[tool(task)]
    pub async fn task_tool_error(ctx: RequestContext) -> Result<String, ToolError> {
        ctx.start_task();
        Err(ToolError::new("the report has no rows"))
    }

    /// A task at once, failing with a JSON-RPC error.
    #[tool(task)]
    pub async fn task_rpc_error(ctx: RequestContext) -> Result<String, RpcError> {
        ctx.start_task();
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        Err(RpcError::internal("the backend is down"))
    }

    /// A yes/no answer.
    #[derive(Deserialize, JsonSchema)]
    pub struct Approval {
        /// Approve?
        pub ok: bool,
    }

    /// A task asking two questions at once.
    #[tool(task)]
    pub async fn task_asks(
        ctx: RequestContext,
        probe: State<Arc<TaskProbe>>,
    ) -> Result<String, ToolError> {
        probe.runs.fetch_add(1, Ordering::SeqCst);
        ctx.start_task();
        let first = ctx.elicit::<Approval>("first", "First?");
        let second = ctx.elicit::<Approval>("second", "Second?");
        let (first, second) = (first?, second?);
        Ok(format!(
            "first {}, second {}",
            first.accepted().is_some_and(|a| a.ok),
            second.accepted().is_some_and(|a| a.ok)
        ))
    }

    /// A name.
    #[derive(Deserialize, JsonSchema)]
    pub struct Name {
        /// The name.
        pub name: String,
    }

    // ANCHOR: ask_then_task
    /// Asks for a name synchronously, then goes on as a task.
    #[tool(task = required)]
    pub async fn ask_then_task(ctx: RequestContext) -> Result<String, ToolError> {
        let name = ctx.elicit::<Name>("name", "Name?")?;
        let name = name.accepted().map(|n| n.name).unwrap_or_default();
        ctx.start_task();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        Ok(format!("hello {name}"))
    }
    // ANCHOR_END: ask_then_task

    /// A task that runs until cancelled.
    #[tool(task)]
    pub async fn until_cancelled(
        ctx: RequestContext,
        cancel: Cancellation,
        probe: State<Arc<TaskProbe>>,
    ) -> &'static str {
        ctx.start_task();
        let watcher = {
            let (probe, cancel) = (probe.0.clone(), cancel.clone());
            tokio::spawn(async move {
                cancel.cancelled().await;
                probe.cancelled.fetch_add(1, Ordering::SeqCst);
            })
        };
        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
        watcher.abort();
        "never cancelled"
    }

    /// A task reporting progress, then waiting a little.
    #[tool(task)]
    pub async fn reports(ctx: RequestContext, progress: Progress) -> &'static str {
        ctx.start_task();
        progress.report_with(3.0, Some(10.0), "Copying files");
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        "done"
    }

    /// The long-running tools alone, with a probe.
    pub fn server(probe: Arc<TaskProbe>) -> Server {
        Server::new("long", "1.0.0")
            .only_module(module_path!())
            .state(probe)
            .task_after(std::time::Duration::from_millis(150))
            .task_poll_interval(std::time::Duration::from_millis(50))
    }
}

/// Tools whose arguments gateways see in `Mcp-Param-*` headers, declared with
/// `#[header("..")]` and, in an `Args` struct, with schemars' `extend`.
pub mod gateway {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use mcp_runtime::prelude::*;

    /// Calls that reached a handler.
    #[derive(Default)]
    pub struct Ledger {
        /// How many.
        pub calls: AtomicUsize,
    }

    // ANCHOR: move_stock
    /// Where stock is kept.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Region {
        /// Frankfurt.
        Eu,
        /// Virginia.
        Us,
    }

    impl mcp_runtime::HeaderArg for Region {}

    /// Moves stock; a gateway routes on the region and rate-limits per tenant.
    #[tool(destructive)]
    pub async fn move_stock(
        /// Whose stock.
        #[header("Tenant")]
        tenant: String,
        /// Where it is kept.
        #[header("Region")]
        region: Region,
        /// How many units.
        #[header("Units")]
        units: i64,
        /// Only check that the move is possible.
        #[header("Dry-Run")]
        dry_run: Option<bool>,
        /// A note for the audit log.
        note: Option<String>,
        ledger: State<Arc<Ledger>>,
    ) -> String {
        ledger.calls.fetch_add(1, Ordering::SeqCst);
        format!(
            "{units} units for {tenant} in {region:?} (dry run: {}, note: {})",
            dry_run.unwrap_or(false),
            note.as_deref().unwrap_or("none")
        )
    }
    // ANCHOR_END: move_stock

    // ANCHOR: shipment
    /// Where a shipment goes, as an object inside the arguments.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[schemars(inline)]
    pub struct Destination {
        /// ISO country code.
        #[schemars(extend("x-mcp-header" = "Country"))]
        pub country: String,
        /// City.
        pub city: String,
    }

    /// One shipment.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Shipment {
        /// Whose shipment.
        #[schemars(extend("x-mcp-header" = "Tenant"))]
        pub tenant: String,
        /// Where it goes.
        pub destination: Destination,
        /// Priority from 0 to 9, when it matters (one type, as a header carries).
        #[schemars(extend("type" = "integer", "x-mcp-header" = "Priority"))]
        pub priority: Option<u8>,
    }

    /// Books a shipment.
    #[tool]
    pub async fn book_shipment(
        Args(shipment): Args<Shipment>,
        ledger: State<Arc<Ledger>>,
    ) -> String {
        ledger.calls.fetch_add(1, Ordering::SeqCst);
        format!(
            "Shipping for {} to {}, {} (priority {})",
            shipment.tenant,
            shipment.destination.city,
            shipment.destination.country,
            shipment.priority.unwrap_or(5)
        )
    }
    // ANCHOR_END: shipment
}

/// A type for tests whose JSON Schema is written by hand, as given, and which takes any
/// JSON as its value: for schemas no derive would write (another dialect, a typo, an
/// annotation in the wrong place).
#[macro_export]
macro_rules! schema_type {
    ($name:ident, $schema:tt) => {
        struct $name;

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!($schema)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                ::serde::de::IgnoredAny::deserialize(d).map(|_| $name)
            }
        }
    };
}

/// The gateway fixtures alone, counting calls in `ledger`.
pub fn gateway_server(ledger: std::sync::Arc<gateway::Ledger>) -> Server {
    Server::new("gateway", "1.0.0")
        .only_module(module_path!().to_owned() + "::gateway")
        .state(ledger)
}

/// The interactive fixtures alone; `wait_for_cancel` reports to `probe`.
pub fn interactive_server(probe: std::sync::Arc<interactive::Probe>) -> Server {
    Server::new("interactive", "1.0.0")
        .only_module(module_path!().to_owned() + "::interactive")
        .state(probe)
}

/// A server with exactly the fixture tools, resources and prompts.
pub fn server() -> Server {
    Server::new("fixtures", "1.0.0")
        .only_module(module_path!().to_owned() + "::fixtures")
        .only_module(module_path!().to_owned() + "::library")
        .state(library::Notes {
            items: vec!["loved it", "too long"],
        })
}

/// Tools with side effects that must happen once: single-use confirmations, idempotency
/// keys, typed business errors. Every payment is counted (and, with a journal file,
/// written down, so a test sees the payments of a process it killed).
pub mod side_effects {
    use std::collections::HashMap;
    use std::io::Write as _;
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;
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
}
