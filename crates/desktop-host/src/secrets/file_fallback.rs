//! The fallback key file, for machines without a keychain service: JSON in the config folder, readable and
//! writable by the owner only (0600 on Unix), replaced atomically on every change. Only created after the user
//! confirmed it (see [`super::FallbackOffer`]).

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::backend::{KeyStorage, SecretBackend};
use super::error::SecretsError;
use super::provider_id::check_provider_id;
use crate::settings::ApiKey;

/// The file's format version.
const FORMAT_VERSION: u32 = 1;

/// Keys in a private file.
pub struct FileBackend {
    path: PathBuf,
    /// Serialises read-modify-write cycles within this process.
    write_lock: Mutex<()>,
}

impl fmt::Debug for FileBackend {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("FileBackend")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct KeyFile {
    version: u32,
    keys: BTreeMap<String, String>,
}

impl FileBackend {
    /// Uses the key file at `path`, creating it (empty, owner-only) and its folder when missing; tightens the
    /// permissions of an existing file that others could read.
    pub fn create_or_open(path: &Path) -> Result<Self, SecretsError> {
        let backend = Self {
            path: path.to_path_buf(),
            write_lock: Mutex::new(()),
        };
        if path.exists() {
            restrict_permissions(path).map_err(|source| backend.write_error(source))?;
            backend.load()?;
        } else {
            backend.save(&KeyFile {
                version: FORMAT_VERSION,
                keys: BTreeMap::new(),
            })?;
        }
        Ok(backend)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> Result<KeyFile, SecretsError> {
        let text = fs::read_to_string(&self.path).map_err(|source| SecretsError::ReadFile {
            path: self.path.clone(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| SecretsError::ParseFile {
            path: self.path.clone(),
            source,
        })
    }

    /// Writes a sibling temporary file created owner-only, syncs it and renames it over the old file, so a crash
    /// leaves either the old or the new keys, and the keys are never readable by others, not even for a moment.
    fn save(&self, key_file: &KeyFile) -> Result<(), SecretsError> {
        if let Some(folder) = self
            .path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
        {
            fs::create_dir_all(folder).map_err(|source| self.write_error(source))?;
        }
        let text = serde_json::to_string_pretty(key_file)
            .map_err(io::Error::other)
            .map_err(|source| self.write_error(source))?;
        let mut temporary_name = self.path.as_os_str().to_owned();
        temporary_name.push(".tmp");
        let temporary_path = PathBuf::from(temporary_name);
        let written = write_private(&temporary_path, text.as_bytes())
            .and_then(|()| fs::rename(&temporary_path, &self.path));
        if let Err(source) = written {
            // The temporary file may hold keys; it must not stay behind.
            let _ = fs::remove_file(&temporary_path);
            return Err(self.write_error(source));
        }
        Ok(())
    }

    fn write_error(&self, source: io::Error) -> SecretsError {
        SecretsError::WriteFile {
            path: self.path.clone(),
            source,
        }
    }

    fn modify<T>(
        &self,
        change: impl FnOnce(&mut BTreeMap<String, String>) -> T,
    ) -> Result<T, SecretsError> {
        let _guard = self
            .write_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut key_file = self.load()?;
        let outcome = change(&mut key_file.keys);
        self.save(&key_file)?;
        Ok(outcome)
    }
}

impl SecretBackend for FileBackend {
    fn storage(&self) -> KeyStorage {
        KeyStorage::File {
            path: self.path.clone(),
        }
    }

    fn read(&self, provider: &str) -> Result<Option<ApiKey>, SecretsError> {
        check_provider_id(provider)?;
        Ok(self.load()?.keys.get(provider).map(ApiKey::new))
    }

    fn write(&self, provider: &str, key: &ApiKey) -> Result<(), SecretsError> {
        check_provider_id(provider)?;
        self.modify(|keys| {
            keys.insert(provider.to_owned(), key.expose().to_owned());
        })
    }

    fn remove(&self, provider: &str) -> Result<bool, SecretsError> {
        check_provider_id(provider)?;
        self.modify(|keys| keys.remove(provider).is_some())
    }
}

#[cfg(unix)]
fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = fs::remove_file(path);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    // Windows and macOS always have a keychain; the fallback exists for them only for completeness. The file
    // lives in the user's own profile folder, whose ACL already excludes other users.
    let _ = fs::remove_file(path);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

#[cfg(unix)]
fn restrict_permissions(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(path)?.permissions().mode();
    if mode & 0o077 != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn restrict_permissions(_path: &Path) -> io::Result<()> {
    Ok(())
}
