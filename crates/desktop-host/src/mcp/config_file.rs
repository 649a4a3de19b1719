//! The one place that edits `mcp.json`: a server added, edited or removed in the settings, its enabled state, one
//! tool's enabled state (`disabledTools`), and the servers an import brings in ([`add_imported`]).
//!
//! Contracts:
//! - A file that is not valid JSON, or not an object whose `mcpServers` is an object, is refused
//!   ([`McpFileError::NotJson`], [`McpFileError::NotAConfig`]) and never written: the user's text stays as it is. A
//!   missing or empty file is an empty configuration, and the file (and its folder) is created.
//! - Only the entry concerned changes: the other entries, keys other apps put in the file or in the entry (Jan's
//!   `active`, Cursor's `type`, the grants) and the order of everything stay exactly as they were.
//! - The new text goes to a file beside it, is flushed, and is renamed over it: a crash leaves the old file or the
//!   new one, never half of one. A symlinked `mcp.json` is written through to its target.
//! - A value of `env` or `headers` entered in the settings goes to the keychain under [`keychain_name`] before the
//!   file is written, and the file gets `{"keychain": NAME}`, never the value. A value not entered again keeps
//!   what the file has. The values the app keeps for a server (under the names [`keychain_name`] gives it) are
//!   deleted once the file no longer refers to them: when the server is removed, when a variable or header is
//!   dropped, when the server is renamed (a renamed server keeps none of the old name's secrets; such a value must
//!   be entered again). A keychain name the user wrote by hand, or one another entry still refers to, is never
//!   deleted: it may be shared.
//! - Edits made through this module are serialised within the process, so two of them never interleave their
//!   read and write.

mod document;
mod server_input;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

pub use server_input::{McpServerInput, McpTransportInput, McpValueInput};

use crate::mcp::config::{ConfigValue, McpServerConfig, McpTransport, keychain_name};
use crate::settings::SettingsService;
use document::{edit, read_document, servers_of};
use server_input::{CheckedInput, CheckedTransport, check_input};

/// Where the values entered in the settings are kept.
pub trait McpSecretStore: Send + Sync {
    /// Keeps `value` under `name`, replacing an earlier one. The error is safe to show.
    fn store_secret(&self, name: &str, value: &str) -> Result<(), String>;
    /// Deletes the value under `name` (nothing kept is not an error). The error is safe to show.
    fn delete_secret(&self, name: &str) -> Result<(), String>;
}

impl McpSecretStore for SettingsService {
    fn store_secret(&self, name: &str, value: &str) -> Result<(), String> {
        SettingsService::store_secret(self, name, value).map_err(|error| error.message)
    }

    fn delete_secret(&self, name: &str) -> Result<(), String> {
        SettingsService::delete_secret(self, name).map_err(|error| error.message)
    }
}

/// Why `mcp.json` was not changed. Messages name the file, the server and the field, never a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpFileError {
    /// The file is not JSON; it is left as it is.
    #[error("{} is not valid JSON ({reason}); fix the file or move it away: Pi Desktop did not change it", path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Where the JSON breaks.
        reason: String,
    },
    /// JSON, but not an object with an `mcpServers` object; it is left as it is.
    #[error("{} is not an MCP configuration (it needs {{\"mcpServers\": {{\"NAME\": {{...}}}}}}): Pi Desktop did not change it", path.display())]
    NotAConfig {
        /// The file.
        path: PathBuf,
    },
    /// A field of the server is wrong.
    #[error("MCP server \"{server}\", field \"{field}\": {message}")]
    Invalid {
        /// The server's name.
        server: String,
        /// The field at fault (`name`, `command`, `url`, `cwd`, `env.NAME`, `headers.NAME`, `timeoutSeconds`, …).
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// No server of that name in the file.
    #[error("there is no MCP server \"{0}\" in mcp.json")]
    UnknownServer(String),
    /// Another server has the name already.
    #[error("an MCP server named \"{0}\" exists already; give this one another name")]
    NameTaken(String),
    /// The file cannot be read.
    #[error("{} cannot be read: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file cannot be written; the old one is still in place.
    #[error("{} cannot be written ({reason}); nothing was changed", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The keychain refused a value; the file was not changed.
    #[error(
        "the keychain did not keep {field} of MCP server \"{server}\" ({reason}); nothing was changed"
    )]
    Keychain {
        /// The server's name.
        server: String,
        /// The field (`env.NAME` or `headers.NAME`).
        field: String,
        /// Why, safe to show.
        reason: String,
    },
}

