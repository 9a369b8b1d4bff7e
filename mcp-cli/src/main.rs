//! `mcp`: list what an MCP server offers and call it, from a terminal or a script.
//!
//! ```text
//! mcp tools -- target/debug/quickstart                  # a server over stdio
//! mcp call --url http://127.0.0.1:8080/mcp add '{"a": 2, "b": 3}'
//! ```
//!
//! The connection never guesses the protocol: over stdio it asks `server/discover` and
//! falls back to the `initialize` handshake for servers of the handshake era; over HTTP it
//! follows what the server answers (see `mcp_runtime::client`).

mod ask;
mod catalog;
mod new;
mod openapi;
mod progress;
mod render;
mod safe;
mod shell;
#[cfg(test)]
#[path = "../tests/support/terminal.rs"]
mod terminal;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mcp_runtime::client::{Client, ClientBuilder, ClientError, Era, Limits};
use serde_json::{json, Value};

#[derive(Parser)]
#[command(
    name = "mcp",
    version,
    about = "List what an MCP server offers and call it, over stdio or Streamable HTTP.",
    after_help = "The server is either `--url URL` (Streamable HTTP) or a command after `--` \
(stdio), e.g. `mcp tools -- ./my-server --stdio`.\n\n\
Exit status: 0 done; 1 the tool reported an error (isError); 2 wrong usage; \
3 the server refused the request or could not be reached."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The server's name, protocol era and version, capabilities and instructions.
    Info(Target),
    /// The server's tools, what their annotations claim, and their arguments (`*` marks
    /// required ones).
    Tools(Target),
    /// The server's resources and resource templates.
    Resources(Target),
    /// The server's prompts and their arguments.
    Prompts(Target),
    /// Call a tool. Questions the server asks on the way are asked on the terminal.
    Call {
        /// The tool's name.
        tool: String,
        /// Its arguments as a JSON object (default `{}`).
        arguments: Option<String>,
        #[command(flatten)]
        target: Target,
    },
    /// Keep one connection for a sequence of commands read from standard input (`tools`,
    /// `call TOOL {json}`, `read URI`, ..., `help`), so that a cursor or an artifact one
    /// answer hands out can be used by the next, even from a server that keeps them in
    /// its own memory.
    Shell(Target),
    /// Read a resource by its URI.
    Read {
        /// The resource's URI.
        uri: String,
        #[command(flatten)]
        target: Target,
    },
    /// Generate a crate of tools from an OpenAPI document (3.0 or 3.1, JSON or YAML).
    Openapi(openapi::OpenApiArgs),
    /// Start a project: a crate that builds and whose tests pass, with a README, a
    /// Dockerfile for the production build and a CI workflow.
    New(new::NewArgs),
    /// A snapshot of what the server offers (tools, resources, resource templates,
    /// prompts) as canonical JSON to keep in a repository; `mcp catalog diff OLD NEW`
    /// says which changes between two snapshots break callers.
    Catalog(CatalogArgs),
    /// Get a prompt's messages.
    Get {
        /// The prompt's name.
        prompt: String,
        /// Its arguments as a JSON object (default `{}`); a value that is not a string is
        /// sent as its JSON text (`42` as "42"), as prompt arguments are strings.
        arguments: Option<String>,
        #[command(flatten)]
        target: Target,
    },
}

/// `mcp catalog`: a snapshot of a server, or `diff` of two snapshots.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
struct CatalogArgs {
    #[command(subcommand)]
    diff: Option<CatalogCommand>,
    /// Write the snapshot to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    #[command(flatten)]
    target: Target,
}

#[derive(Subcommand)]
enum CatalogCommand {
    /// Compare two snapshots: each change, with its JSON pointer, is breaking, unknown (it
    /// may break callers), compatible or informational for callers, and the version bump
    /// they need is suggested. Exit status 1 when a change breaks or may break callers.
    Diff {
        /// The snapshot before (a file `mcp catalog` wrote).
        old: std::path::PathBuf,
        /// The snapshot after.
        new: std::path::PathBuf,
        /// Print the changes as JSON, for scripts.
        #[arg(long)]
        json: bool,
    },
}

