//! Pagination cursors: sealed, so clients cannot forge or read them, and bound to the list
//! they came from, so any instance with the same key and tools can resume them.

use super::seal::Sealer;

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

    /// The page a cursor points at, or `None` for a cursor this list did not issue.
    pub(crate) fn page_of(&self, cursor: &str) -> Option<usize> {
        let plain = self.sealer.open(&self.purpose, cursor).ok()?;
        let text = std::str::from_utf8(&plain).ok()?;
        let (fingerprint, page) = text.split_once(':')?;
        if u64::from_str_radix(fingerprint, 16).ok()? != self.fingerprint {
            return None;
        }
        let page: usize = page.parse().ok()?;
        (page > 0 && page < self.next.len()).then_some(page)
    }
}
