//! A listing: a list method's pages followed one after the other, within one deadline and
//! the client's limits on pages and bytes, and refused when a cursor comes back.

use std::time::Duration;

use futures_util::{FutureExt as _, Stream};
use serde_json::{json, Value};

use super::limits::Deadline;
use super::weight;
use super::{Client, ClientError};

impl Client {
    /// A listing: `method`'s pages, their items under `key`, within `timeout` and the
    /// client's limits.
    pub(super) fn pages(
        &self,
        method: &'static str,
        key: &'static str,
        timeout: Duration,
    ) -> impl Stream<Item = Result<Value, ClientError>> + Send + 'static {
        let client = self.clone();
        let listing = Listing {
            cursor: None,
            done: false,
            deadline: Deadline::new(timeout),
            pages: 0,
            bytes: 0,
            seen: std::collections::HashSet::new(),
        };
        let pages = futures_util::stream::unfold(listing, move |mut listing| {
            let client = client.clone();
            async move {
                if listing.done {
                    return None;
                }
                let page = client.page(method, key, &mut listing).await;
                let items = match page {
                    Ok((items, next)) => {
                        match next {
                            Some(cursor) => listing.cursor = Some(cursor),
                            None => listing.done = true,
                        }
                        items.into_iter().map(Ok).collect()
                    }
                    Err(error) => {
                        listing.done = true;
                        vec![Err(error)]
                    }
                };
                Some((futures_util::stream::iter(items), listing))
            }
        });
        futures_util::StreamExt::flatten(pages)
    }

    /// One page of a listing: its items and the next cursor, if any.
    async fn page(
        &self,
        method: &str,
        key: &str,
        listing: &mut Listing,
    ) -> Result<(Vec<Value>, Option<String>), ClientError> {
        let limits = self.inner.limits;
        if listing.pages == limits.pages {
            return Err(ClientError::limit(
                "max_pages",
                limits.pages,
                format!("{method} has more than {} pages", limits.pages),
            ));
        }
        listing.pages += 1;
        let params = match &listing.cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        // Boxed: a call may list the tools again (`run`), which lists here.
        let mut page = self
            .run(method, params, &mut listing.deadline, None, &[], false)
            .boxed()
            .await?;
        let items = match page.get_mut(key).map(Value::take) {
            Some(Value::Array(items)) => items,
            None | Some(Value::Null) => Vec::new(),
            Some(_) => {
                return Err(ClientError::malformed(format!(
                    "the {key} of a {method} page are not an array"
                )))
            }
        };
        let next = match page.get("nextCursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor.clone()),
            Some(_) => {
                return Err(ClientError::malformed(format!(
                    "the nextCursor of a {method} page is not a string"
                )))
            }
        };
        listing.bytes += items.iter().map(weight::of_value).sum::<usize>();
        listing.bytes += next.as_ref().map_or(0, String::len);
        if listing.bytes > limits.list_bytes {
            return Err(ClientError::limit(
                "max_list_bytes",
                limits.list_bytes,
                format!(
                    "the pages of {method} hold more than {} bytes",
                    limits.list_bytes
                ),
            ));
        }
        if let Some(cursor) = &next {
            if !listing.seen.insert(cursor.clone()) {
                return Err(ClientError::malformed(format!(
                    "{method}: page {} gives a cursor an earlier page gave, so the listing would never end",
                    listing.pages
                )));
            }
        }
        Ok((items, next))
    }
}

/// Where a listing is (see [`Client::pages`]), and what it has taken so far.
struct Listing {
    /// The next page's cursor (`None` before the first page).
    cursor: Option<String>,
    done: bool,
    deadline: Deadline,
    pages: usize,
    /// The weight of the items and cursors taken so far (see `weight`).
    bytes: usize,
    /// Every cursor given so far: one given again would page forever.
    seen: std::collections::HashSet<String>,
}
