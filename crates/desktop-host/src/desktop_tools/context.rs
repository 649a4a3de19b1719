//! What every desktop tool shares: the folders, the user's language, the diagnostics ring, and the way blocking
//! filesystem work is run.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::desktop_paths::{DesktopPaths, KnownFolder};
use crate::desktop_tools::failure::{FailureKind, ToolFailure};
use crate::diagnostics::Diagnostics;
use crate::language::Language;

/// Shared state of the desktop tools; cheap to clone.
#[derive(Clone, Debug)]
pub struct DesktopToolContext {
    /// The user's folders.
    pub paths: Arc<DesktopPaths>,
    /// The language of failure messages.
    pub language: Language,
    /// Where full errors go.
    pub diagnostics: Diagnostics,
}

/// A tool's success: `content` is the compact text the model reads, `details` the structured data the UI renders.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// Text for the model.
    pub content: String,
    /// Data for the UI.
    pub details: Value,
}

impl DesktopToolContext {
    /// A context over `paths` with a fresh diagnostics ring.
    pub fn new(paths: DesktopPaths, language: Language) -> DesktopToolContext {
        DesktopToolContext {
            paths: Arc::new(paths),
            language,
            diagnostics: Diagnostics::new(),
        }
    }

    /// Captures `error` under `tool_name` and returns the safe failure of `kind` for `folder`.
    pub fn fail(
        &self,
        tool_name: &str,
        folder: KnownFolder,
        kind: FailureKind,
        error: &(dyn std::error::Error + 'static),
    ) -> ToolFailure {
        self.diagnostics.capture(tool_name, error);
        ToolFailure {
            kind,
            folder,
            language: self.language,
        }
    }

    /// A failure that has nothing worth capturing (bad arguments, cancellation).
    pub fn refuse(&self, folder: KnownFolder, kind: FailureKind) -> ToolFailure {
        ToolFailure {
            kind,
            folder,
            language: self.language,
        }
    }
}

/// Runs blocking filesystem `work` on the blocking pool and stops waiting as soon as `cancel_token` fires (the
/// work itself polls the same token and winds down on its own).
pub(crate) async fn run_blocking<T, F>(
    context: &DesktopToolContext,
    tool_name: &str,
    folder: KnownFolder,
    cancel_token: &CancellationToken,
    work: F,
) -> Result<T, ToolFailure>
where
    T: Send + 'static,
    F: FnOnce(CancellationToken) -> Result<T, ToolFailure> + Send + 'static,
{
    if cancel_token.is_cancelled() {
        return Err(context.refuse(folder, FailureKind::Cancelled));
    }
    let token = cancel_token.clone();
    let handle = tokio::task::spawn_blocking(move || work(token));
    tokio::select! {
        // A run cancelled while the work finishes reports the cancellation, whichever came first.
        biased;
        () = cancel_token.cancelled() => Err(context.refuse(folder, FailureKind::Cancelled)),
        joined = handle => match joined {
            Ok(result) => result,
            Err(join_error) => Err(context.fail(tool_name, folder, FailureKind::FolderUnavailable, &join_error)),
        },
    }
}
