//! An era-bridging gateway: serves the tools, prompts and resources of one or more other
//! MCP servers (its upstreams) as its own (tools and prompts named `upstream.tool`,
//! resources at their own URIs), to 2026-07-28 clients (statelessly) and
//! handshake-era ones, whatever era each upstream speaks: put a 2026-07-28 front on an old
//! server during a migration.
//!
//! ```text
//! # from the repository root, after `npm ci` in tests/servers:
//! cargo run -p mcp-examples --bin gateway -- \
//!     --upstream 'legacy=node tests/servers/legacy-only.mjs --stdio'
//! # an HTTP upstream, the gateway itself over HTTP, with tenants:
//! GATEWAY_TENANTS='acme:gw-key-acme-0123456789:upstream-token-acme,globex:gw-key-globex-0123456789:upstream-token-globex' \
//! cargo run -p mcp-examples --bin gateway -- \
//!     --upstream crm=https://crm.example.com/mcp --http 127.0.0.1:8080
//! ```
//!
//! `--upstream NAME=TARGET` (repeatable): TARGET is an `http://` or `https://` URL of a
//! Streamable HTTP server, or else a command line (split on spaces, no quoting) started once
//! per tenant, speaking MCP on stdio. NAME prefixes the upstream's tools and prompts.
//! `--trust-annotations NAME` (repeatable) publishes that upstream's tool hints
//! (read-only, destructive, ...) as the gateway's own; without it they are dropped, since
//! they are the upstream's claims. Then `--stdio` (the default) or `--http ADDR`, as for
//! every example.
//!
//! `--openapi NAME=SPEC[,BASE_URL]` (repeatable) serves the operations of a REST API's
//! OpenAPI document as tools named `NAME.tool` (as an upstream's are), each call one HTTP
//! request to the API (`mcp_runtime::openapi`): SPEC is the document's path or URL,
//! BASE_URL the API's (default: the document's first server). The API's credentials are
//! the gateway's own, from the environment, per security scheme of the document: for NAME
//! `crm` and the scheme `apiKey`, `CRM_API_KEY_KEY` (an API key), `CRM_API_KEY_TOKEN` (a
//! bearer token) or `CRM_API_KEY_USER` and `CRM_API_KEY_PASSWORD` (basic). Every caller's
//! calls use them, tenants included; the caller's own token never reaches the API. The
//! hints of these tools come from the document's methods (`GET` is read-only, ...) and
//! are published as they are.
//!
//! `--search` lists, to a caller who may see more than 50 tools (`--search=N`: more than
//! N), only `search_tools`, which finds the others by a description of the task
//! (`mcp_runtime::ToolSearch`); every tool is still called by name.
//!
//! Tenants (environment): `GATEWAY_TENANTS` lists `tenant:api-key:upstream-credential`
//! entries separated by commas. A caller presents its API key as a bearer token (on stdio,
//! the host sets `MCP_ACCESS_TOKEN`); its calls reach each upstream through a connection of
//! its own, carrying its upstream credential: as `Authorization: Bearer` to an HTTP
//! upstream, as the `UPSTREAM_TOKEN` environment variable of a process started for it
//! alone. Tenants never share an upstream connection. Without `GATEWAY_TENANTS` the gateway
//! has a single user (no API keys; HTTP then serves loopback only) whose calls use one
//! connection per upstream with `GATEWAY_DISCOVERY_TOKEN`, if set.
//!
//! At start, each upstream's tools, prompts and resources are listed once with `GATEWAY_DISCOVERY_TOKEN` (as the
//! bearer token or `UPSTREAM_TOKEN`; none when unset). Questions an upstream tool asks
//! (elicitation, sampling, roots) are not relayed: such a call ends with a tool error.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_runtime::client::{Client, ClientBuilder};
use mcp_runtime::gateway::Upstream;
use mcp_runtime::openapi::{Curation, OpenApiTools};
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::process::{self, Mode};
use mcp_runtime::ToolSearch;
use mcp_runtime::{Error, Principal, Server};

/// The environment variable listing the tenants.
const TENANTS_ENV: &str = "GATEWAY_TENANTS";
/// The environment variable holding the credential used to list each upstream's tools.
const DISCOVERY_ENV: &str = "GATEWAY_DISCOVERY_TOKEN";

const USAGE: &str = "usage: gateway [--upstream NAME=URL|'NAME=COMMAND ARGS' ..] [--openapi NAME=SPEC[,BASE_URL] ..] [--trust-annotations NAME ..] [--search[=THRESHOLD]] [--stdio | --http ADDR]";

