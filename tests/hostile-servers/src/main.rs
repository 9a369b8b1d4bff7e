//! `hostile`: an MCP server that misbehaves on purpose, one case at a time, for the tests
//! of the client, the `mcp` command and the gateway. It speaks the wire by hand (not with
//! mcp-runtime's server) so it can send what that server never would.
//!
//! `hostile CASE [--era modern|legacy] [--http ADDR] [--sse] [--redirect-to URL]`; sizes
//! and counts from `HOSTILE_BYTES` and `HOSTILE_COUNT`. See README.md for the cases.

mod answer;
mod answers;
mod cases;
mod chunks;
mod http;
mod messages;
mod stdio;

use std::process::ExitCode;
use std::sync::Arc;

use cases::{Case, Era, Options, Transports};

const USAGE: &str =
    "usage: hostile CASE [--era modern|legacy] [--http ADDR] [--sse] [--redirect-to URL]";

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1), |name| std::env::var(name).ok()) {
        Ok(options) => options,
        Err(problem) => {
            eprintln!("hostile: {problem}\n{USAGE}");
            eprintln!("cases: {}", Case::ALL.map(Case::name).join(", "));
            return ExitCode::from(2);
        }
    };
    let http = options.http.clone();
    let hostile = Arc::new(answer::Hostile::new(options));
    match http {
        Some(addr) => match http::serve(hostile, &addr).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(problem) => {
                eprintln!("hostile: {problem}");
                ExitCode::FAILURE
            }
        },
        None => {
            stdio::serve(hostile).await;
            ExitCode::SUCCESS
        }
    }
}

/// The options of a run, from its arguments and environment, or what is wrong with them.
fn parse(
    mut args: impl Iterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Options, String> {
    let name = args.next().ok_or("no CASE given")?;
    let case = Case::parse(&name).ok_or_else(|| format!("no case named {name:?}"))?;
    let (mut era, mut http, mut sse, mut redirect_to) = (None, None, false, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--era" => {
                let given = value()?;
                era = Some(Era::parse(&given).ok_or_else(|| format!("no era named {given:?}"))?);
            }
            "--http" => http = Some(value()?),
            "--sse" => sse = true,
            "--redirect-to" => redirect_to = Some(value()?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let era = match era {
        Some(era) if !case.eras().contains(&era) => {
            return Err(format!(
                "{} is not played in the {} era",
                case.name(),
                era.name()
            ))
        }
        Some(era) => era,
        None => case.eras()[0],
    };
    match (case.transports(), &http) {
        (Transports::StdioOnly, Some(_)) => {
            return Err(format!("{} is played over stdio only", case.name()))
        }
        (Transports::HttpOnly, None) => {
            return Err(format!(
                "{} is played over HTTP only: give --http ADDR",
                case.name()
            ))
        }
        _ => {}
    }
    if sse && http.is_none() {
        return Err("--sse is for HTTP: give --http ADDR".into());
    }
    match (case, &redirect_to) {
        (Case::Redirect, None) => return Err("redirect needs --redirect-to URL".into()),
        (Case::Redirect, Some(_)) | (_, None) => {}
        (_, Some(_)) => return Err("--redirect-to is for the redirect case".into()),
    }
    let number = |name: &str| -> Result<Option<u64>, String> {
        env(name)
            .map(|text| {
                text.parse::<u64>()
                    .map_err(|_| format!("{name}={text:?} is not a count"))
            })
            .transpose()
    };
    Ok(Options {
        case,
        era,
        http,
        sse,
        redirect_to,
        bytes: number("HOSTILE_BYTES")?.unwrap_or(200_000_000),
        count: number("HOSTILE_COUNT")?,
        refuse_401: env("HOSTILE_401").is_some_and(|v| v == "1"),
        only_method: env("HOSTILE_METHOD"),
    })
}
