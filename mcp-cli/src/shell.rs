//! `mcp shell`: one connection, many commands. Each line of standard input is a command
//! (`tools`, `call TOOL {json}`, `read URI`, ...) done on the same connection, so a cursor
//! or an artifact link one answer hands out can be used by the next line, even from a
//! server over stdio that keeps them in its own memory and seals them with a key it made
//! at start (which `mcp call -- ./server`, a new server per call, cannot do).

use std::io::{BufRead, IsTerminal, Read, Write};

use mcp_runtime::client::ClientError;

use crate::{connect, object_argument, perform, report, Failure, Step, Target};

/// The longest command line read, in bytes: arguments are JSON typed by a person or a
/// script, not bulk data.
const MAX_LINE: u64 = 1 << 20;

/// What `help` prints.
const HELP: &str = "\
commands, one a line:
  info                      the server's name, era, version, capabilities
  tools                     its tools and their arguments
  resources                 its resources and resource templates
  prompts                   its prompts and their arguments
  call TOOL [{json}]        call a tool with these arguments
  read URI                  read a resource (an artifact link too)
  get PROMPT [{json}]       get a prompt's messages
  help                      this list
  quit                      end (so does the end of the input)
Questions the server asks during a call are asked here too.";

/// A line read: a command, or the end of the input.
enum Line {
    Text(String),
    End,
}

/// Runs commands from standard input on one connection to the target. The status is 0
/// when every command succeeded, else that of the last one that failed (1 a tool's
/// error, 2 a command mistyped, 3 the server refused); the shell stops early when the
/// connection is gone.
pub(crate) async fn run(target: &Target) -> Result<(), Failure> {
    let client = connect(target).await?;
    let terminal = std::io::stdin().is_terminal();
    if terminal {
        eprintln!("connected; `help` lists the commands, `quit` ends");
    }
    let mut status = 0u8;
    loop {
        if terminal {
            eprint!("mcp> ");
            let _ = std::io::stderr().flush();
        }
        let line = match read_line().await {
            Ok(Line::Text(line)) => line,
            Ok(Line::End) => break,
            Err(message) => {
                status = report(&Failure::Usage(message));
                continue;
            }
        };
        let step = match parse(&line) {
            Ok(Some(Parsed::Step(step))) => step,
            Ok(Some(Parsed::Help)) => {
                eprintln!("{HELP}");
                continue;
            }
            Ok(Some(Parsed::Quit)) => break,
            Ok(None) => continue,
            Err(message) => {
                status = report(&Failure::Usage(message));
                continue;
            }
        };
        if let Err(failure) = perform(&client, step, target.json).await {
            status = report(&failure);
            if let Failure::Server(ClientError::Closed | ClientError::Transport { .. }) = failure {
                if target.url.is_none() {
                    // Over stdio the server is gone: nothing more can be done.
                    break;
                }
            }
        }
    }
    client.close().await;
    match status {
        0 => Ok(()),
        code => Err(Failure::Exit(code)),
    }
}

/// One line of standard input, read off the runtime's threads (reading blocks), at most
/// [`MAX_LINE`] bytes.
async fn read_line() -> Result<Line, String> {
    let read = tokio::task::spawn_blocking(|| {
        let stdin = std::io::stdin();
        let mut bytes = Vec::new();
        let mut limited = stdin.lock().take(MAX_LINE + 1);
        match limited.read_until(b'\n', &mut bytes) {
            Ok(0) => Ok(Line::End),
            Ok(_) if bytes.len() as u64 > MAX_LINE && !bytes.ends_with(b"\n") => {
                // The rest of the overlong line is not a command of its own.
                let mut rest = Vec::new();
                let _ = stdin.lock().read_until(b'\n', &mut rest);
                Err(format!("a command line is at most {MAX_LINE} bytes"))
            }
            Ok(_) => String::from_utf8(bytes)
                .map(Line::Text)
                .map_err(|_| "a command line is not UTF-8".to_owned()),
            Err(error) => Err(format!("cannot read standard input: {error}")),
        }
    });
    read.await
        .unwrap_or_else(|_| Err("cannot read standard input".to_owned()))
}