/// Where an upstream is.
#[derive(Clone)]
enum Target {
    Http(String),
    /// The program and its arguments.
    Command((String, Vec<String>)),
}

impl Target {
    /// A builder of a client of this upstream presenting `credential` (if any).
    fn client(&self, credential: Option<&str>) -> ClientBuilder {
        match self {
            Target::Http(url) => {
                let builder = Client::http(url);
                match credential {
                    Some(token) => builder.bearer(token),
                    None => builder,
                }
            }
            Target::Command((program, args)) => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).kill_on_drop(true);
                if let Some(token) = credential {
                    command.env("UPSTREAM_TOKEN", token);
                }
                Client::stdio(command)
            }
        }
    }
}

/// An OpenAPI document served as tools.
struct OpenApi {
    /// The tools' prefix, and the stem of the credentials' variables.
    name: String,
    /// The document's path or URL.
    spec: String,
    /// The API's base URL, when not the document's.
    base_url: Option<String>,
}

impl OpenApi {
    /// `NAME=SPEC[,BASE_URL]`: the base URL after the last comma, when it is an http(s) URL.
    fn parse(value: &str) -> Result<OpenApi, Error> {
        let wrong = || {
            Error::Args(format!(
                "--openapi {value:?} is not NAME=SPEC[,BASE_URL]\n\n{USAGE}"
            ))
        };
        let (name, rest) = value.split_once('=').ok_or_else(wrong)?;
        let (spec, base_url) = match rest.rsplit_once(',') {
            Some((spec, base)) if base.starts_with("http://") || base.starts_with("https://") => {
                (spec, Some(base.to_owned()))
            }
            _ => (rest, None),
        };
        if name.is_empty() || spec.trim().is_empty() {
            return Err(wrong());
        }
        Ok(OpenApi {
            name: name.to_owned(),
            spec: spec.to_owned(),
            base_url,
        })
    }

    /// The document's tools, prefixed, with the API's base URL and the credentials the
    /// environment holds.
    async fn load(&self) -> Result<OpenApiTools, Error> {
        let tools = OpenApiTools::load(&self.spec, &Curation::default())
            .await
            .map_err(|e| Error::Args(format!("--openapi {:?}: {e}", self.name)))?;
        let stem = self.name.to_ascii_uppercase().replace(['-', '.'], "_");
        let tools = tools.prefix(&self.name).credentials_from_env(&stem);
        Ok(match &self.base_url {
            Some(base) => tools.base_url(base),
            None => tools,
        })
    }
}

/// The command line: the upstreams, those whose tool hints are trusted, the OpenAPI
/// documents, and the rest (the serving mode).
struct CommandLine {
    upstreams: Vec<(String, Target)>,
    trusted: Vec<String>,
    openapi: Vec<OpenApi>,
    /// `--search[=THRESHOLD]`: search instead of the whole list past that many tools.
    search: Option<ToolSearch>,
    rest: Vec<String>,
}

/// `--upstream` values and the rest of the command line.
fn split_args(args: impl IntoIterator<Item = String>) -> Result<CommandLine, Error> {
    let mut upstreams = Vec::new();
    let mut trusted = Vec::new();
    let mut openapi = Vec::new();
    let mut search = None;
    let mut rest = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let document = match arg.strip_prefix("--openapi=") {
            Some(value) => Some(value.to_owned()),
            None if arg == "--openapi" => Some(args.next().ok_or_else(|| {
                Error::Args(format!("--openapi needs NAME=SPEC[,BASE_URL]\n\n{USAGE}"))
            })?),
            None => None,
        };
        if let Some(value) = document {
            openapi.push(OpenApi::parse(&value)?);
            continue;
        }
        if arg == "--search" {
            search = Some(ToolSearch::new());
            continue;
        }
        if let Some(threshold) = arg.strip_prefix("--search=") {
            let threshold = threshold.parse().map_err(|_| {
                Error::Args(format!(
                    "--search={threshold} is not a number of tools\n\n{USAGE}"
                ))
            })?;
            search = Some(ToolSearch::new().threshold(threshold));
            continue;
        }
        if arg == "--trust-annotations" {
            let name = args.next().ok_or_else(|| {
                Error::Args(format!(
                    "--trust-annotations needs an upstream's NAME\n\n{USAGE}"
                ))
            })?;
            trusted.push(name);
            continue;
        }
        let value = match arg.strip_prefix("--upstream=") {
            Some(value) => value.to_owned(),
            None if arg == "--upstream" => args
                .next()
                .ok_or_else(|| Error::Args(format!("--upstream needs NAME=TARGET\n\n{USAGE}")))?,
            None => {
                rest.push(arg);
                continue;
            }
        };
        let (name, target) = value
            .split_once('=')
            .filter(|(name, target)| !name.is_empty() && !target.trim().is_empty())
            .ok_or_else(|| {
                Error::Args(format!(
                    "--upstream {value:?} is not NAME=TARGET\n\n{USAGE}"
                ))
            })?;
        let target = if target.starts_with("http://") || target.starts_with("https://") {
            Target::Http(target.to_owned())
        } else {
            let words: Vec<String> = target.split_whitespace().map(str::to_owned).collect();
            match words.split_first() {
                Some((program, args)) => Target::Command((program.clone(), args.to_vec())),
                None => {
                    return Err(Error::Args(format!(
                        "--upstream {value:?} names no command"
                    )))
                }
            }
        };
        upstreams.push((name.to_owned(), target));
    }
    if upstreams.is_empty()
        && openapi.is_empty()
        && !rest.iter().any(|a| a == "-h" || a == "--help")
    {
        return Err(Error::Args(format!(
            "no --upstream or --openapi given\n\n{USAGE}"
        )));
    }
    if let Some(unknown) = trusted
        .iter()
        .find(|name| !upstreams.iter().any(|(upstream, _)| upstream == *name))
    {
        return Err(Error::Args(format!(
            "--trust-annotations {unknown:?} names no --upstream\n\n{USAGE}"
        )));
    }
    Ok(CommandLine {
        upstreams,
        trusted,
        openapi,
        search,
        rest,
    })
}

