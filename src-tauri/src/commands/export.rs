//! Exports through the system's dialogs: `choose_export_path` asks where to save a conversation (the save
//! dialog of `tauri-plugin-dialog`, opened in Downloads on the conversation's file name); `export_conversation`
//! (in `sidebar`) writes there; `reveal_exported_file` shows a file exported in this run of the app in the
//! file manager (`tauri-plugin-opener`), and only such a file.
//!
//! The end-to-end tests cannot drive a native GTK dialog over WebDriver: in a build with the `e2e` feature
//! (never a release), [`E2E_SAVE_PATH`] set in the environment answers the save dialog instead.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use desktop_host::conversations::Conversations;
use desktop_host::language::Language;
use desktop_host::store::{ConversationId, ExportFormat};
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt as _;
use tauri_plugin_opener::OpenerExt as _;

use crate::command_error::{CommandError, ErrorCode, to_command_error};

/// The variable whose path answers the save dialog in a build with the `e2e` feature.
#[cfg(feature = "e2e")]
pub(crate) const E2E_SAVE_PATH: &str = "PI_DESKTOP_E2E_SAVE_PATH";

/// The files exported in this run of the app: the only ones `reveal_exported_file` shows.
#[derive(Debug, Default)]
pub(crate) struct ExportedFiles(Mutex<HashSet<PathBuf>>);

impl ExportedFiles {
    /// Remembers an exported file.
    pub(crate) fn add(&self, path: &Path) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_path_buf());
    }

    fn contains(&self, path: &Path) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(path)
    }
}

/// Asks where to save conversation `conversation_id` in `format`: the save dialog, opened in the Downloads
/// folder on `<title>.<md|jsonl>`, titled in `language`. `None` when the user cancelled.
#[tauri::command]
pub(crate) async fn choose_export_path<R: Runtime>(
    app: AppHandle<R>,
    conversations: State<'_, Conversations>,
    conversation_id: String,
    format: ExportFormat,
    language: Option<Language>,
) -> Result<Option<String>, CommandError> {
    let file_name = conversations
        .export_file_name(&ConversationId::from(conversation_id), format)
        .map_err(to_command_error)?;
    #[cfg(feature = "e2e")]
    if let Some(path) = std::env::var_os(E2E_SAVE_PATH) {
        return Ok(Some(path.to_string_lossy().into_owned()));
    }
    let language = language.unwrap_or_default();
    let (filter_name, extension) = match format {
        ExportFormat::Markdown => ("Markdown", "md"),
        ExportFormat::JsonLines => ("JSON Lines", "jsonl"),
    };
    let (sender, receiver) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title(language.pick("导出对话", "Export the conversation"))
        .set_directory(conversations.export_dir())
        .set_file_name(file_name)
        .add_filter(filter_name, &[extension])
        .save_file(move |chosen| {
            let _ = sender.send(chosen);
        });
    let chosen = receiver.await.map_err(CommandError::work_stopped)?;
    chosen
        .map(|chosen| {
            chosen
                .into_path()
                .map(|path| path.display().to_string())
                .map_err(|error| CommandError::new(ErrorCode::ExportFailed, error.to_string()))
        })
        .transpose()
}

/// Shows `path`, a file exported in this run of the app, selected in the file manager.
#[tauri::command]
pub(crate) async fn reveal_exported_file<R: Runtime>(
    app: AppHandle<R>,
    exported: State<'_, ExportedFiles>,
    path: String,
) -> Result<(), CommandError> {
    let path = PathBuf::from(path);
    if !exported.contains(&path) {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            format!("{} is not a file this app exported", path.display()),
        ));
    }
    app.opener()
        .reveal_item_in_dir(&path)
        .map_err(|error| CommandError::new(ErrorCode::FolderNotOpened, error.to_string()))
}
