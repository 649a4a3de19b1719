//! A temporary home folder with a generated Downloads folder: PDFs with text, a scanned PDF, Markdown and text
//! files, nested folders, a symlink pointing outside, and (on Unix) a file whose name is not UTF-8.

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use desktop_host::desktop_paths::{DesktopEnv, DesktopPaths};

use super::pdf::pdf_with_pages;

/// The temporary home and the paths resolved from it.
pub(crate) struct TestHome {
    /// Keeps the folder alive.
    pub(crate) temp: tempfile::TempDir,
    /// Paths resolved from the home with the XDG rules.
    pub(crate) paths: DesktopPaths,
}

impl TestHome {
    /// The home folder.
    pub(crate) fn home(&self) -> &Path {
        self.temp.path()
    }

    /// The Downloads folder.
    pub(crate) fn downloads(&self) -> PathBuf {
        self.home().join("Downloads")
    }
}

/// Writes `bytes` to `root/relative` with the modification time `secs` after the epoch.
pub(crate) fn write_file(root: &Path, relative: &str, bytes: &[u8], secs: u64) {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, bytes).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

/// Builds the home: Downloads and Documents named in `user-dirs.dirs`, the rest unset.
pub(crate) fn test_home() -> TestHome {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path();
    std::fs::create_dir_all(home.join(".config")).unwrap();
    std::fs::write(
        home.join(".config/user-dirs.dirs"),
        "XDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\nXDG_DOCUMENTS_DIR=\"$HOME/Documents\"\n",
    )
    .unwrap();
    let downloads = home.join("Downloads");
    let day = 86_400;
    write_file(
        &downloads,
        "report.pdf",
        &pdf_with_pages(&[
            &["Quarterly report", "Revenue grew by 12 percent."],
            &["Page two: outlook (stable)."],
        ]),
        1_700_000_000 + 5 * day,
    );
    write_file(
        &downloads,
        "发票 2024.PDF",
        &pdf_with_pages(&[&["Invoice 2024-117", "Total: 42.00 EUR"]]),
        1_700_000_000 + 4 * day,
    );
    write_file(
        &downloads,
        "setup.exe",
        b"MZ\x90\x00\x03\x00\x00\x00\x04\x00",
        1_700_000_000 + 3 * day,
    );
    write_file(
        &downloads,
        "notes.md",
        "# 笔记\n\n下载目录里的笔记。\n".as_bytes(),
        1_700_000_000 + 2 * day,
    );
    write_file(&downloads, "todo.txt", b"buy milk\n", 1_700_000_000 + day);
    write_file(
        &downloads,
        "photo.JPG",
        b"\xff\xd8\xff\xe0 jpeg bytes",
        1_700_000_000,
    );
    write_file(
        &downloads,
        "archive/2023/old-statement.pdf",
        &pdf_with_pages(&[&["Statement for 2023"]]),
        1_600_000_000,
    );
    write_file(
        &downloads,
        "archive/scanned.pdf",
        &pdf_with_pages(&[&[]]),
        1_600_000_000 - day,
    );
    write_file(
        home,
        "outside/secret.pdf",
        &pdf_with_pages(&[&["TOP SECRET"]]),
        1_650_000_000,
    );
    write_file(
        &home.join("Documents"),
        "plan.md",
        b"# Plan\n\nShip it.\n",
        1_650_000_000,
    );
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::os::unix::fs::symlink(
            home.join("outside/secret.pdf"),
            downloads.join("shortcut.pdf"),
        )
        .unwrap();
        std::os::unix::fs::symlink(home.join("outside"), downloads.join("outside-folder")).unwrap();
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9-menu.txt");
        std::fs::write(downloads.join(name), b"espresso 2.00\n").unwrap();
        let file = std::fs::File::options()
            .write(true)
            .open(downloads.join(name))
            .unwrap();
        file.set_modified(UNIX_EPOCH + Duration::from_secs(1_700_000_000 - 2 * day))
            .unwrap();
    }
    let paths = DesktopPaths::from_env(&DesktopEnv {
        home: home.to_path_buf(),
        vars: Default::default(),
    });
    TestHome { temp, paths }
}
