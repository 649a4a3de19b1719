//! Servers the user already configured in Claude Desktop (`claude_desktop_config.json` in the platform's config
//! folder: `~/.config/Claude/` on Linux, `~/Library/Application Support/Claude/` on macOS, `%APPDATA%\Claude\` on
//! Windows) and Cursor (`~/.cursor/mcp.json`): listed as candidates with the exact command line or URL each would
//! run, and the chosen ones copied into the app's `mcp.json`.
//!
//! Contracts:
//! - An imported entry is code that runs with the user's rights: it arrives disabled and starts only once the user
//!   enabled it, after the settings showed its command line.
//! - Only how to reach the server is copied (`command`, `args`, `env`, `cwd`, or `url`, `headers`); the app's own
//!   keys in the other file (grants, disabled tools, timeouts) are not: a grant given elsewhere is not one given
//!   here. Plain `env` and `headers` values go to the keychain ([`config_file::add_imported`]).
//! - The import reads the other app's file again and takes the entries from there, never from the caller.
//! - A name `mcp.json` has already is refused, as is choosing two servers of one name: nothing is imported then,
//!   and the message names the server (rename the one in `mcp.json`, or import the other alone).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::mcp::config::{McpServerConfig, parse_mcp_config};
use crate::mcp::config_file::{self, McpFileError, McpSecretStore};

/// Another app that keeps MCP servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum McpImportSource {
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor's `~/.cursor/mcp.json`.
    Cursor,
}

impl McpImportSource {
    /// Every source, in the order the settings list them.
    pub const ALL: [McpImportSource; 2] = [McpImportSource::ClaudeDesktop, McpImportSource::Cursor];
}

impl fmt::Display for McpImportSource {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            McpImportSource::ClaudeDesktop => "Claude Desktop",
            McpImportSource::Cursor => "Cursor",
        })
    }
}

/// The folders the other apps' files are looked up in: the platform's in the app, temporary ones in tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportFolders {
    /// The home folder (Cursor's `.cursor/` is in it).
    pub home: Option<PathBuf>,
    /// The platform's config folder (Claude Desktop's `Claude/` is in it).
    pub config: Option<PathBuf>,
}

impl ImportFolders {
    /// This user's home and config folders.
    pub fn from_platform() -> ImportFolders {
        ImportFolders {
            home: dirs::home_dir(),
            config: dirs::config_dir(),
        }
    }

    /// Where `source` keeps its servers, when the platform names the folder.
    pub fn file(&self, source: McpImportSource) -> Option<PathBuf> {
        match source {
            McpImportSource::ClaudeDesktop => self
                .config
                .as_ref()
                .map(|config| config.join("Claude").join("claude_desktop_config.json")),
            McpImportSource::Cursor => self
                .home
                .as_ref()
                .map(|home| home.join(".cursor").join("mcp.json")),
        }
    }
}

/// A file that was looked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpImportFile {
    /// Whose file.
    pub source: McpImportSource,
    /// Where it is (or would be).
    pub path: String,
    /// It exists.
    pub found: bool,
    /// Why none of its servers can be read (not JSON, not a configuration), safe to show.
    #[ts(optional)]
    pub problem: Option<String>,
}

/// A server another app has, as the settings offer it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpImportCandidate {
    /// Whose file it is in.
    pub source: McpImportSource,
    /// Its name there (and here once imported).
    pub name: String,
    /// The exact command line, or the URL, it would run; absent when its entry cannot be read.
    #[ts(optional)]
    pub launch: Option<String>,
    /// What is wrong with its entry (it cannot be imported then), safe to show.
    pub problems: Vec<String>,
    /// `mcp.json` has a server of this name already; importing it is refused.
    pub name_taken: bool,
}

/// What `mcp_import_candidates` answers: the files looked at and the servers in them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpImportCandidates {
    /// Every file looked at, found or not.
    pub files: Vec<McpImportFile>,
    /// Their servers, file by file in the file's order.
    pub candidates: Vec<McpImportCandidate>,
}

/// A server the user chose to import.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpImportChoice {
    /// Whose file it is in.
    pub source: McpImportSource,
    /// Its name there.
    pub name: String,
}

/// Why nothing was imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpImportError {
    /// The other app's file cannot be read as a configuration.
    #[error("{} cannot be imported from: {reason}", path.display())]
    Source {
        /// The file.
        path: PathBuf,
        /// Why, safe to show.
        reason: String,
    },
    /// This system names no folder where the source keeps its servers.
    #[error("this system names no folder where {0} keeps its MCP servers")]
    NoFolder(McpImportSource),
    /// The chosen server is not (or no longer) a readable entry of that file.
    #[error("the MCP server \"{name}\" is not in {} or its entry cannot be read; list the servers again", path.display())]
    NotThere {
        /// The server.
        name: String,
        /// The file looked in.
        path: PathBuf,
    },
    /// Two chosen servers have one name.
    #[error("two chosen MCP servers are named \"{0}\"; import one of them")]
    SameName(String),
    /// `mcp.json` refused the change.
    #[error(transparent)]
    File(#[from] McpFileError),
}

