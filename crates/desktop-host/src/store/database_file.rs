//! Opening the database file: connection settings, the corruption check, moving a corrupt file aside, migrating.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

use super::error::{StoreError, is_corruption};
use super::migrations::{MigrationOutcome, SCHEMA_VERSION, migrate};

/// Something the user should hear about that happened while opening the store.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum StoreNotice {
    /// The database file was damaged; it was renamed to `moved_to` (kept, never deleted) and a fresh one started.
    CorruptDatabaseMovedAside { moved_to: PathBuf },
    /// The schema was upgraded; the file as it was before is at `backup`.
    Migrated {
        from: i64,
        to: i64,
        backup: Option<PathBuf>,
    },
}

/// Up to this size the whole file is checked on open (`PRAGMA quick_check` of every stored table, which reads
/// every page: some 20 ms per MiB from a cold disk). A bigger file, a year of history, only has its header and
/// schema read, so the window is not kept waiting seconds; damage further in is reported by the query that meets
/// it (a typed corruption error the window shows) instead of at start.
const FULL_CHECK_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The companions SQLite keeps beside a database in WAL mode.
const COMPANION_SUFFIXES: [&str; 2] = ["-wal", "-shm"];

/// Opens (creating when missing) the database at `path`, ready at the current schema.
///
/// A file SQLite calls corrupt or not a database is renamed to `<file>.corrupt-<stamp>` (its `-wal` and `-shm`
/// companions follow, so the pair still opens together), reported in the notices, and replaced by a fresh
/// database. Every other failure (read-only folder, full disk, a newer schema) is returned and the file is left
/// as it was.
pub(crate) fn open_database_file(
    path: &Path,
    stamp: &str,
) -> Result<(Connection, Vec<StoreNotice>), StoreError> {
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        fs::create_dir_all(folder).map_err(|source| StoreError::CreateFolder {
            path: folder.to_path_buf(),
            source,
        })?;
    }
    let mut notices = Vec::new();
    let connection = match open_checked(path, stamp, &mut notices) {
        Ok(connection) => connection,
        Err(OpenFailure::Corrupt(connection)) => {
            let moved_to = move_aside(path, stamp, connection)?;
            notices.push(StoreNotice::CorruptDatabaseMovedAside { moved_to });
            open_checked(path, stamp, &mut notices).map_err(|failure| match failure {
                OpenFailure::Corrupt(_) => StoreError::Open {
                    path: path.to_path_buf(),
                    source: rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                        Some("a fresh database was corrupt right after creation".to_owned()),
                    ),
                },
                OpenFailure::Error(error) => error,
            })?
        }
        Err(OpenFailure::Error(error)) => return Err(error),
    };
    Ok((connection, notices))
}

/// Applies the connection settings every store connection uses.
pub(crate) fn configure(connection: &Connection) -> rusqlite::Result<()> {
    connection.busy_timeout(Duration::from_secs(5))?;
    // journal_mode answers with a row, so it is read rather than executed.
    let _mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.pragma_update(None, "foreign_keys", true)?;
    Ok(())
}

enum OpenFailure {
    /// The file is damaged; the connection (when one was opened) is handed back still open, because closing it
    /// lets SQLite delete the `-wal` file that may hold the newest data.
    Corrupt(Option<Connection>),
    Error(StoreError),
}

