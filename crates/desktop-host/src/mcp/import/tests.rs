//! Claude Desktop's and Cursor's files in a temporary home, imported into a temporary `mcp.json`.

use std::collections::BTreeMap;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::mcp::config_file::tests::MemoryKeychain;
use crate::mcp::{McpServerState, McpServers, NoSecrets};

/// A home with `.config/` as the config folder, Claude Desktop's file holding `claude` and Cursor's `cursor`
/// (absent when `None`), and the app's config folder.
struct Homes {
    _home: tempfile::TempDir,
    folders: ImportFolders,
    mcp_file: PathBuf,
}

fn homes(claude: Option<&str>, cursor: Option<&str>) -> Homes {
    let home = tempfile::tempdir().unwrap();
    let folders = ImportFolders {
        home: Some(home.path().to_path_buf()),
        config: Some(home.path().join(".config")),
    };
    for (source, text) in [
        (McpImportSource::ClaudeDesktop, claude),
        (McpImportSource::Cursor, cursor),
    ] {
        if let Some(text) = text {
            let path = folders.file(source).unwrap();
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }
    let mcp_file = home.path().join(".config/pi-desktop/mcp.json");
    Homes {
        _home: home,
        folders,
        mcp_file,
    }
}

const CLAUDE: &str = r#"{"globalShortcut": "", "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/My Documents"]},
    "github": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GITHUB_TOKEN": "ghp_secret"}},
    "broken": {"command": "node", "args": "not a list"}
}}"#;

const CURSOR: &str = r#"{"mcpServers": {
    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer xyz"}},
    "cline-style": {"command": "uvx", "args": ["notes-mcp"], "alwaysAllow": ["read"], "disabled": false},
    "filesystem": {"command": "npx", "args": ["-y", "other"]}
}}"#;

fn choice(source: McpImportSource, name: &str) -> McpImportChoice {
    McpImportChoice {
        source,
        name: name.to_owned(),
    }
}

#[test]
fn the_files_are_where_each_app_keeps_them() {
    let folders = ImportFolders {
        home: Some(PathBuf::from("/home/ada")),
        config: Some(PathBuf::from("/home/ada/.config")),
    };
    assert_eq!(
        folders.file(McpImportSource::ClaudeDesktop),
        Some(PathBuf::from(
            "/home/ada/.config/Claude/claude_desktop_config.json"
        ))
    );
    assert_eq!(
        folders.file(McpImportSource::Cursor),
        Some(PathBuf::from("/home/ada/.cursor/mcp.json"))
    );
}

#[test]
fn candidates_show_the_exact_command_line_the_problems_and_a_name_taken_already() {
    let homes = homes(Some(CLAUDE), Some(CURSOR));
    std::fs::create_dir_all(homes.mcp_file.parent().unwrap()).unwrap();
    std::fs::write(
        &homes.mcp_file,
        r#"{"mcpServers": {"github": {"command": "gh"}}}"#,
    )
    .unwrap();

    let listing = import_candidates(&homes.folders, Some(&homes.mcp_file));

    let shown: Vec<(McpImportSource, &str, Option<&str>, bool, usize)> = listing
        .candidates
        .iter()
        .map(|candidate| {
            (
                candidate.source,
                candidate.name.as_str(),
                candidate.launch.as_deref(),
                candidate.name_taken,
                candidate.problems.len(),
            )
        })
        .collect();
    use McpImportSource::{ClaudeDesktop, Cursor};
    assert_eq!(
        shown,
        [
            (
                ClaudeDesktop,
                "filesystem",
                Some("npx -y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'"),
                false,
                0
            ),
            (ClaudeDesktop, "github", Some("npx -y gh-mcp"), true, 0),
            (ClaudeDesktop, "broken", None, false, 1),
            (Cursor, "remote", Some("https://example.com/mcp"), false, 0),
            (Cursor, "cline-style", Some("uvx notes-mcp"), false, 0),
            (Cursor, "filesystem", Some("npx -y other"), false, 0),
        ]
    );
    assert!(
        listing.candidates[2].problems[0].starts_with("MCP server \"broken\", field \"args\": "),
        "{:?}",
        listing.candidates[2].problems
    );
    assert!(
        listing
            .files
            .iter()
            .all(|file| file.found && file.problem.is_none())
    );
}

