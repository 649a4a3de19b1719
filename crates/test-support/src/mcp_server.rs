//! The MCP reference server the tests run: `@modelcontextprotocol/server-everything`, pinned by
//! `tests/mcp/package-lock.json` and installed by `npm ci --prefix tests/mcp` (the test ladder does it), started
//! with this machine's `node` and never through `npx`.

use std::path::{Path, PathBuf};

use serde_json::json;

/// The reference server could not be found or configured.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceServerError {
    /// The package is not installed.
    #[error("{0} is missing: run `npm ci --prefix tests/mcp` (scripts/test-all.sh does)")]
    NotInstalled(PathBuf),
    /// No `node` on `PATH`.
    #[error("node is not on PATH: install Node.js")]
    NoNode,
    /// Writing `mcp.json` failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// How to start the reference server over stdio.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceServer {
    /// The `node` program.
    pub node: PathBuf,
    /// Its arguments: the installed entry point and `stdio`.
    pub args: Vec<String>,
}

impl ReferenceServer {
    /// The installed server and this machine's `node`.
    pub fn find() -> Result<ReferenceServer, ReferenceServerError> {
        let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        );
        if !entry.is_file() {
            return Err(ReferenceServerError::NotInstalled(entry));
        }
        let node = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join("node"))
            .find(|candidate| candidate.is_file())
            .ok_or(ReferenceServerError::NoNode)?;
        Ok(ReferenceServer {
            node,
            args: vec![entry.display().to_string(), "stdio".to_owned()],
        })
    }

    /// Writes `config_dir/mcp.json` naming this server `everything` (creating the folder).
    pub fn write_mcp_json(&self, config_dir: &Path) -> Result<(), ReferenceServerError> {
        let path = config_dir.join("mcp.json");
        let config = json!({"mcpServers": {"everything": {
            "command": self.node.display().to_string(),
            "args": self.args,
        }}});
        std::fs::create_dir_all(config_dir)
            .and_then(|()| std::fs::write(&path, config.to_string()))
            .map_err(|source| ReferenceServerError::Write { path, source })
    }
}
