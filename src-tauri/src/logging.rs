//! Logging: readable lines on stderr, and the same events in a daily-rotated file in the app's log
//! folder (the newest [`KEPT_LOG_FILES`] files are kept).
//!
//! The filter comes from `RUST_LOG` when set, `info` otherwise. Nothing logged may contain a secret.
//! File writes are synchronous: a desktop app logs little, and no writer guard must outlive `main`.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use tauri::plugin::TauriPlugin;
use tauri::{Manager as _, Runtime};
use tracing::Subscriber;
use tracing_appender::rolling::{InitError, RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::{SubscriberInitExt as _, TryInitError};

/// Log files are named `<prefix>.<date>.log`.
pub const LOG_FILE_PREFIX: &str = "pi-desktop";
const LOG_FILE_SUFFIX: &str = "log";
const KEPT_LOG_FILES: usize = 7;
const DEFAULT_FILTER: &str = "info";

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    /// The log folder could not be created.
    #[error("cannot create the log folder {path}: {source}")]
    LogFolder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The log file could not be opened.
    #[error("cannot open a log file in {path}: {source}")]
    LogFile {
        path: PathBuf,
        #[source]
        source: InitError,
    },
    /// A global subscriber was already installed in this process.
    #[error("logging was already set up: {0}")]
    AlreadySet(#[from] TryInitError),
}

/// A plugin that installs the subscriber over the app's log folder (`app_log_dir`, e.g.
/// `~/.local/share/<identifier>/logs` on Linux). A plugin rather than a step of the app's `setup`, because other
/// plugins' start-up runs before `setup` and logs too (the single-instance plugin warns there when it finds no
/// session bus): register it first.
pub(crate) fn plugin<R: Runtime>() -> TauriPlugin<R> {
    tauri::plugin::Builder::new("app-logging")
        .setup(|app, _api| {
            let log_dir = app.path().app_log_dir()?;
            init(&log_dir)?;
            Ok(())
        })
        .build()
}

/// Installs the process-wide subscriber writing to stderr and to `log_dir`.
pub(crate) fn init(log_dir: &Path) -> Result<(), LoggingError> {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    subscriber(log_dir, filter)?.try_init()?;
    Ok(())
}

/// The subscriber [`init`] installs, built without installing it so tests can scope it.
fn subscriber(
    log_dir: &Path,
    filter: EnvFilter,
) -> Result<impl Subscriber + Send + Sync + 'static, LoggingError> {
    // The appender would create the folder too, but only after complaining on stderr that it could
    // not list old files to prune.
    std::fs::create_dir_all(log_dir).map_err(|source| LoggingError::LogFolder {
        path: log_dir.to_path_buf(),
        source,
    })?;
    let log_file = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(LOG_FILE_PREFIX)
        .filename_suffix(LOG_FILE_SUFFIX)
        .max_log_files(KEPT_LOG_FILES)
        .build(log_dir)
        .map_err(|source| LoggingError::LogFile {
            path: log_dir.to_path_buf(),
            source,
        })?;
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let file_layer = tracing_subscriber::fmt::layer()
        .with_writer(log_file)
        .with_ansi(false);
    Ok(tracing_subscriber::registry()
        .with(filter)
        .with(stderr_layer)
        .with(file_layer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_files_in(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        files
    }

    #[test]
    fn events_reach_a_dated_plain_text_file_in_the_log_folder() {
        let temp = tempfile::tempdir().unwrap();
        let log_dir = temp.path().join("logs");
        let subscriber = subscriber(&log_dir, EnvFilter::new("info")).unwrap();

        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(conversation = 7, "the window opened");
            tracing::debug!("below the filter");
        });

        let files = log_files_in(&log_dir);
        assert_eq!(files.len(), 1, "one log file expected, found {files:?}");
        let file_name = files[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            file_name.starts_with("pi-desktop.") && file_name.ends_with(".log"),
            "{file_name}"
        );
        let contents = std::fs::read_to_string(&files[0]).unwrap();
        assert!(contents.contains("the window opened"), "{contents}");
        assert!(contents.contains("conversation=7"), "{contents}");
        assert!(!contents.contains("below the filter"), "{contents}");
        assert!(
            !contents.contains('\u{1b}'),
            "no ANSI colours in the file: {contents:?}"
        );
    }

    #[test]
    fn an_unusable_log_folder_is_a_typed_error_naming_the_folder() {
        let temp = tempfile::tempdir().unwrap();
        let not_a_folder = temp.path().join("occupied");
        std::fs::write(&not_a_folder, "a file where the folder should be").unwrap();

        let error = subscriber(&not_a_folder, EnvFilter::new("info"))
            .err()
            .unwrap();

        assert!(matches!(error, LoggingError::LogFolder { ref path, .. } if path == &not_a_folder));
        assert!(error.to_string().contains("occupied"), "{error}");
    }
}