/// Which server, and how to talk to it.
#[derive(Args)]
struct Target {
    /// The server's Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp.
    #[arg(long)]
    url: Option<String>,
    /// An HTTP header to send with every request, as `Name: value` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Speak only this protocol era instead of finding out which the server speaks.
    #[arg(long, value_enum)]
    era: Option<EraArg>,
    /// Seconds the whole operation may take: every page of a listing, every round of a
    /// call and every byte of the server's answers.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    timeout: u64,
    #[command(flatten)]
    limits: LimitArgs,
    /// Print the server's answers as JSON, for scripts.
    #[arg(long)]
    json: bool,
    /// The server's command and its arguments, after `--`: the server runs over stdio.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// What the server may send, past which `mcp` stops (exit 3) and says which limit.
#[derive(Args)]
#[command(next_help_heading = "Limits on what the server sends")]
struct LimitArgs {
    /// The largest message read: a line over stdio, an HTTP body, one SSE event [default: 16777216].
    #[arg(long, value_name = "BYTES")]
    max_message_bytes: Option<usize>,
    /// The most bytes one listing may hold, all pages together [default: 33554432].
    #[arg(long, value_name = "BYTES")]
    max_list_bytes: Option<usize>,
    /// The most pages one listing may have [default: 1000].
    #[arg(long, value_name = "N")]
    max_pages: Option<usize>,
    /// The most rounds of questions one call may ask [default: 16].
    #[arg(long, value_name = "N")]
    max_rounds: Option<usize>,
    /// The most questions one round may ask [default: 16].
    #[arg(long, value_name = "N")]
    max_questions: Option<usize>,
    /// The most requests of the server answered at once (handshake era) [default: 16].
    #[arg(long, value_name = "N")]
    max_server_requests: Option<usize>,
}

impl LimitArgs {
    /// The client's limits, with the ones given on the command line.
    fn limits(&self) -> Limits {
        let mut limits = Limits::new();
        if let Some(bytes) = self.max_message_bytes {
            limits = limits.max_message_bytes(bytes);
        }
        if let Some(bytes) = self.max_list_bytes {
            limits = limits.max_list_bytes(bytes);
        }
        if let Some(pages) = self.max_pages {
            limits = limits.max_pages(pages);
        }
        if let Some(rounds) = self.max_rounds {
            limits = limits.max_rounds(rounds);
        }
        if let Some(questions) = self.max_questions {
            limits = limits.max_questions(questions);
        }
        if let Some(requests) = self.max_server_requests {
            limits = limits.max_server_requests(requests);
        }
        limits
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum EraArg {
    /// 2026-07-28: no handshake, no session.
    Modern,
    /// The handshake era (2025-11-25 and earlier).
    Legacy,
}

/// Why `mcp` stopped, with its exit status.
enum Failure {
    /// The tool ran and reported an error (exit 1); its result is printed.
    ToolError,
    /// Wrong usage (exit 2).
    Usage(String),
    /// The server refused or could not be reached (exit 3).
    Server(ClientError),
    /// `mcp catalog diff` found a change that breaks or may break callers (exit 1); the
    /// changes are printed.
    Breaking,
    /// Exit with this status, everything already said (`mcp shell` after a command of its
    /// failed).
    Exit(u8),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            complain(&format!("cannot start: {error}"));
            return ExitCode::from(3);
        }
    };
    // Logs on stderr when `RUST_LOG` asks for them; each request's span exported over
    // OTLP when the standard variables name an endpoint, so a trace starts here.
    let traced = [
        "RUST_LOG",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if traced {
        runtime.block_on(async { mcp_runtime::process::init_logging() });
    }
    let outcome = runtime.block_on(run(cli.command));
    mcp_runtime::process::flush_telemetry();
    // A question still open on the terminal holds a blocking thread until a line is typed;
    // its answer is no longer wanted, and waiting for it would keep `mcp` alive after its
    // work is done. The process's exit ends that thread.
    runtime.shutdown_background();
    let code = match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => ExitCode::from(report(&failure)),
    };
    let _ = std::io::stdout().flush();
    code
}

/// Whether a question is open on the terminal, its prompt waiting at the end of a line.
static ASKING: AtomicBool = AtomicBool::new(false);

/// Says on stderr why a command failed (a tool's own error was printed with its result)
/// and gives the exit status it means.
fn report(failure: &Failure) -> u8 {
    match failure {
        Failure::ToolError | Failure::Breaking => 1,
        Failure::Exit(code) => *code,
        Failure::Usage(message) => {
            complain(message);
            2
        }
        Failure::Server(error) => {
            let mut message = error.to_string();
            // The client names the limit as the method that sets it; here the flag does.
            if let ClientError::LimitExceeded { limit, .. } = error {
                message.push_str(&format!(
                    "; to allow more, pass --{}",
                    limit.replace('_', "-")
                ));
            }
            complain(&message);
            3
        }
    }
}

/// Reports why `mcp` stopped on stderr, on a line of its own: the message may quote the
/// server (its error message, an HTTP body), so it is escaped for the terminal.
fn complain(message: &str) {
    let after_prompt = if ASKING.load(Ordering::Relaxed) {
        "\n"
    } else {
        ""
    };
    eprintln!("{after_prompt}mcp: {}", safe::line(message));
}

async fn run(command: Command) -> Result<(), Failure> {
    let (step, target) = match command {
        Command::Openapi(args) => return openapi::run(args),
        Command::New(args) => return new::run(args),
        Command::Catalog(args) => return catalog(args).await,
        Command::Shell(target) => return shell::run(&target).await,
        Command::Info(target) => (Step::Info, target),
        Command::Tools(target) => (Step::Tools, target),
        Command::Resources(target) => (Step::Resources, target),
        Command::Prompts(target) => (Step::Prompts, target),
        Command::Call {
            tool,
            arguments,
            target,
        } => (
            Step::Call {
                tool,
                arguments: object_argument(arguments.as_deref())?,
            },
            target,
        ),
        Command::Read { uri, target } => (Step::Read { uri }, target),
        Command::Get {
            prompt,
            arguments,
            target,
        } => (
            Step::Get {
                prompt,
                arguments: object_argument(arguments.as_deref())?,
            },
            target,
        ),
    };
    let client = connect(&target).await?;
    let done = perform(&client, step, target.json).await;
    client.close().await;
    done
}

/// One thing asked of a connected server: what a command of `mcp` or a line of
/// `mcp shell` does.
enum Step {
    Info,
    Tools,
    Resources,
    Prompts,
    Call { tool: String, arguments: Value },
    Read { uri: String },
    Get { prompt: String, arguments: Value },
}

/// Do `step` on `client` and print the answer (as JSON when `json`).
async fn perform(client: &Client, step: Step, json: bool) -> Result<(), Failure> {
    match step {
        Step::Info => {
            let info = json!({
                "serverInfo": client.server_info(),
                "era": era_name(client.era()),
                "protocolVersion": client.protocol_version(),
                "capabilities": client.capabilities(),
                "instructions": client.instructions(),
            });
            output(json, &info, || render::info(&info));
        }
        Step::Tools => {
            let tools = client.list_tools().await.map_err(Failure::Server)?;
            output(json, &Value::Array(tools.clone()), || render::tools(&tools));
        }
        Step::Resources => {
            let resources = client.list_resources().await.map_err(Failure::Server)?;
            let templates = client
                .list_resource_templates()
                .await
                .map_err(Failure::Server)?;
            let all = json!({"resources": resources, "resourceTemplates": templates});
            output(json, &all, || render::resources(&resources, &templates));
        }
        Step::Prompts => {
            let prompts = client.list_prompts().await.map_err(Failure::Server)?;
            output(json, &Value::Array(prompts.clone()), || {
                render::prompts(&prompts)
            });
        }
        Step::Call { tool, arguments } => {
            let indicator = progress::Indicator::start(&tool);
            let mut request = client.call_tool(&tool, arguments);
            if let Some(sink) = indicator.sink() {
                request = request.on_progress(sink);
            }
            let outcome = request.await;
            indicator.finish();
            let result = match outcome {
                Ok(result) => result,
                Err(ClientError::Business(result)) => {
                    if json {
                        print(&render::pretty(&result));
                    } else {
                        eprint!("{}", render::call_result(&result));
                    }
                    return Err(Failure::ToolError);
                }
                Err(error) => return Err(Failure::Server(error)),
            };
            output(json, &result, || render::call_result(&result));
        }
        Step::Read { uri } => {
            let result = client.read_resource(&uri).await.map_err(Failure::Server)?;
            output(json, &result, || render::read_result(&result));
        }
        Step::Get { prompt, arguments } => {
            let result = client
                .get_prompt(&prompt, prompt_arguments(arguments))
                .await
                .map_err(Failure::Server)?;
            output(json, &result, || render::prompt_result(&result));
        }
    }
    Ok(())
}

/// A prompt's arguments as the protocol carries them, strings: a number, `true` or a
/// list given on the command line is sent as its JSON text (`42`, `true`, `[1,2]`), which
/// is what a typed prompt parameter reads; a null is left out, as an argument not given.
fn prompt_arguments(arguments: Value) -> Value {
    let Value::Object(members) = arguments else {
        return arguments;
    };
    let strings = members
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| {
            let text = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
            (name, Value::String(text))
        })
        .collect();
    Value::Object(strings)
}