/// The tenants: their API keys, and each tenant's upstream credential.
struct Tenants {
    keys: ApiKeys,
    credentials: HashMap<String, String>,
}

/// The tenants of `GATEWAY_TENANTS`: their API keys (each standing for a principal of that
/// tenant) and each tenant's upstream credential. `None` when the variable is unset.
fn tenants() -> Result<Option<Tenants>, Error> {
    let Ok(text) = std::env::var(TENANTS_ENV) else {
        return Ok(None);
    };
    let mut keys = ApiKeys::new();
    let mut credentials = HashMap::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let [tenant, key, credential] = entry.splitn(3, ':').collect::<Vec<_>>()[..] else {
            return Err(Error::Args(format!(
                "{TENANTS_ENV}: each entry is tenant:api-key:upstream-credential, not {:?}",
                entry.split(':').next().unwrap_or_default()
            )));
        };
        keys = keys.key(key, Principal::new(tenant).with_tenant(tenant))?;
        credentials.insert(tenant.to_owned(), credential.to_owned());
    }
    Ok(Some(Tenants { keys, credentials }))
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let CommandLine {
        upstreams,
        trusted,
        openapi,
        search,
        rest,
    } = split_args(std::env::args().skip(1))?;
    let mode = process::parse_args(rest)?;
    if let Mode::Help(text) = mode {
        println!("{USAGE}\n\n{text}");
        return Ok(());
    }
    process::init_logging();
    let tenants = tenants()?;
    let discovery = std::env::var(DISCOVERY_ENV).ok();
    let credentials = Arc::new(tenants.as_ref().map(|t| t.credentials.clone()));
    let mut server = Server::new("gateway", env!("CARGO_PKG_VERSION"));
    for (name, target) in upstreams {
        let per_caller = {
            let target = target.clone();
            let credentials = credentials.clone();
            let discovery = discovery.clone();
            move |caller: Option<&Principal>| match credentials.as_ref() {
                // Tenants: the caller's own credential; a caller without one is refused.
                Some(credentials) => {
                    let credential = credentials.get(caller?.tenant()?)?;
                    Some(target.client(Some(credential)))
                }
                // A single user.
                None => Some(target.client(discovery.as_deref())),
            }
        };
        let upstream = Upstream::discover(
            name.clone(),
            target.client(discovery.as_deref()),
            per_caller,
        )
        .await
        .map_err(|e| Error::Args(format!("upstream {name:?}: {e}")))?
        .trust_annotations(trusted.contains(&name));
        tracing::info!(upstream = %name, tools = upstream.tools().len(), "mounted");
        server = server.mount(upstream);
    }
    for document in openapi {
        let tools = document.load().await?;
        tracing::info!(
            openapi = %document.name,
            tools = tools.api().operations.len(),
            skipped = tools.api().skipped.len(),
            "served"
        );
        server = server.openapi(tools);
    }
    if let Some(tenants) = tenants {
        server = server.verify_tokens(tenants.keys);
    }
    if let Some(search) = search {
        server = server.tool_search(search);
    }
    server.build()?.serve(mode).await
}