/// Adds `input` as a new server, or replaces the one it was opened on (`previous_name`), then deletes the
/// keychain values the new entry no longer refers to.
pub fn save_server(
    path: &Path,
    input: &McpServerInput,
    secrets: &dyn McpSecretStore,
) -> Result<(), McpFileError> {
    let name = input.name.trim();
    let checked = check_input(name, input)?;
    let stale = edit(path, |servers| {
        let previous = input.previous_name.as_deref();
        let old_entry = match previous {
            Some(previous) => Some(
                servers
                    .get(previous)
                    .ok_or_else(|| McpFileError::UnknownServer(previous.to_owned()))?
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
            None => None,
        };
        if previous != Some(name) && servers.contains_key(name) {
            return Err(McpFileError::NameTaken(name.to_owned()));
        }
        let old_name = previous.unwrap_or(name);
        let old_refs = old_entry
            .as_ref()
            .map(|entry| app_references(old_name, entry))
            .unwrap_or_default();
        let mut entry = old_entry.clone().unwrap_or_default();
        let values = new_values(name, old_name, old_entry.as_ref(), &checked, secrets)?;
        write_transport(&mut entry, &checked.transport, values);
        set_flag(&mut entry, "disabled", input.disabled);
        set_seconds(&mut entry, "timeoutSeconds", input.timeout_seconds);
        set_seconds(
            &mut entry,
            "totalTimeoutSeconds",
            input.total_timeout_seconds,
        );
        let new_refs = references(&entry);
        match previous {
            Some(previous) => replace_entry(servers, previous, name, Value::Object(entry)),
            None => {
                servers.insert(name.to_owned(), Value::Object(entry));
            }
        }
        Ok(unreferenced(
            servers,
            old_refs.difference(&new_refs).cloned().collect(),
        ))
    })?;
    delete_all(&stale, secrets);
    Ok(())
}

/// Removes the server `name` and deletes the keychain values the app kept for it.
pub fn remove_server(
    path: &Path,
    name: &str,
    secrets: &dyn McpSecretStore,
) -> Result<(), McpFileError> {
    let stale = edit(path, |servers| {
        let entry = servers
            .get(name)
            .ok_or_else(|| McpFileError::UnknownServer(name.to_owned()))?;
        let refs = entry
            .as_object()
            .map(|entry| app_references(name, entry))
            .unwrap_or_default();
        servers.retain(|key, _| key != name);
        Ok(unreferenced(servers, refs))
    })?;
    delete_all(&stale, secrets);
    Ok(())
}

/// Turns the server `name` on (the `disabled` key goes) or off (`"disabled": true`).
pub fn set_disabled(path: &Path, name: &str, disabled: bool) -> Result<(), McpFileError> {
    edit(path, |servers| {
        let entry = entry_mut(servers, name)?;
        set_flag(entry, "disabled", disabled);
        Ok(())
    })
}

/// Changes the entry of `server` with `change` (the app's "always" grants use it); the rest of the file stays.
pub fn edit_entry(
    path: &Path,
    server: &str,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<(), McpFileError> {
    edit(path, |servers| {
        change(entry_mut(servers, server)?);
        Ok(())
    })
}

/// Gives the agent the tool `tool` of `server` again (out of `disabledTools`, the key gone once empty), or takes it
/// away (into `disabledTools`, once).
pub fn set_tool_enabled(
    path: &Path,
    server: &str,
    tool: &str,
    enabled: bool,
) -> Result<(), McpFileError> {
    edit(path, |servers| {
        let entry = entry_mut(servers, server)?;
        let mut disabled: Vec<Value> = entry
            .get("disabledTools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        disabled.retain(|listed| listed.as_str() != Some(tool));
        if !enabled {
            disabled.push(Value::from(tool));
        }
        if disabled.is_empty() {
            entry.retain(|key, _| key != "disabledTools");
        } else {
            entry.insert("disabledTools".to_owned(), Value::Array(disabled));
        }
        Ok(())
    })
}

/// Adds `servers` (another app's entries) disabled, their plain values moved to the keychain. A name the file has
/// already is refused ([`McpFileError::NameTaken`]) and nothing is added.
pub fn add_imported(
    path: &Path,
    imported: &[McpServerConfig],
    secrets: &dyn McpSecretStore,
) -> Result<(), McpFileError> {
    edit(path, |servers| {
        if let Some(taken) = imported
            .iter()
            .find(|server| servers.contains_key(&server.name))
        {
            return Err(McpFileError::NameTaken(taken.name.clone()));
        }
        for server in imported {
            let (section, values) = match &server.transport {
                McpTransport::Stdio { env, .. } => ("env", env),
                McpTransport::Http { headers, .. } => ("headers", headers),
            };
            let mut kept = Map::new();
            for (field, value) in values {
                let reference = match value {
                    ConfigValue::Plain(text) => store(&server.name, section, field, text, secrets)?,
                    ConfigValue::Keychain { .. } => value.to_json(),
                };
                kept.insert(field.clone(), reference);
            }
            let transport = match &server.transport {
                McpTransport::Stdio {
                    command, args, cwd, ..
                } => CheckedTransport::Stdio {
                    command: command.clone(),
                    args: args.clone(),
                    cwd: cwd.as_ref().map(|cwd| cwd.display().to_string()),
                },
                McpTransport::Http { url, .. } => CheckedTransport::Http { url: url.clone() },
            };
            let mut entry = Map::new();
            write_transport(&mut entry, &transport, kept);
            set_flag(&mut entry, "disabled", true);
            servers.insert(server.name.clone(), Value::Object(entry));
        }
        Ok(())
    })
}

/// The names of the servers in `path` (valid entries or not); none when there is no file.
pub fn server_names(path: &Path) -> Result<Vec<String>, McpFileError> {
    let mut document = read_document(path)?;
    Ok(servers_of(&mut document, path)?.keys().cloned().collect())
}

/// The `env` or `headers` object of the new entry: entered values stored (references in their place), others
/// kept from the old entry.
fn new_values(
    name: &str,
    old_name: &str,
    old_entry: Option<&Map<String, Value>>,
    checked: &CheckedInput<'_>,
    secrets: &dyn McpSecretStore,
) -> Result<Map<String, Value>, McpFileError> {
    let section = checked.section;
    let old_values = old_entry
        .and_then(|entry| entry.get(section))
        .and_then(Value::as_object);
    let mut values = Map::new();
    for value in checked.values {
        let field = format!("{section}.{}", value.name);
        let kept = match &value.value {
            Some(text) => store(name, section, &value.name, text, secrets)?,
            None => {
                let Some(old) = old_values.and_then(|values| values.get(&value.name)) else {
                    return Err(McpFileError::Invalid {
                        server: name.to_owned(),
                        field,
                        message: "has no value yet; enter one".to_owned(),
                    });
                };
                if old_name != name
                    && keychain_ref(old) == Some(&keychain_name(old_name, &value.name))
                {
                    return Err(McpFileError::Invalid {
                        server: name.to_owned(),
                        field,
                        message: format!(
                            "was kept in the keychain for the name \"{old_name}\"; a renamed server keeps none of those values, so enter it again"
                        ),
                    });
                }
                old.clone()
            }
        };
        values.insert(value.name.clone(), kept);
    }
    Ok(values)
}

/// Stores `text` for `field` of `section` of `server`; the reference the file gets.
fn store(
    server: &str,
    section: &str,
    field: &str,
    text: &str,
    secrets: &dyn McpSecretStore,
) -> Result<Value, McpFileError> {
    let keychain = keychain_name(server, field);
    secrets
        .store_secret(&keychain, text)
        .map_err(|reason| McpFileError::Keychain {
            server: server.to_owned(),
            field: format!("{section}.{field}"),
            reason,
        })?;
    Ok(json!({ "keychain": keychain }))
}

/// Puts `transport` and its `values` in `entry`, dropping the keys of the other kind of transport.
fn write_transport(
    entry: &mut Map<String, Value>,
    transport: &CheckedTransport,
    values: Map<String, Value>,
) {
    let gone: &[&str] = match transport {
        CheckedTransport::Stdio { .. } => &["url", "headers"],
        CheckedTransport::Http { .. } => &["command", "args", "env", "cwd"],
    };
    entry.retain(|key, _| !gone.contains(&key.as_str()));
    let mut set = |key: &str, value: Option<Value>| match value {
        Some(value) => {
            entry.insert(key.to_owned(), value);
        }
        None => entry.retain(|existing, _| existing != key),
    };
    let values = (!values.is_empty()).then_some(Value::Object(values));
    match transport {
        CheckedTransport::Stdio { command, args, cwd } => {
            set("command", Some(Value::from(command.as_str())));
            set("args", (!args.is_empty()).then(|| json!(args)));
            set("env", values);
            set("cwd", cwd.as_deref().map(Value::from));
        }
        CheckedTransport::Http { url } => {
            set("url", Some(Value::from(url.as_str())));
            set("headers", values);
        }
    }
}

/// `"key": true`, or no key for false.
fn set_flag(entry: &mut Map<String, Value>, key: &str, on: bool) {
    if on {
        entry.insert(key.to_owned(), Value::Bool(true));
    } else {
        entry.retain(|existing, _| existing != key);
    }
}

/// `"key": seconds`, or no key for the default.
fn set_seconds(entry: &mut Map<String, Value>, key: &str, seconds: Option<u32>) {
    match seconds {
        Some(seconds) => {
            entry.insert(key.to_owned(), Value::from(seconds));
        }
        None => entry.retain(|existing, _| existing != key),
    }
}

/// Puts `entry` where `previous` was, under `name`.
fn replace_entry(servers: &mut Map<String, Value>, previous: &str, name: &str, entry: Value) {
    let mut entry = Some(entry);
    *servers = std::mem::take(servers)
        .into_iter()
        .filter_map(|(key, value)| {
            if key == previous {
                entry.take().map(|entry| (name.to_owned(), entry))
            } else {
                Some((key, value))
            }
        })
        .collect();
}

fn entry_mut<'a>(
    servers: &'a mut Map<String, Value>,
    name: &str,
) -> Result<&'a mut Map<String, Value>, McpFileError> {
    servers
        .get_mut(name)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| McpFileError::UnknownServer(name.to_owned()))
}