/// The servers Claude Desktop and Cursor have, each marked when `mcp_file` (the app's `mcp.json`, if any) has its
/// name already.
pub fn import_candidates(folders: &ImportFolders, mcp_file: Option<&Path>) -> McpImportCandidates {
    let taken = mcp_file
        .and_then(|path| config_file::server_names(path).ok())
        .unwrap_or_default();
    let mut listing = McpImportCandidates {
        files: Vec::new(),
        candidates: Vec::new(),
    };
    for source in McpImportSource::ALL {
        let Some(path) = folders.file(source) else {
            continue;
        };
        let mut file = McpImportFile {
            source,
            path: path.display().to_string(),
            found: path.is_file(),
            problem: None,
        };
        if file.found {
            match read_source(&path) {
                Ok(entries) => {
                    listing.candidates.extend(entries.into_iter().map(|entry| {
                        McpImportCandidate {
                            source,
                            launch: entry.server.as_ref().map(McpServerConfig::launch_text),
                            name_taken: taken.contains(&entry.name),
                            name: entry.name,
                            problems: entry.problems,
                        }
                    }));
                }
                Err(reason) => file.problem = Some(reason),
            }
        }
        listing.files.push(file);
    }
    listing
}

/// Copies the `chosen` servers into `mcp_file`, disabled, their plain values moved to the keychain; returns their
/// names. Nothing is imported when one of them cannot be.
pub fn import_servers(
    folders: &ImportFolders,
    mcp_file: &Path,
    chosen: &[McpImportChoice],
    secrets: &dyn McpSecretStore,
) -> Result<Vec<String>, McpImportError> {
    let mut servers: Vec<McpServerConfig> = Vec::new();
    for choice in chosen {
        let path = folders
            .file(choice.source)
            .ok_or(McpImportError::NoFolder(choice.source))?;
        let entries = read_source(&path).map_err(|reason| McpImportError::Source {
            path: path.clone(),
            reason,
        })?;
        let server = entries
            .into_iter()
            .find(|entry| entry.name == choice.name)
            .and_then(|entry| entry.server)
            .ok_or_else(|| McpImportError::NotThere {
                name: choice.name.clone(),
                path,
            })?;
        if servers.iter().any(|other| other.name == server.name) {
            return Err(McpImportError::SameName(server.name));
        }
        servers.push(server);
    }
    config_file::add_imported(mcp_file, &servers, secrets)?;
    Ok(servers.into_iter().map(|server| server.name).collect())
}

/// An entry of another app's file: the server, or why it cannot be read.
struct SourceEntry {
    name: String,
    server: Option<McpServerConfig>,
    problems: Vec<String>,
}

/// The app's own keys, left out of what another app's entry says (other apps give some of them other meanings:
/// Cline's `alwaysAllow` is a list).
const OWN_KEYS: [&str; 6] = [
    "disabled",
    "timeoutSeconds",
    "totalTimeoutSeconds",
    "disabledTools",
    "alwaysAllow",
    "alwaysAllowServer",
];

/// The entries of the file at `path`, in its order; the error says why none can be read.
fn read_source(path: &Path) -> Result<Vec<SourceEntry>, String> {
    let text = std::fs::read_to_string(path).map_err(|error| error.to_string())?;
    let value: Value =
        serde_json::from_str(&text).map_err(|error| format!("it is not valid JSON ({error})"))?;
    let Some(entries) = value.get("mcpServers").and_then(Value::as_object) else {
        return Err("it has no \"mcpServers\" object".to_owned());
    };
    let transport_only: Map<String, Value> = entries
        .iter()
        .map(|(name, entry)| {
            let mut entry = entry.clone();
            if let Some(fields) = entry.as_object_mut() {
                fields.retain(|key, _| !OWN_KEYS.contains(&key.as_str()));
            }
            (name.clone(), entry)
        })
        .collect();
    let filtered = serde_json::json!({ "mcpServers": transport_only }).to_string();
    let (config, problems) = parse_mcp_config(&filtered).map_err(|error| error.to_string())?;
    Ok(entries
        .keys()
        .map(|name| {
            let server = config
                .servers
                .iter()
                .find(|server| &server.name == name)
                .cloned();
            // A readable entry's problems are about plain values, which the import moves to the keychain.
            let problems = match server {
                Some(_) => Vec::new(),
                None => problems
                    .iter()
                    .filter(|problem| &problem.server == name)
                    .map(ToString::to_string)
                    .collect(),
            };
            SourceEntry {
                name: name.clone(),
                server,
                problems,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests;