/// `mcp catalog`: the server's snapshot, or the diff of two.
async fn catalog(args: CatalogArgs) -> Result<(), Failure> {
    if let Some(CatalogCommand::Diff { old, new, json }) = args.diff {
        let read = |path: &std::path::Path| -> Result<Value, Failure> {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
            serde_json::from_str(&text).map_err(|e| {
                Failure::Usage(format!(
                    "{} is not a catalog snapshot (JSON): {e}",
                    path.display()
                ))
            })
        };
        let report = catalog::diff(&read(&old)?, &read(&new)?);
        if json {
            print(&render::pretty(&report.to_json()));
        } else {
            print(&safe::text(&report.human()));
        }
        return if report.breaking() {
            Err(Failure::Breaking)
        } else {
            Ok(())
        };
    }
    let client = connect(&args.target).await?;
    let snapshot = client.catalog().await;
    client.close().await;
    let mut text = render::pretty(&snapshot.map_err(Failure::Server)?);
    text.push('\n');
    match args.out {
        Some(path) => std::fs::write(&path, text)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display()))),
        None => {
            print(&text);
            Ok(())
        }
    }
}

/// Connects as the target says, with the terminal answering the server's questions.
async fn connect(target: &Target) -> Result<Client, Failure> {
    let mut builder: ClientBuilder = match (&target.url, target.command.split_first()) {
        (Some(url), None) => {
            let mut builder = Client::http(url);
            for header in &target.headers {
                let (name, value) = header.split_once(':').ok_or_else(|| {
                    Failure::Usage(format!("a header is `Name: value`, not `{header}`"))
                })?;
                builder = builder.header(name.trim(), value.trim());
            }
            builder
        }
        (None, Some((program, args))) => {
            if !target.headers.is_empty() {
                return Err(Failure::Usage("--header applies to --url only".into()));
            }
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            Client::stdio(command)
        }
        (Some(_), Some(_)) => {
            return Err(Failure::Usage(
                "give either --url or a command after `--`, not both".into(),
            ))
        }
        (None, None) => {
            return Err(Failure::Usage(
                "which server? Give --url URL, or its command after `--`".into(),
            ))
        }
    };
    builder = builder
        .timeout(Duration::from_secs(target.timeout))
        .limits(target.limits.limits())
        .client_info("mcp", env!("CARGO_PKG_VERSION"))
        .on_elicit(|params: Value| async move {
            // Reading the terminal blocks, so it happens off the runtime's threads.
            let asked = tokio::task::spawn_blocking(move || {
                let stdin = std::io::stdin();
                ASKING.store(true, Ordering::Relaxed);
                // Stderr is locked per write, not for the whole question: a question left
                // open must not keep `mcp` from reporting why it stops.
                let answer = progress::suspended(|| {
                    ask::elicitation(&params, &mut stdin.lock(), &mut std::io::stderr())
                });
                ASKING.store(false, Ordering::Relaxed);
                answer
            });
            asked.await.unwrap_or_else(|_| json!({"action": "cancel"}))
        });
    if let Some(era) = target.era {
        builder = builder.pin(match era {
            EraArg::Modern => Era::Modern,
            EraArg::Legacy => Era::Legacy,
        });
    }
    builder.connect().await.map_err(Failure::Server)
}

/// JSON for scripts, or the human rendering.
fn output(json: bool, value: &Value, human: impl FnOnce() -> String) {
    if json {
        print(&render::pretty(value));
    } else {
        print(&human());
    }
}

fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`mcp tools | head -1`) is not an error worth reporting.
    let _ = stdout.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
}

/// The arguments given on the command line: a JSON object, or `{}` when none.
fn object_argument(text: Option<&str>) -> Result<Value, Failure> {
    let Some(text) = text else {
        return Ok(json!({}));
    };
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(Failure::Usage(format!(
            "arguments must be a JSON object such as '{{\"a\": 1}}', not {text}"
        ))),
        Err(error) => Err(Failure::Usage(format!(
            "arguments are not JSON ({error}): {text}"
        ))),
    }
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "stateless",
        Era::Legacy => "handshake",
    }
}