#[test]
fn a_missing_file_is_listed_as_not_found_and_one_that_is_not_json_says_so() {
    let homes = homes(Some("{\"mcpServers\": "), None);

    let listing = import_candidates(&homes.folders, None);

    assert_eq!(listing.candidates, []);
    assert_eq!(listing.files.len(), 2);
    assert!(listing.files[0].found);
    assert!(
        listing.files[0]
            .problem
            .as_deref()
            .is_some_and(|problem| problem.starts_with("it is not valid JSON")),
        "{:?}",
        listing.files[0]
    );
    assert_eq!(
        listing.files[1],
        McpImportFile {
            source: McpImportSource::Cursor,
            path: homes
                .folders
                .file(McpImportSource::Cursor)
                .unwrap()
                .display()
                .to_string(),
            found: false,
            problem: None,
        }
    );
}

#[test]
fn imported_servers_arrive_disabled_show_the_same_command_line_and_keep_no_grant_from_elsewhere() {
    let homes = homes(Some(CLAUDE), Some(CURSOR));
    let keychain = MemoryKeychain::default();
    let listing = import_candidates(&homes.folders, Some(&homes.mcp_file));

    let imported = import_servers(
        &homes.folders,
        &homes.mcp_file,
        &[
            choice(McpImportSource::ClaudeDesktop, "github"),
            choice(McpImportSource::Cursor, "cline-style"),
            choice(McpImportSource::Cursor, "remote"),
        ],
        &keychain,
    )
    .unwrap();

    assert_eq!(imported, ["github", "cline-style", "remote"]);
    let text = std::fs::read_to_string(&homes.mcp_file).unwrap();
    assert!(
        !text.contains("ghp_secret") && !text.contains("xyz"),
        "{text}"
    );
    let written: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        written["mcpServers"]["cline-style"],
        json!({"command": "uvx", "args": ["notes-mcp"], "disabled": true})
    );
    assert_eq!(
        keychain.values(),
        BTreeMap::from([
            (
                "mcp.github.GITHUB_TOKEN".to_owned(),
                "ghp_secret".to_owned()
            ),
            (
                "mcp.remote.Authorization".to_owned(),
                "Bearer xyz".to_owned()
            ),
        ])
    );
    let view = McpServers::load(homes.mcp_file.parent(), Arc::new(NoSecrets)).view();
    let shown: Vec<(&str, &McpServerState, &str)> = view
        .servers
        .iter()
        .map(|server| (server.name.as_str(), &server.status, server.launch.as_str()))
        .collect();
    let offered = |name: &str| {
        listing
            .candidates
            .iter()
            .find(|candidate| candidate.name == name)
            .and_then(|candidate| candidate.launch.clone())
            .unwrap()
    };
    assert_eq!(
        shown,
        [
            (
                "github",
                &McpServerState::Disabled,
                offered("github").as_str()
            ),
            (
                "cline-style",
                &McpServerState::Disabled,
                offered("cline-style").as_str()
            ),
            (
                "remote",
                &McpServerState::Disabled,
                offered("remote").as_str()
            ),
        ]
    );
    assert_eq!(view.problems, Vec::<String>::new());
}

#[test]
fn a_taken_name_two_of_one_name_or_an_unreadable_entry_import_nothing() {
    let homes = homes(Some(CLAUDE), Some(CURSOR));
    let keychain = MemoryKeychain::default();
    import_servers(
        &homes.folders,
        &homes.mcp_file,
        &[choice(McpImportSource::ClaudeDesktop, "filesystem")],
        &keychain,
    )
    .unwrap();
    let before = std::fs::read_to_string(&homes.mcp_file).unwrap();

    let refusals = [
        import_servers(
            &homes.folders,
            &homes.mcp_file,
            &[
                choice(McpImportSource::Cursor, "remote"),
                choice(McpImportSource::Cursor, "filesystem"),
            ],
            &keychain,
        ),
        import_servers(
            &homes.folders,
            &homes.mcp_file,
            &[
                choice(McpImportSource::Cursor, "cline-style"),
                choice(McpImportSource::Cursor, "cline-style"),
            ],
            &keychain,
        ),
        import_servers(
            &homes.folders,
            &homes.mcp_file,
            &[choice(McpImportSource::ClaudeDesktop, "broken")],
            &keychain,
        ),
    ];

    let messages: Vec<String> = refusals
        .into_iter()
        .map(|refusal| refusal.unwrap_err().to_string())
        .collect();
    let claude_file = homes.folders.file(McpImportSource::ClaudeDesktop).unwrap();
    assert_eq!(
        messages,
        [
            "an MCP server named \"filesystem\" exists already; give this one another name"
                .to_owned(),
            "two chosen MCP servers are named \"cline-style\"; import one of them".to_owned(),
            format!(
                "the MCP server \"broken\" is not in {} or its entry cannot be read; list the servers again",
                claude_file.display()
            ),
        ]
    );
    assert_eq!(std::fs::read_to_string(&homes.mcp_file).unwrap(), before);
    assert_eq!(keychain.values(), BTreeMap::new(), "nothing stored");
}
