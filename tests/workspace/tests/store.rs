//! Every store keeps the same contract: in memory, SQLite (a file, shared by two handles
//! as by two processes), and PostgreSQL (`MCP_TEST_POSTGRES_URL`; the test command starts
//! one).

use mcp_runtime::store::{MemoryStore, PostgresStore, SqliteStore};
use mcp_runtime::testing::check_store;

#[tokio::test]
async fn the_memory_store_keeps_the_contract() {
    check_store(&MemoryStore::new()).await;
}

#[tokio::test]
async fn the_sqlite_store_keeps_the_contract() {
    check_store(&SqliteStore::in_memory().unwrap()).await;
    let dir = std::env::temp_dir().join(format!("mcp-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("records.db");
    check_store(&SqliteStore::open(&file).unwrap()).await;
    // A second handle on the file sees the first's records, as another process would.
    let writer = SqliteStore::open(&file).unwrap();
    let reader = SqliteStore::open(&file).unwrap();
    let record = mcp_runtime::store::Record {
        key: "shared".into(),
        version: 1,
        expires_at_ms: u64::MAX,
        body: "{}".into(),
    };
    use mcp_runtime::store::Store as _;
    assert!(writer.insert(&record, 0).await.unwrap());
    assert!(!reader.insert(&record, 0).await.unwrap());
    assert_eq!(reader.load("shared", 0).await.unwrap(), Some(record));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
#[ignore = "needs PostgreSQL: MCP_TEST_POSTGRES_URL=postgres://… (scripts/test-all.sh starts one)"]
async fn the_postgres_store_keeps_the_contract() {
    let url = std::env::var("MCP_TEST_POSTGRES_URL").expect("MCP_TEST_POSTGRES_URL");
    check_store(&PostgresStore::new(url.clone())).await;
    // Two clients, as two instances would have.
    let (a, b) = (PostgresStore::new(url.clone()), PostgresStore::new(url));
    use mcp_runtime::store::Store as _;
    let key = format!("instances:{}", std::process::id());
    let record = mcp_runtime::store::Record {
        key: key.clone(),
        version: 1,
        expires_at_ms: 1_000,
        body: "{}".into(),
    };
    assert!(a.insert(&record, 0).await.unwrap());
    assert!(!b.insert(&record, 0).await.unwrap());
    assert_eq!(b.load(&key, 0).await.unwrap(), Some(record));
    assert!(b.remove(&key, 1).await.unwrap());
}

#[test]
fn processes_opening_one_sqlite_file_at_once_all_start() {
    // Two server processes sharing a store start together: the first to switch the file
    // to write-ahead logging holds its lock for a moment, and the others wait for it.
    for round in 0..20 {
        let dir = std::env::temp_dir().join(format!("mcp-open-{}-{round}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("records.db");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let openers: Vec<_> = (0..8)
            .map(|_| {
                let (file, barrier) = (file.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    SqliteStore::open(&file).map(|_| ())
                })
            })
            .collect();
        for opener in openers {
            assert_eq!(opener.join().unwrap(), Ok(()), "round {round}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
