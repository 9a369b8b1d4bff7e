//! Pagination cursors: sealed, so clients cannot forge or read them, and bound to the list
//! they came from, so any instance with the same key and tools can resume them.

use super::seal::{Sealer, Unsealed};

/// Produces and checks cursors for one list method.
pub(crate) struct Cursors {
    purpose: String,
    /// Pre-sealed cursor for each page index (index 0 is never handed out).
    next: Vec<String>,
    fingerprint: u64,
    sealer: Sealer,
}

impl Cursors {
    /// Cursors for `pages` pages of the list `method` whose content hashes to `fingerprint`.
    pub(crate) fn new(
        sealer: &Sealer,
        method: &str,
        pages: usize,
        fingerprint: u64,
    ) -> Result<Self, String> {
        let purpose = format!("cursor:{method}");
        let next = (0..pages)
            .map(|page| sealer.seal(&purpose, format!("{fingerprint:016x}:{page}").as_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Cursors {
            purpose,
            next,
            fingerprint,
            sealer: sealer.clone(),
        })
    }

    /// The cursor that resumes at `page`.
    pub(crate) fn cursor_for(&self, page: usize) -> Option<&str> {
        self.next.get(page).map(String::as_str)
    }

    /// The page a cursor points at, or why it points at none: for a cursor sealed with
    /// another key, the reason and what to set; for any other this list did not issue,
    /// `None`.
    pub(crate) fn page_of(&self, cursor: &str) -> Result<usize, Option<&'static str>> {
        let plain = match self.sealer.open(&self.purpose, cursor) {
            Ok(plain) => plain,
            Err(Unsealed::OtherKey) => return Err(Some(self.sealer.other_key())),
            Err(_) => return Err(None),
        };
        let text = std::str::from_utf8(&plain).map_err(|_| None)?;
        let (fingerprint, page) = text.split_once(':').ok_or(None)?;
        if u64::from_str_radix(fingerprint, 16).ok() != Some(self.fingerprint) {
            return Err(None);
        }
        let page: usize = page.parse().map_err(|_| None)?;
        if page > 0 && page < self.next.len() {
            Ok(page)
        } else {
            Err(None)
        }
    }
}
