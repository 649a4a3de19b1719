//! Reading `mcp.json` as JSON and writing it back whole: refused when it is not JSON or not a configuration, written
//! to a new file beside it that is renamed over it, one edit of this process at a time.

use std::io::Write as _;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};

use super::McpFileError;

/// Serialises the edits of this process (read, change, write).
static EDITS: Mutex<()> = Mutex::new(());

/// Reads `path`, lets `change` edit its `mcpServers`, and writes it back (nothing is written when `change` fails).
pub(super) fn edit<T>(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<T, McpFileError>,
) -> Result<T, McpFileError> {
    let _only_edit = EDITS.lock().unwrap_or_else(PoisonError::into_inner);
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut document = read_document(&target)?;
    let result = change(servers_of(&mut document, &target)?)?;
    write_document(&target, &document)?;
    Ok(result)
}

/// The file's JSON; `{}` when it is missing or holds nothing but white space.
pub(super) fn read_document(path: &Path) -> Result<Value, McpFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => {
            return Err(McpFileError::Read {
                path: path.to_path_buf(),
                reason: error.to_string(),
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(&text).map_err(|error| McpFileError::NotJson {
        path: path.to_path_buf(),
        reason: error.to_string(),
    })
}

/// The `mcpServers` object of `document` (added when the object has none).
pub(super) fn servers_of<'a>(
    document: &'a mut Value,
    path: &Path,
) -> Result<&'a mut Map<String, Value>, McpFileError> {
    let not_a_config = || McpFileError::NotAConfig {
        path: path.to_path_buf(),
    };
    document
        .as_object_mut()
        .ok_or_else(not_a_config)?
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(not_a_config)
}

/// Writes `document` to a new file beside `path` (same permissions), flushed, then renamed over it.
fn write_document(path: &Path, document: &Value) -> Result<(), McpFileError> {
    let failed = |error: std::io::Error| McpFileError::Write {
        path: path.to_path_buf(),
        reason: error.to_string(),
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(failed)?;
    }
    let mut text = serde_json::to_string_pretty(document).map_err(|error| McpFileError::Write {
        path: path.to_path_buf(),
        reason: error.to_string(),
    })?;
    text.push('\n');
    let fresh = path.with_extension("json.saving");
    let written = std::fs::File::create(&fresh).and_then(|mut file| {
        file.write_all(text.as_bytes())?;
        if let Ok(metadata) = std::fs::metadata(path) {
            file.set_permissions(metadata.permissions())?;
        }
        file.sync_all()
    });
    if let Err(error) = written.and_then(|()| std::fs::rename(&fresh, path)) {
        let _ = std::fs::remove_file(&fresh);
        return Err(failed(error));
    }
    Ok(())
}
