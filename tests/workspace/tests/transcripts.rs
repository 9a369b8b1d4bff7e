//! Recorded exchanges replayed over both transports: the same bytes in, the same answers out.

use mcp_runtime::testing::Transcript;

fn transcripts() -> Vec<(String, Transcript)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts");
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcripts folder")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        let text = std::fs::read_to_string(&path).expect("readable transcript");
        let transcript =
            Transcript::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push((path.display().to_string(), transcript));
    }
    assert!(!out.is_empty(), "no transcripts found");
    out
}

#[tokio::test]
async fn transcripts_replay_over_stdio() {
    let app = mcp_workspace_tests::server()
        .build()
        .expect("fixture server builds");
    for (name, transcript) in transcripts() {
        transcript
            .replay_stdio(&app)
            .await
            .unwrap_or_else(|e| panic!("{name} over stdio: {e}"));
    }
}

#[tokio::test]
async fn transcripts_replay_over_http() {
    let app = mcp_workspace_tests::server()
        .build()
        .expect("fixture server builds");
    // S-072: every message of every transcript is a POST to the one endpoint, /mcp.
    for (name, transcript) in transcripts() {
        transcript
            .replay_http(&app)
            .await
            .unwrap_or_else(|e| panic!("{name} over HTTP: {e}"));
    }
}
