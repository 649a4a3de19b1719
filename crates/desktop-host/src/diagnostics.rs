//! The diagnostics component of the chapter: the full story of a failure goes here (with paths and causes),
//! while the model and the UI only see a short, safe message.
//!
//! Every capture is written to `tracing` at `warn` (target `desktop_host::diagnostics`, so the app's rotating log
//! file gets it) and kept in a small in-memory ring that the app can show in a "details" view and tests can read.
//! Contract: callers pass errors whose texts carry no secrets (API keys never reach the tools' errors); paths are
//! fine here, this is the one place they may appear.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// How many captures the ring keeps.
pub const RING_CAPACITY: usize = 128;

/// One captured failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedDiagnostic {
    /// What was being done (`"list_download_files"`, `"settings"`, …).
    pub context: String,
    /// The error and its causes, outermost first, joined by `": "`.
    pub detail: String,
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
}

/// A cheap-to-clone handle to the diagnostics ring.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    ring: Arc<Mutex<VecDeque<CapturedDiagnostic>>>,
}

impl Diagnostics {
    /// A new, empty ring.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Records `error` (with its `source()` chain) under `context`.
    pub fn capture(&self, context: &str, error: &(dyn std::error::Error + 'static)) {
        let mut detail = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            let cause_text = cause.to_string();
            // thiserror messages often already embed their source; do not repeat it.
            if !detail.contains(&cause_text) {
                detail.push_str(": ");
                detail.push_str(&cause_text);
            }
            source = cause.source();
        }
        tracing::warn!(target: "desktop_host::diagnostics", context, detail = %detail, "captured failure");
        let captured = CapturedDiagnostic {
            context: context.to_owned(),
            detail,
            timestamp_ms: crate::listing::system_time_ms(std::time::SystemTime::now()),
        };
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        if ring.len() == RING_CAPACITY {
            ring.pop_front();
        }
        ring.push_back(captured);
    }

    /// The captures still in the ring, oldest first.
    pub fn recent(&self) -> Vec<CapturedDiagnostic> {
        self.ring
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read /home/u/Downloads")]
    struct Outer {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn captures_keep_the_whole_chain_and_the_ring_is_bounded() {
        let diagnostics = Diagnostics::new();
        for _ in 0..(RING_CAPACITY + 3) {
            let error = Outer {
                source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
            };
            diagnostics.capture("list_download_files", &error);
        }
        let recent = diagnostics.recent();
        assert_eq!(recent.len(), RING_CAPACITY);
        assert_eq!(recent[0].detail, "cannot read /home/u/Downloads: denied");
        assert_eq!(recent[0].context, "list_download_files");
    }
}
