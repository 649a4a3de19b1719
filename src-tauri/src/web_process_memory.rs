//! The web process's half of giving freed memory back: the WebKit extension that trims its allocator and empties
//! WebKit's caches (`web-extension/memory.rs`, built by `build.rs`) and the messages that tell it when the window
//! is quiet or has gone behind (the rule it follows is `web-extension/cache_release.rs`). (With
//! `PI_DESKTOP_REPORT_JS_HEAP` set, the extension also gives the page its JavaScript heap's size and how often the
//! caches were emptied, for the benchmarks.)
//!
//! WebKit loads extensions from a folder set on the web context before its first web process starts, so the
//! extension is written into the app's cache folder when the app starts, and the main window is built with that
//! folder (`tauri.conf.json` leaves its creation to `run`). Every window shares the context, so the quick-ask
//! window's web process loads it too; each window's page is told about its own window, so a stall meant for a
//! window behind never lands in the one the user looks at.

use std::io;
use std::path::{Path, PathBuf};

use tauri::{Manager as _, Runtime};
use webkit2gtk::{UserMessage, WebViewExt as _};

#[path = "../web-extension/cache_release.rs"]
#[allow(
    dead_code,
    reason = "the rule runs in the web process; the app sends its moments and holds the rule in its tests"
)]
mod cache_release;

pub(crate) use cache_release::Moment;

/// The extension, as `build.rs` built it.
const EXTENSION: &[u8] = include_bytes!(concat!(
    env!("OUT_DIR"),
    "/web-extension/libpi_desktop_web_process.so"
));
/// The extension's file name; WebKit loads every `.so` of its folder, and only those.
const EXTENSION_FILE: &str = "libpi_desktop_web_process.so";

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

/// Tells `window`'s page what moment it is: its web process trims its allocator, and empties WebKit's caches when
/// the rule says so (a few milliseconds, or some 40 when the caches are emptied; on WebKit's main thread).
pub(crate) fn tell_web_process<R: Runtime>(window: &tauri::WebviewWindow<R>, moment: Moment) {
    let told = window.with_webview(move |webview| {
        let message = UserMessage::new(moment.message(), None);
        webview.inner().send_message_to_page(
            &message,
            None::<&webkit2gtk::gio::Cancellable>,
            |reply| {
                if let Err(error) = reply {
                    tracing::debug!(%error, "a web process did not take the memory message");
                }
            },
        );
    });
    if let Err(error) = told {
        tracing::debug!(%error, "cannot tell a web process to give memory back");
    }
}

/// After a quiet spell, each window's web process hears of it: the main window's always (hidden to the tray, it may
/// have worked: a run answers behind it), the others while they are shown; in front when the window is shown,
/// not minimised and has the focus.
pub(crate) fn after_quiet_spell<R: Runtime>(app: &tauri::AppHandle<R>) {
    for (label, window) in app.webview_windows() {
        let shown = window.is_visible().unwrap_or(true);
        if label != crate::MAIN_WINDOW && !shown {
            continue;
        }
        let in_front =
            shown && !window.is_minimized().unwrap_or(false) && window.is_focused().unwrap_or(true);
        let moment = if in_front {
            Moment::QuietInFront
        } else {
            Moment::QuietBehind
        };
        tell_web_process(&window, moment);
    }
}

#[cfg(test)]
mod tests {
    use super::cache_release::{CacheRelease, EMPTY_EVERY_MS};
    use super::*;

    #[test]
    fn in_front_the_caches_are_emptied_at_most_once_a_minute_of_quiet_spells() {
        let started = 5_000;
        let mut release = CacheRelease::new(started);

        assert!(!release.empty_now(Moment::QuietInFront, started + 1_000));
        assert!(!release.empty_now(Moment::QuietInFront, started + EMPTY_EVERY_MS - 1));
        assert!(release.empty_now(Moment::QuietInFront, started + EMPTY_EVERY_MS));
        let emptied = started + EMPTY_EVERY_MS;
        assert!(!release.empty_now(Moment::QuietInFront, emptied + 30_000));
        assert!(release.empty_now(Moment::QuietInFront, emptied + EMPTY_EVERY_MS + 1));
    }

    #[test]
    fn behind_the_caches_are_emptied_once_there_was_work_since_the_last_time() {
        let mut release = CacheRelease::new(0);

        assert!(
            !release.empty_now(Moment::WentBehind, 1_000),
            "nothing was done since the process started"
        );
        assert!(release.empty_now(Moment::QuietBehind, 2_000));
        assert!(
            !release.empty_now(Moment::WentBehind, 3_000),
            "emptied already, no work since"
        );

        assert!(!release.empty_now(Moment::QuietInFront, 10_000));
        assert!(
            release.empty_now(Moment::WentBehind, 11_000),
            "the quiet spell in front left the work of the last seconds"
        );
        assert!(!release.empty_now(Moment::WentBehind, 12_000));
        assert!(
            !release.empty_now(Moment::QuietInFront, 11_000 + EMPTY_EVERY_MS - 1),
            "emptying behind counts as the last time in front too"
        );
    }

    #[test]
    fn each_moment_is_one_message_and_other_messages_are_not_ours() {
        for moment in [
            Moment::QuietInFront,
            Moment::QuietBehind,
            Moment::WentBehind,
        ] {
            assert_eq!(
                Moment::of_message(moment.message().as_bytes()),
                Some(moment)
            );
        }
        assert_eq!(Moment::of_message(b"pi-desktop.release-memory"), None);
        assert_eq!(Moment::of_message(b""), None);
    }

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
