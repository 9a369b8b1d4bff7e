//! The list results made once at start: each page of entries both as a JSON tree (for
//! adapters that reshape results) and as JSON text (written to the wire as it is), plus
//! the entries themselves for list filters that decide per caller.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::Listed;

/// One page of a list result, made once at start: the array of entries as a JSON tree,
/// for adapters that reshape results, and as JSON text, written to the wire as it is.
pub struct ListPage {
    items: Value,
    /// `None` only if the tree could not be written, which a `Value` always can.
    json: Option<Box<RawValue>>,
}

impl ListPage {
    /// A page of these entries.
    pub fn new(entries: Vec<Value>) -> ListPage {
        let items = Value::Array(entries);
        let json = serde_json::value::to_raw_value(&items).ok();
        ListPage { items, json }
    }

    /// The entries as a JSON array (for the adapters that reshape results).
    #[cfg_attr(not(any(feature = "legacy", feature = "testing")), allow(dead_code))]
    pub fn items(&self) -> &Value {
        &self.items
    }

    /// The entries as JSON text, when written (always, in practice).
    #[cfg(test)]
    pub fn json(&self) -> Option<&RawValue> {
        self.json.as_deref()
    }
}

impl std::fmt::Debug for ListPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ListPage").field(&self.items).finish()
    }
}

impl PartialEq for ListPage {
    fn eq(&self, other: &Self) -> bool {
        // The text is written from the tree, so the trees decide.
        self.items == other.items
    }
}

/// Writes the text when there is one: copying bytes, not walking the tree.
impl Serialize for ListPage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.json {
            Some(json) => json.serialize(serializer),
            None => self.items.serialize(serializer),
        }
    }
}

/// One listable collection, paged and serialized ahead of time.
pub struct Listing {
    /// Each page (at least one, possibly empty).
    pub pages: Vec<Arc<ListPage>>,
    /// Every entry with its serialized form, in list order (for per-caller filtering).
    pub entries: Vec<(Listed<'static>, Value)>,
    /// A fingerprint of the listed keys, so a cursor from another set is refused.
    pub fingerprint: u64,
}

impl Listing {
    pub(super) fn new<'a, T: Serialize + 'a>(
        items: impl Iterator<Item = (&'a str, Listed<'static>, &'a T)> + Clone,
        page_size: usize,
    ) -> Listing {
        // FNV-1a over the keys: stable across processes, unlike std's RandomState.
        let mut hash: u64 = 0xcbf29ce484222325;
        for (key, _, _) in items.clone() {
            for byte in key.bytes().chain(std::iter::once(0)) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x100000001b3);
            }
        }
        let entries: Vec<(Listed<'static>, Value)> = items
            .map(|(_, listed, item)| (listed, serde_json::to_value(item).unwrap_or(Value::Null)))
            .collect();
        let mut pages: Vec<Arc<ListPage>> = entries
            .chunks(page_size.max(1))
            .map(|chunk| {
                Arc::new(ListPage::new(
                    chunk.iter().map(|(_, v)| v.clone()).collect(),
                ))
            })
            .collect();
        if pages.is_empty() {
            pages.push(Arc::new(ListPage::new(Vec::new())));
        }
        Listing {
            pages,
            entries,
            fingerprint: hash,
        }
    }
}
