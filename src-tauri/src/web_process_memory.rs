//! The web process's half of giving freed memory back: the WebKit extension that trims its allocator
//! (`web-extension/memory.rs`, built by `build.rs`) and the message that asks it to. (With
//! `PI_DESKTOP_REPORT_JS_HEAP` set, the extension also gives the page its JavaScript heap's size, for the
//! benchmarks.)
//!
//! WebKit loads extensions from a folder set on the web context before its first web process starts, so the
//! extension is written into the app's cache folder when the app starts, and the main window is built with that
//! folder (`tauri.conf.json` leaves its creation to `run`). Every window shares the context, so one message
//! reaches the web process of each.

use std::io;
use std::path::{Path, PathBuf};

use tauri::{Manager as _, Runtime};
use webkit2gtk::{UserMessage, WebContextExt as _, WebViewExt as _};

/// The extension, as `build.rs` built it.
const EXTENSION: &[u8] = include_bytes!(concat!(
    env!("OUT_DIR"),
    "/web-extension/libpi_desktop_web_process.so"
));
/// The extension's file name; WebKit loads every `.so` of its folder, and only those.
const EXTENSION_FILE: &str = "libpi_desktop_web_process.so";
/// The message's name; the extension answers to the same bytes.
const RELEASE_MEMORY: &str = "pi-desktop.release-memory";

/// Writes the extension into `cache_dir/web-extension/` (unless it is there already, byte for byte) and returns
/// that folder. The file is written beside and renamed into place, so a web process never loads half of one.
pub(crate) fn install_extension(cache_dir: &Path) -> io::Result<PathBuf> {
    let folder = cache_dir.join("web-extension");
    let path = folder.join(EXTENSION_FILE);
    if std::fs::read(&path).is_ok_and(|present| present == EXTENSION) {
        return Ok(folder);
    }
    std::fs::create_dir_all(&folder)?;
    let partial = folder.join(format!(".{EXTENSION_FILE}.partial"));
    std::fs::write(&partial, EXTENSION)?;
    std::fs::rename(&partial, &path)?;
    Ok(folder)
}

/// Asks the web processes of the app's windows to give their freed memory back (the extension trims the
/// allocator on WebKit's main thread; a few milliseconds, only after a quiet spell).
pub(crate) fn ask_web_processes_to_release<R: Runtime>(app: &tauri::AppHandle<R>) {
    let Some(window) = app.webview_windows().into_values().next() else {
        return;
    };
    let asked = window.with_webview(|webview| {
        if let Some(context) = webview.inner().context() {
            context.send_message_to_all_extensions(&UserMessage::new(RELEASE_MEMORY, None));
        }
    });
    if let Err(error) = asked {
        tracing::debug!(%error, "cannot ask the web processes to give memory back");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_written_once_and_rewritten_when_it_differs() {
        let cache = tempfile::tempdir().unwrap();

        let folder = install_extension(cache.path()).unwrap();
        let path = folder.join(EXTENSION_FILE);
        assert_eq!(std::fs::read(&path).unwrap(), EXTENSION);
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();

        assert_eq!(install_extension(cache.path()).unwrap(), folder);
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            written,
            "rewritten though unchanged"
        );

        std::fs::write(&path, b"an older build").unwrap();
        install_extension(cache.path()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), EXTENSION);
        let files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(
            files,
            [EXTENSION_FILE],
            "only the extension is in its folder"
        );
    }

    #[test]
    fn the_extension_is_a_shared_object_with_webkit_s_entry_point() {
        assert_eq!(&EXTENSION[..4], b"\x7fELF");
        let entry = b"webkit_web_extension_initialize";
        assert!(EXTENSION.windows(entry.len()).any(|window| window == entry));
    }
}
