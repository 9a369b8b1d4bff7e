//! The server's own [`Error`]: why it could not start (its tools or configuration are
//! inconsistent, its command line was not understood) or stopped (its transport failed).
//! What a tool's failure becomes is another matter, in `failure`.

/// Why a server could not start or stopped with an error.
pub enum Error {
    /// The tools or configuration are inconsistent (found at start).
    Build(Vec<crate::registry::BuildError>),
    /// Reading or writing the transport failed.
    Io(std::io::Error),
    /// The command line was not understood.
    Args(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Build(errors) => {
                f.write_str("the server cannot start:")?;
                for e in errors {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
            Error::Io(e) => write!(f, "transport error: {e}"),
            Error::Args(text) => f.write_str(text),
        }
    }
}

// `main() -> Result<(), Error>` prints Debug; make that the readable message.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

/// One configuration problem, such as an API key refused by
/// [`ApiKeys::key`](crate::policy::api_keys::ApiKeys::key), as the error of a `main` that
/// returns `Result<(), Error>`.
impl From<crate::registry::BuildError> for Error {
    fn from(error: crate::registry::BuildError) -> Self {
        Error::Build(vec![error])
    }
}