fn open_checked(
    path: &Path,
    stamp: &str,
    notices: &mut Vec<StoreNotice>,
) -> Result<Connection, OpenFailure> {
    let mut connection = Connection::open(path).map_err(|source| classify(path, None, source))?;
    // Read-only checks come first, so a file this build must not change (a newer schema) stays byte for byte
    // as it was: switching to WAL rewrites the header.
    let found = match connection.query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0)) {
        Ok(found) => found,
        Err(source) => return Err(classify(path, Some(connection), source)),
    };
    let full_check = fs::metadata(path).map_or(true, |file| file.len() <= FULL_CHECK_MAX_BYTES);
    let verdict = if full_check {
        check_stored_tables(&connection)
    } else {
        connection
            .query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|_| "ok".to_owned())
    };
    match verdict {
        Ok(verdict) if verdict == "ok" => {}
        Ok(_) => return Err(OpenFailure::Corrupt(Some(connection))),
        Err(source) => return Err(classify(path, Some(connection), source)),
    }
    if found > SCHEMA_VERSION {
        return Err(OpenFailure::Error(StoreError::SchemaTooNew {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        }));
    }
    if let Err(source) = configure(&connection) {
        return Err(classify(path, Some(connection), source));
    }
    match migrate(&mut connection, Some(path), stamp) {
        Ok(MigrationOutcome::Upgraded { from, to, backup }) => {
            notices.push(StoreNotice::Migrated { from, to, backup });
        }
        Ok(MigrationOutcome::UpToDate | MigrationOutcome::Created) => {}
        Err(StoreError::Migration { source, .. } | StoreError::Sqlite { source, .. })
            if is_corruption(&source) =>
        {
            return Err(OpenFailure::Corrupt(Some(connection)));
        }
        Err(error) => return Err(OpenFailure::Error(error)),
    }
    Ok(connection)
}

fn classify(path: &Path, connection: Option<Connection>, source: rusqlite::Error) -> OpenFailure {
    if is_corruption(&source) {
        OpenFailure::Corrupt(connection)
    } else {
        OpenFailure::Error(StoreError::Open {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Renames the database and its WAL companions to `<file>.corrupt-<stamp>[-n]`; returns the new database path.
///
/// The companions are copied while `connection` is still open (closing it may delete them), then the connection
/// is closed, the database renamed, and any companion still present renamed over its copy.
fn move_aside(
    path: &Path,
    stamp: &str,
    connection: Option<Connection>,
) -> Result<PathBuf, StoreError> {
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = format!("{file_name}.corrupt-{stamp}");
    let mut moved_to = path.with_file_name(&base);
    let mut n_tries = 1;
    while moved_to.exists() {
        n_tries += 1;
        moved_to = path.with_file_name(format!("{base}-{n_tries}"));
    }
    let move_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| StoreError::MoveAside { path, source }
    };
    for suffix in COMPANION_SUFFIXES {
        let companion = companion_path(path, suffix);
        if companion.exists() {
            fs::copy(&companion, companion_path(&moved_to, suffix))
                .map_err(move_error(&companion))?;
        }
    }
    drop(connection);
    fs::rename(path, &moved_to).map_err(move_error(path))?;
    for suffix in COMPANION_SUFFIXES {
        let companion = companion_path(path, suffix);
        if companion.exists() {
            let moved_companion = companion_path(&moved_to, suffix);
            // Windows does not rename over an existing file; the copy is the same data or older.
            let _ = fs::remove_file(&moved_companion);
            fs::rename(&companion, &moved_companion).map_err(move_error(&companion))?;
        }
    }
    Ok(moved_to)
}

fn companion_path(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// `PRAGMA quick_check` of each table that has storage, one at a time: "ok", or the first problem found. Run on
/// the whole file, SQLite 3.44 and later also run the full-text index's own integrity check, which tokenises
/// every message again (some 0.4 s at 50 MiB, ten times the rest); the index's tables are still checked like any
/// other, and a damaged index is reported by the search that meets it.
fn check_stored_tables(connection: &Connection) -> rusqlite::Result<String> {
    let tables: Vec<String> = {
        let mut statement = connection.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
        )?;
        statement
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    for table in tables {
        let quoted = table.replace('"', "\"\"");
        let verdict: String =
            connection.query_row(&format!("PRAGMA quick_check(\"{quoted}\")"), [], |row| {
                row.get(0)
            })?;
        if verdict != "ok" {
            return Ok(verdict);
        }
    }
    Ok("ok".to_owned())
}
