//! The `inventory-api` program: serves the API, or prints its OpenAPI document.
//!
//! ```text
//! inventory-api serve [--addr 127.0.0.1:8090] [--db inventory.db]   # `:memory:` for no file
//! inventory-api openapi > examples/inventory-api/openapi.json
//! ```
//!
//! `serve` prints `listening on http://ADDR` as its first line (so `--addr 127.0.0.1:0`
//! tells a test its port), and takes the API key from `INVENTORY_API_KEY` (`dev-key` when
//! unset).

use std::net::SocketAddr;
use std::process::ExitCode;

use inventory_api::{Inventory, API_KEY_VARIABLE, DEFAULT_API_KEY};

const USAGE: &str = "usage: inventory-api serve [--addr 127.0.0.1:8090] [--db inventory.db]
       inventory-api openapi";

/// What the command line asks for.
enum Command {
    Serve { addr: SocketAddr, db: String },
    OpenApi,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Command, String> {
    match args.next().as_deref() {
        Some("openapi") => match args.next() {
            None => Ok(Command::OpenApi),
            Some(extra) => Err(format!("openapi takes no argument, not {extra:?}")),
        },
        Some("serve") => {
            let mut addr = SocketAddr::from(([127, 0, 0, 1], 8090));
            let mut db = "inventory.db".to_owned();
            while let Some(flag) = args.next() {
                let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
                match flag.as_str() {
                    "--addr" => {
                        addr = value
                            .parse()
                            .map_err(|e| format!("--addr {value:?}: {e}"))?;
                    }
                    "--db" => db = value,
                    _ => return Err(format!("unknown option {flag:?}")),
                }
            }
            Ok(Command::Serve { addr, db })
        }
        Some(other) => Err(format!("unknown command {other:?}")),
        None => Err("a command is required".to_owned()),
    }
}

fn api_key() -> Result<String, String> {
    match std::env::var(API_KEY_VARIABLE) {
        Ok(key) if key.is_empty() => Err(format!("{API_KEY_VARIABLE} is empty")),
        Ok(key) => Ok(key),
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_API_KEY.to_owned()),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{API_KEY_VARIABLE} is not text")),
    }
}

async fn serve(addr: SocketAddr, db: &str) -> Result<(), String> {
    let api_key = api_key()?;
    let inventory = Inventory::open(db)
        .await
        .map_err(|e| format!("--db {db:?}: {e}"))?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--addr {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("--addr {addr}: {e}"))?;
    println!("listening on http://{local}");
    let shutdown = async {
        // Where Ctrl-C cannot be listened for, the server runs until it is killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    axum::serve(listener, inventory_api::router(inventory, api_key))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| format!("serving {local}: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let command = match parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(e) => {
            eprintln!("inventory-api: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let outcome = match command {
        Command::OpenApi => inventory_api::openapi()
            .to_pretty_json()
            .map(|json| println!("{json}"))
            .map_err(|e| e.to_string()),
        Command::Serve { addr, db } => serve(addr, &db).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("inventory-api: {e}");
            ExitCode::FAILURE
        }
    }
}
