//! `completion/complete` results.

use serde::{Deserialize, Serialize};

/// Most values one completion result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Suggested values for an argument.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Suggestions, best first (at most 100 on the wire).
    pub values: Vec<String>,
    /// How many matches exist in all, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more matches exist than were sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// Suggestions from any list; cut to 100 with `total` and `hasMore` set when longer.
    pub fn new<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut all: Vec<String> = values.into_iter().map(Into::into).collect();
        let total = all.len();
        if total > MAX_COMPLETION_VALUES {
            all.truncate(MAX_COMPLETION_VALUES);
            return Completion {
                values: all,
                total: Some(total as u64),
                has_more: Some(true),
            };
        }
        Completion {
            values: all,
            total: None,
            has_more: None,
        }
    }

    /// Enforce the 100-value bound on a completion built by hand, keeping what it says
    /// about the total.
    pub fn bounded(mut self) -> Self {
        let len = self.values.len();
        if len > MAX_COMPLETION_VALUES {
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.total = Some(self.total.unwrap_or(0).max(len as u64));
            self.has_more = Some(true);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_cut_to_100_with_total_and_has_more() {
        let c = Completion::new((0..250).map(|i| i.to_string()));
        // S-251: at most 100 values; total and hasMore tell what was cut.
        assert_eq!(c.values.len(), 100);
        assert_eq!(c.total, Some(250));
        assert_eq!(c.has_more, Some(true));
        let short = Completion::new(["a", "b"]);
        assert_eq!(
            serde_json::to_value(&short).unwrap(),
            serde_json::json!({"values": ["a", "b"]})
        );
        let by_hand = Completion {
            values: (0..101).map(|i| i.to_string()).collect(),
            total: None,
            has_more: None,
        }
        .bounded();
        assert_eq!(
            (by_hand.values.len(), by_hand.total, by_hand.has_more),
            (100, Some(101), Some(true))
        );
    }
}