/// What a line asks for.
enum Parsed {
    Step(Step),
    Help,
    Quit,
}

/// The command a line holds; `None` for a blank line or a comment (`#`).
fn parse(line: &str) -> Result<Option<Parsed>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    // The first word after the command, and the JSON after it, if any.
    let named = |what: &str| -> Result<(String, Option<String>), String> {
        let (name, json) = match rest.split_once(char::is_whitespace) {
            Some((name, json)) => (name, Some(json.trim().to_owned())),
            None => (rest, None),
        };
        if name.is_empty() {
            return Err(format!(
                "`{word}` needs a {what}: `{word} {}`",
                what.to_uppercase()
            ));
        }
        Ok((name.to_owned(), json.filter(|j| !j.is_empty())))
    };
    let bare = |step: Step| -> Result<Option<Parsed>, String> {
        if rest.is_empty() {
            Ok(Some(Parsed::Step(step)))
        } else {
            Err(format!("`{word}` takes nothing after it"))
        }
    };
    let arguments = |json: Option<String>| {
        object_argument(json.as_deref()).map_err(|failure| match failure {
            Failure::Usage(message) => message,
            _ => "arguments must be a JSON object".to_owned(),
        })
    };
    match word {
        "info" => bare(Step::Info),
        "tools" => bare(Step::Tools),
        "resources" => bare(Step::Resources),
        "prompts" => bare(Step::Prompts),
        "call" => {
            let (tool, json) = named("tool")?;
            Ok(Some(Parsed::Step(Step::Call {
                tool,
                arguments: arguments(json)?,
            })))
        }
        "get" => {
            let (prompt, json) = named("prompt")?;
            Ok(Some(Parsed::Step(Step::Get {
                prompt,
                arguments: arguments(json)?,
            })))
        }
        "read" => match named("uri")? {
            (uri, None) => Ok(Some(Parsed::Step(Step::Read { uri }))),
            (_, Some(_)) => Err("`read` takes one URI".to_owned()),
        },
        "help" | "?" => Ok(Some(Parsed::Help)),
        "quit" | "exit" => Ok(Some(Parsed::Quit)),
        other => Err(format!(
            "unknown command `{}`; `help` lists the commands",
            crate::safe::line(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(line: &str) -> Step {
        match parse(line) {
            Ok(Some(Parsed::Step(step))) => step,
            _ => panic!("{line}: not a step"),
        }
    }

    #[test]
    fn lines_parse_into_commands() {
        assert!(matches!(step("tools"), Step::Tools));
        assert!(matches!(step("  info  "), Step::Info));
        match step(r#"call add {"a": 2, "b": 3}"#) {
            Step::Call { tool, arguments } => {
                assert_eq!(tool, "add");
                assert_eq!(arguments["b"], 3);
            }
            _ => panic!("not a call"),
        }
        match step("call ping") {
            Step::Call { arguments, .. } => {
                assert!(arguments.as_object().is_some_and(|o| o.is_empty()))
            }
            _ => panic!("not a call"),
        }
        match step("read artifact://abc/part/1") {
            Step::Read { uri } => assert_eq!(uri, "artifact://abc/part/1"),
            _ => panic!("not a read"),
        }
        assert!(matches!(parse(""), Ok(None)));
        assert!(matches!(parse("# a comment"), Ok(None)));
        assert!(matches!(parse("quit"), Ok(Some(Parsed::Quit))));
        assert!(matches!(parse("help"), Ok(Some(Parsed::Help))));
    }

    #[test]
    fn mistakes_are_said_and_name_the_command() {
        let error = |line: &str| match parse(line) {
            Err(message) => message,
            Ok(_) => panic!("{line}: accepted"),
        };
        assert!(error("call").contains("`call` needs a tool"));
        assert!(error("call add [1]").contains("must be a JSON object"));
        assert!(error("call add {nope").contains("not JSON"));
        assert!(error("tools now").contains("takes nothing"));
        assert!(error("read a b").contains("one URI"));
        // What the user typed is shown escaped, never interpreted by the terminal.
        assert!(!error("\u{1b}[2Jboom").contains('\u{1b}'));
    }
}
