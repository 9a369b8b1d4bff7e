//! [`check_store`]: the contract every [`Store`] keeps, as a test.

// A test reports a broken rule by panicking, as `assert!` does; nothing here serves a
// client.
#![allow(clippy::expect_used, clippy::panic)]

use crate::store::{Record, Store};

/// Check that `store` keeps the [`Store`] contract: insert only over a missing or expired
/// record, expired records invisible, compare-and-swap replace and remove, bounded sweeps,
/// and exactly one winner among concurrent inserts and replaces. Panics naming the rule
/// that broke. Run it against a store of your own, or against a database shared with
/// other tests: its keys are its own, and its records expire in 1970.
pub async fn check_store<S: Store>(store: &S) {
    let run = crate::policy::seal::random_token(9).unwrap_or_else(|e| panic!("{e}"));
    let key = |name: &str| format!("check:{run}:{name}");
    let record = |name: &str, version: u64, expires_at_ms: u64, body: &str| Record {
        key: key(name),
        version,
        expires_at_ms,
        body: body.to_owned(),
    };
    // Times are given, not read: the records live in the first seconds of 1970.
    let body = r#"{"text":"quotes \" and ünïcödé ✓","n":[1,2.5,null]}"#;

    // Insert, then load it back as written.
    let first = record("a", 1, 10_000, body);
    assert!(
        store.insert(&first, 1_000).await.expect("insert"),
        "a new key is inserted"
    );
    assert_eq!(
        store.load(&first.key, 1_000).await.expect("load"),
        Some(first.clone()),
        "a record loads as written"
    );
    assert!(
        !store
            .insert(&record("a", 1, 20_000, "{}"), 1_000)
            .await
            .expect("insert"),
        "a live key is not inserted over"
    );
    assert_eq!(
        store.load(&first.key, 1_000).await.expect("load"),
        Some(first.clone()),
        "a refused insert changes nothing"
    );
    assert_eq!(
        store.load(&key("missing"), 1_000).await.expect("load"),
        None,
        "a missing key loads as nothing"
    );

    // Expiry: invisible from its time on, and replaced by an insert.
    assert!(
        store.load(&first.key, 9_999).await.expect("load").is_some(),
        "a record is live until its expiry"
    );
    assert_eq!(
        store.load(&first.key, 10_000).await.expect("load"),
        None,
        "a record is gone at its expiry"
    );
    let second = record("a", 1, 30_000, "{\"second\":true}");
    assert!(
        store.insert(&second, 10_000).await.expect("insert"),
        "an insert takes over an expired key"
    );
    assert_eq!(
        store.load(&second.key, 10_000).await.expect("load"),
        Some(second.clone())
    );

    // Compare-and-swap.
    let v2 = Record {
        version: 2,
        body: "{\"v\":2}".into(),
        ..second.clone()
    };
    assert!(
        store.replace(&v2).await.expect("replace"),
        "version 1 is replaced by version 2"
    );
    assert!(
        !store.replace(&v2).await.expect("replace"),
        "version 2 again finds version 2 stored, not 1, and is refused"
    );
    let v4 = Record {
        version: 4,
        ..v2.clone()
    };
    assert!(
        !store.replace(&v4).await.expect("replace"),
        "a replacement must follow the stored version"
    );
    assert_eq!(
        store.load(&v2.key, 10_000).await.expect("load"),
        Some(v2.clone()),
        "refused replacements change nothing"
    );
    assert!(
        !store
            .replace(&record("none", 2, 30_000, "{}"))
            .await
            .expect("replace"),
        "a missing record is not replaced"
    );
    assert!(
        !store.remove(&v2.key, 1).await.expect("remove"),
        "removal must name the stored version"
    );
    assert!(
        store.remove(&v2.key, 2).await.expect("remove"),
        "the stored version is removed"
    );
    assert_eq!(store.load(&v2.key, 10_000).await.expect("load"), None);
    assert!(
        !store.remove(&v2.key, 2).await.expect("remove"),
        "a missing record is not removed"
    );

    // Sweeps delete expired records, at most `limit` at a time, and nothing live.
    for n in 0..5 {
        store
            .insert(&record(&format!("old{n}"), 1, 100, "{}"), 50)
            .await
            .expect("insert");
    }
    let live = record("live", 1, u64::MAX, "{}");
    store.insert(&live, 50).await.expect("insert");
    assert_eq!(
        store.delete_expired(200, 2).await.expect("sweep"),
        2,
        "a sweep stops at its limit"
    );
    assert_eq!(
        store.delete_expired(200, 100).await.expect("sweep"),
        3,
        "the next sweep takes the rest"
    );
    assert_eq!(
        store.load(&live.key, 200).await.expect("load"),
        Some(live.clone()),
        "a sweep leaves live records, and one that never expires loads as never expiring"
    );

    // Among concurrent writers of one key, exactly one wins.
    let racers = (0..16).map(|n| {
        let contested = record("race", 1, 1_000_000, &format!("{{\"racer\":{n}}}"));
        async move { store.insert(&contested, 200).await.expect("insert") }
    });
    let won = futures_util::future::join_all(racers).await;
    assert_eq!(
        won.iter().filter(|w| **w).count(),
        1,
        "exactly one concurrent insert of a key wins"
    );
    let racers = (0..16).map(|n| {
        let next = record("race", 2, 1_000_000, &format!("{{\"replacer\":{n}}}"));
        async move { store.replace(&next).await.expect("replace") }
    });
    let won = futures_util::future::join_all(racers).await;
    assert_eq!(
        won.iter().filter(|w| **w).count(),
        1,
        "exactly one concurrent replacement of a version wins"
    );
    store.remove(&key("race"), 2).await.expect("remove");
    store.remove(&live.key, 1).await.expect("remove");
}