/// The keychain name of `{"keychain": NAME}`.
fn keychain_ref(value: &Value) -> Option<&String> {
    match value.get("keychain") {
        Some(Value::String(name)) => Some(name),
        Some(_) | None => None,
    }
}

/// Every keychain name `entry`'s `env` and `headers` refer to.
fn references(entry: &Map<String, Value>) -> BTreeSet<String> {
    ["env", "headers"]
        .iter()
        .filter_map(|section| entry.get(*section).and_then(Value::as_object))
        .flat_map(|values| values.values())
        .filter_map(keychain_ref)
        .cloned()
        .collect()
}

/// The keychain names `entry` refers to that the app gave them as the values of `server`.
fn app_references(server: &str, entry: &Map<String, Value>) -> BTreeSet<String> {
    ["env", "headers"]
        .iter()
        .filter_map(|section| entry.get(*section).and_then(Value::as_object))
        .flat_map(|values| values.iter())
        .filter_map(|(field, value)| {
            keychain_ref(value).filter(|name| **name == keychain_name(server, field))
        })
        .cloned()
        .collect()
}

/// The names of `candidates` no entry of `servers` refers to any more.
fn unreferenced(servers: &Map<String, Value>, candidates: BTreeSet<String>) -> Vec<String> {
    let still: BTreeSet<String> = servers
        .values()
        .filter_map(Value::as_object)
        .flat_map(references)
        .collect();
    candidates.difference(&still).cloned().collect()
}

/// Deletes the keychain values `names`; a failure leaves an unused value behind and is logged, never shown.
fn delete_all(names: &[String], secrets: &dyn McpSecretStore) {
    for name in names {
        if let Err(reason) = secrets.delete_secret(name) {
            tracing::warn!(target: "desktop_host::mcp", keychain = %name, %reason, "an unused MCP value stays in the keychain");
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
