//! `public-api-list RUSTDOC_JSON`: every public item of the crate the JSON describes, with
//! its full signature, one per line, sorted, blanket implementations (`impl<T> From<T> for
//! T` and the like) left out since they follow from the rest.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(json), None) = (args.next(), args.next()) else {
        eprintln!("usage: public-api-list RUSTDOC_JSON");
        return ExitCode::from(2);
    };
    let api = match public_api::Builder::from_rustdoc_json(&json)
        .omit_blanket_impls(true)
        .build()
    {
        Ok(api) => api,
        Err(error) => {
            eprintln!("{}: {error}", json.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for item in api.items() {
        if writeln!(out, "{item}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
