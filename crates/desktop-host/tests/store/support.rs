use std::path::{Path, PathBuf};
use std::sync::Arc;

use desktop_host::store::{DATABASE_FILE_NAME, ManualClock, OpenedStore, Store};
use serde_json::{Value, json};

/// 2026-11-30T12:00:00Z.
pub(crate) const START_MS: i64 = 1_796_040_000_000;

pub(crate) struct TestStore {
    pub(crate) folder: tempfile::TempDir,
    pub(crate) clock: ManualClock,
    pub(crate) store: Store,
}

impl TestStore {
    pub(crate) fn new() -> Self {
        let folder = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(START_MS);
        let opened = open_at(&folder.path().join(DATABASE_FILE_NAME), &clock);
        assert_eq!(opened.notices, vec![]);
        Self {
            folder,
            clock,
            store: opened.store,
        }
    }

    pub(crate) fn path(&self) -> PathBuf {
        self.folder.path().join(DATABASE_FILE_NAME)
    }

    /// Closes the store and opens the file again, as after a restart.
    pub(crate) fn reopen(self) -> Self {
        let Self {
            folder,
            clock,
            store,
        } = self;
        drop(store);
        let opened = open_at(&folder.path().join(DATABASE_FILE_NAME), &clock);
        assert_eq!(opened.notices, vec![]);
        Self {
            folder,
            clock,
            store: opened.store,
        }
    }

    /// A second, independent handle on the same file (what another process would read).
    pub(crate) fn second_handle(&self) -> Store {
        open_at(&self.path(), &self.clock).store
    }
}

pub(crate) fn open_at(path: &Path, clock: &ManualClock) -> OpenedStore {
    Store::open_with_clock(path, Arc::new(clock.clone())).unwrap()
}

pub(crate) fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": START_MS})
}

pub(crate) fn assistant(text: &str, stop_reason: &str) -> Value {
    json!({
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "scripted",
        "provider": "scripted",
        "model": "scripted-1",
        "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": stop_reason,
        "timestamp": START_MS,
    })
}

pub(crate) fn data_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/store")
        .join(relative)
}

/// Every transcript copied from the conformance traces, by scenario name.
pub(crate) fn conformance_transcripts() -> Vec<(String, Vec<Value>)> {
    let mut transcripts: Vec<(String, Vec<Value>)> = std::fs::read_dir(data_path("transcripts"))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let messages: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (name, messages)
        })
        .collect();
    transcripts.sort_by(|left, right| left.0.cmp(&right.0));
    transcripts
}
