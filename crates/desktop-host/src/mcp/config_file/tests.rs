//! Edits of `mcp.json` in a temporary config folder, with the keychain in memory.

use std::collections::BTreeMap;
use std::sync::Mutex;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::mcp::config::parse_mcp_config;

/// The keychain in a map; `refuse` makes every store fail.
#[derive(Default)]
pub(crate) struct MemoryKeychain {
    values: Mutex<BTreeMap<String, String>>,
    refuse: bool,
}

impl MemoryKeychain {
    pub(crate) fn with(values: &[(&str, &str)]) -> MemoryKeychain {
        MemoryKeychain {
            values: Mutex::new(
                values
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                    .collect(),
            ),
            refuse: false,
        }
    }

    pub(crate) fn values(&self) -> BTreeMap<String, String> {
        self.values.lock().unwrap().clone()
    }
}

impl McpSecretStore for MemoryKeychain {
    fn store_secret(&self, name: &str, value: &str) -> Result<(), String> {
        if self.refuse {
            return Err("the keychain is locked".to_owned());
        }
        self.values
            .lock()
            .unwrap()
            .insert(name.to_owned(), value.to_owned());
        Ok(())
    }

    fn delete_secret(&self, name: &str) -> Result<(), String> {
        self.values.lock().unwrap().remove(name);
        Ok(())
    }
}

fn value(name: &str, entered: Option<&str>) -> McpValueInput {
    McpValueInput {
        name: name.to_owned(),
        value: entered.map(str::to_owned),
    }
}

fn stdio(name: &str, command: &str, args: &[&str], env: Vec<McpValueInput>) -> McpServerInput {
    McpServerInput {
        name: name.to_owned(),
        previous_name: None,
        transport: McpTransportInput::Stdio {
            command: command.to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            cwd: None,
            env,
        },
        disabled: false,
        timeout_seconds: None,
        total_timeout_seconds: None,
    }
}

fn editing(previous: &str, mut input: McpServerInput) -> McpServerInput {
    input.previous_name = Some(previous.to_owned());
    input
}

/// A config folder with `mcp.json` holding `text`.
fn folder_with(text: &str) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("mcp.json");
    std::fs::write(&path, text).unwrap();
    (folder, path)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn keys(value: &Value) -> Vec<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn a_new_server_creates_the_folder_and_file_and_an_entered_value_goes_to_the_keychain_never_the_file()
 {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("pi-desktop/mcp.json");
    let keychain = MemoryKeychain::default();

    save_server(
        &path,
        &stdio(
            "notes",
            "npx",
            &["-y", "@scope/notes"],
            vec![value("API_KEY", Some("s3cret-value"))],
        ),
        &keychain,
    )
    .unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("s3cret-value"), "{text}");
    assert_eq!(
        read(&path),
        json!({"mcpServers": {"notes": {
            "command": "npx",
            "args": ["-y", "@scope/notes"],
            "env": {"API_KEY": {"keychain": "mcp.notes.API_KEY"}},
        }}})
    );
    assert_eq!(
        keychain.values(),
        BTreeMap::from([("mcp.notes.API_KEY".to_owned(), "s3cret-value".to_owned())])
    );
    let (config, problems) = parse_mcp_config(&text).unwrap();
    assert_eq!(config.servers.len(), 1);
    assert_eq!(problems, []);
}

#[test]
fn an_edit_changes_only_its_entry_and_keeps_other_apps_keys_other_entries_and_every_order() {
    let (_folder, path) = folder_with(
        r#"{"globalShortcut": "Ctrl+Space",
            "mcpServers": {
              "first": {"command": "a", "active": true},
              "files": {"type": "stdio", "command": "node", "args": ["old.js"], "active": true,
                        "alwaysAllow": {"read": "hash"}, "disabledTools": ["write"], "timeoutSeconds": 9},
              "last": {"url": "https://example.com/mcp"}
            },
            "mcpSettings": {"toolCallTimeoutSeconds": 30}}"#,
    );
    let before = read(&path);

    save_server(
        &path,
        &editing(
            "files",
            stdio("files", "node", &["new.js", "My Notes"], Vec::new()),
        ),
        &MemoryKeychain::default(),
    )
    .unwrap();

    let after = read(&path);
    let mut expected = before;
    expected["mcpServers"]["files"] = json!({"type": "stdio", "command": "node", "args": ["new.js", "My Notes"],
        "active": true, "alwaysAllow": {"read": "hash"}, "disabledTools": ["write"]});
    assert_eq!(after, expected);
    assert_eq!(
        keys(&after),
        ["globalShortcut", "mcpServers", "mcpSettings"]
    );
    assert_eq!(keys(&after["mcpServers"]), ["first", "files", "last"]);
    assert_eq!(
        keys(&after["mcpServers"]["files"]),
        [
            "type",
            "command",
            "args",
            "active",
            "alwaysAllow",
            "disabledTools"
        ]
    );
}

#[test]
fn a_value_not_entered_again_is_kept_and_one_no_longer_listed_leaves_the_keychain() {
    let (_folder, path) = folder_with(
        r#"{"mcpServers": {"gh": {"command": "gh-mcp", "env": {
            "TOKEN": {"keychain": "mcp.gh.TOKEN"},
            "OLD": {"keychain": "mcp.gh.OLD"},
            "DEBUG": "1"}}}}"#,
    );
    let keychain = MemoryKeychain::with(&[("mcp.gh.TOKEN", "t"), ("mcp.gh.OLD", "o")]);

    save_server(
        &path,
        &editing(
            "gh",
            stdio(
                "gh",
                "gh-mcp",
                &[],
                vec![
                    value("TOKEN", None),
                    value("DEBUG", None),
                    value("NEW", Some("n")),
                ],
            ),
        ),
        &keychain,
    )
    .unwrap();

    assert_eq!(
        read(&path)["mcpServers"]["gh"]["env"],
        json!({"TOKEN": {"keychain": "mcp.gh.TOKEN"}, "DEBUG": "1", "NEW": {"keychain": "mcp.gh.NEW"}})
    );
    assert_eq!(
        keychain.values(),
        BTreeMap::from([
            ("mcp.gh.NEW".to_owned(), "n".to_owned()),
            ("mcp.gh.TOKEN".to_owned(), "t".to_owned()),
        ])
    );
}

#[test]
fn a_renamed_server_keeps_its_place_and_none_of_the_old_names_secrets() {
    let text = r#"{"mcpServers": {"a": {"command": "x"}, "old": {"command": "gh-mcp", "env": {"TOKEN": {"keychain": "mcp.old.TOKEN"}}}, "z": {"command": "y"}}}"#;
    let (_folder, path) = folder_with(text);
    let keychain = MemoryKeychain::with(&[("mcp.old.TOKEN", "t")]);

    let refused = save_server(
        &path,
        &editing(
            "old",
            stdio("new", "gh-mcp", &[], vec![value("TOKEN", None)]),
        ),
        &keychain,
    )
    .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "MCP server \"new\", field \"env.TOKEN\": was kept in the keychain for the name \"old\"; a renamed server keeps none of those values, so enter it again"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "nothing written"
    );

    save_server(
        &path,
        &editing(
            "old",
            stdio("new", "gh-mcp", &[], vec![value("TOKEN", Some("t2"))]),
        ),
        &keychain,
    )
    .unwrap();

    let after = read(&path);
    assert_eq!(keys(&after["mcpServers"]), ["a", "new", "z"]);
    assert_eq!(
        after["mcpServers"]["new"]["env"],
        json!({"TOKEN": {"keychain": "mcp.new.TOKEN"}})
    );
    assert_eq!(
        keychain.values(),
        BTreeMap::from([("mcp.new.TOKEN".to_owned(), "t2".to_owned())])
    );
}

#[test]
fn removing_a_server_deletes_the_values_the_app_kept_for_it_but_not_a_shared_or_hand_written_one() {
    let (_folder, path) = folder_with(
        r#"{"mcpServers": {
            "gh": {"command": "gh-mcp", "env": {"TOKEN": {"keychain": "mcp.gh.TOKEN"}, "SHARED": {"keychain": "team-token"}}},
            "other": {"url": "https://example.com/mcp", "headers": {"Authorization": {"keychain": "team-token"}}}
        }}"#,
    );
    let keychain = MemoryKeychain::with(&[("mcp.gh.TOKEN", "t"), ("team-token", "s")]);

    remove_server(&path, "gh", &keychain).unwrap();

    assert_eq!(keys(&read(&path)["mcpServers"]), ["other"]);
    assert_eq!(
        keychain.values(),
        BTreeMap::from([("team-token".to_owned(), "s".to_owned())])
    );
    assert_eq!(
        remove_server(&path, "gh", &keychain),
        Err(McpFileError::UnknownServer("gh".to_owned()))
    );
}

#[test]
fn a_file_that_is_not_json_or_not_a_configuration_is_never_rewritten() {
    let keychain = MemoryKeychain::default();
    for text in [
        "{\"mcpServers\": {\"a\": {\"command\": \"x\"},}}",
        "[]",
        "{\"mcpServers\": []}",
    ] {
        let (_folder, path) = folder_with(text);

        let refusals = [
            save_server(&path, &stdio("b", "y", &[], Vec::new()), &keychain),
            remove_server(&path, "a", &keychain),
            set_disabled(&path, "a", true),
            set_tool_enabled(&path, "a", "t", false),
        ];

        for refusal in refusals {
            let message = refusal.unwrap_err().to_string();
            assert!(
                message.contains(&path.display().to_string())
                    && message.ends_with("Pi Desktop did not change it"),
                "{message}"
            );
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(!path.with_extension("json.saving").exists());
    }
    let (_folder, path) = folder_with("{\"mcpServers\": ");
    assert!(matches!(
        save_server(&path, &stdio("b", "y", &[], Vec::new()), &keychain),
        Err(McpFileError::NotJson { .. })
    ));
}

#[test]
fn an_empty_file_or_one_without_mcp_servers_takes_the_first_server_and_keeps_its_other_keys() {
    let (_folder, path) = folder_with("  \n");
    set_up_one(&path);
    assert_eq!(keys(&read(&path)["mcpServers"]), ["one"]);

    let (_folder, path) = folder_with(r#"{"mcpSettings": {"backoffMultiplier": 2}}"#);
    set_up_one(&path);
    assert_eq!(
        read(&path),
        json!({"mcpSettings": {"backoffMultiplier": 2}, "mcpServers": {"one": {"command": "x"}}})
    );
}

fn set_up_one(path: &Path) {
    save_server(
        path,
        &stdio("one", "x", &[], Vec::new()),
        &MemoryKeychain::default(),
    )
    .unwrap();
}

#[test]
fn each_wrong_field_is_named_and_nothing_is_written() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("mcp.json");
    let http = |url: &str, headers: Vec<McpValueInput>| McpServerInput {
        transport: McpTransportInput::Http {
            url: url.to_owned(),
            headers,
        },
        ..stdio("remote", "unused", &[], Vec::new())
    };
    let with_cwd = McpServerInput {
        transport: McpTransportInput::Stdio {
            command: "node".to_owned(),
            args: Vec::new(),
            cwd: Some("projects/notes".to_owned()),
            env: Vec::new(),
        },
        ..stdio("notes", "node", &[], Vec::new())
    };
    let zero_timeout = McpServerInput {
        timeout_seconds: Some(0),
        ..stdio("notes", "node", &[], Vec::new())
    };
    let cases: Vec<(McpServerInput, &str)> = vec![
        (
            stdio("  ", "node", &[], Vec::new()),
            "MCP server \"\", field \"name\": is empty; give the server a name",
        ),
        (
            stdio("notes", " ", &[], Vec::new()),
            "MCP server \"notes\", field \"command\": is empty; name the program that starts the server (for example npx or a full path)",
        ),
        (
            http("ftp://example.com", Vec::new()),
            "MCP server \"remote\", field \"url\": must be a web address starting with http:// or https://",
        ),
        (
            http(
                "https://example.com/mcp",
                vec![value("Bad Header", Some("v"))],
            ),
            "MCP server \"remote\", field \"headers.Bad Header\": is not a header name; use letters, digits and -",
        ),
        (
            http(
                "https://example.com/mcp",
                vec![value("X-Key", Some("a\nb"))],
            ),
            "MCP server \"remote\", field \"headers.X-Key\": the value holds characters a header cannot carry (line breaks, control characters)",
        ),
        (
            with_cwd,
            "MCP server \"notes\", field \"cwd\": must be a full path (for example /home/you/project)",
        ),
        (
            zero_timeout,
            "MCP server \"notes\", field \"timeoutSeconds\": must be at least 1 second",
        ),
        (
            stdio(
                "notes",
                "node",
                &[],
                vec![value("A", Some("1")), value("A", Some("2"))],
            ),
            "MCP server \"notes\", field \"env.A\": is listed twice; keep one",
        ),
        (
            stdio("notes", "node", &[], vec![value("NEW", None)]),
            "MCP server \"notes\", field \"env.NEW\": has no value yet; enter one",
        ),
    ];

    for (input, expected) in cases {
        let keychain = MemoryKeychain::default();
        let refusal = save_server(&path, &input, &keychain).unwrap_err();
        assert_eq!(refusal.to_string(), expected);
        assert!(!refusal.to_string().contains("a\nb"));
        assert!(!path.exists(), "nothing written for {expected}");
        assert_eq!(keychain.values(), BTreeMap::new());
    }
}

#[test]
fn a_name_another_server_has_is_refused_whether_added_or_renamed_to() {
    let (_folder, path) =
        folder_with(r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#);
    let keychain = MemoryKeychain::default();

    assert_eq!(
        save_server(&path, &stdio("a", "z", &[], Vec::new()), &keychain),
        Err(McpFileError::NameTaken("a".to_owned()))
    );
    assert_eq!(
        save_server(
            &path,
            &editing("b", stdio("a", "y", &[], Vec::new())),
            &keychain
        ),
        Err(McpFileError::NameTaken("a".to_owned()))
    );
    assert_eq!(
        save_server(
            &path,
            &editing("gone", stdio("gone", "y", &[], Vec::new())),
            &keychain
        ),
        Err(McpFileError::UnknownServer("gone".to_owned()))
    );
}

#[test]
fn a_value_the_keychain_refuses_leaves_the_file_as_it_was() {
    let text = r#"{"mcpServers": {}}"#;
    let (_folder, path) = folder_with(text);
    let keychain = MemoryKeychain {
        refuse: true,
        ..MemoryKeychain::default()
    };

    let refusal = save_server(
        &path,
        &stdio("gh", "gh-mcp", &[], vec![value("TOKEN", Some("secret-1"))]),
        &keychain,
    )
    .unwrap_err();

    assert_eq!(
        refusal.to_string(),
        "the keychain did not keep env.TOKEN of MCP server \"gh\" (the keychain is locked); nothing was changed"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn switching_to_a_url_drops_the_program_keys_and_timeouts_and_disabled_are_written_as_given() {
    let (_folder, path) = folder_with(
        r#"{"mcpServers": {"x": {"command": "node", "args": ["a"], "env": {"A": "1"}, "cwd": "/tmp", "disabled": true}}}"#,
    );
    let input = McpServerInput {
        name: "x".to_owned(),
        previous_name: Some("x".to_owned()),
        transport: McpTransportInput::Http {
            url: "http://127.0.0.1:3001/mcp".to_owned(),
            headers: Vec::new(),
        },
        disabled: false,
        timeout_seconds: Some(5),
        total_timeout_seconds: Some(50),
    };

    save_server(&path, &input, &MemoryKeychain::default()).unwrap();

    assert_eq!(
        read(&path)["mcpServers"]["x"],
        json!({"url": "http://127.0.0.1:3001/mcp", "timeoutSeconds": 5, "totalTimeoutSeconds": 50})
    );
}

#[test]
fn enabling_disabling_and_turning_tools_off_and_on_change_only_those_keys() {
    let (_folder, path) =
        folder_with(r#"{"mcpServers": {"x": {"command": "node", "active": true}}}"#);

    set_disabled(&path, "x", true).unwrap();
    assert_eq!(
        read(&path)["mcpServers"]["x"],
        json!({"command": "node", "active": true, "disabled": true})
    );
    set_tool_enabled(&path, "x", "get-sum", false).unwrap();
    set_tool_enabled(&path, "x", "get-sum", false).unwrap();
    set_tool_enabled(&path, "x", "echo", false).unwrap();
    assert_eq!(
        read(&path)["mcpServers"]["x"]["disabledTools"],
        json!(["get-sum", "echo"])
    );
    set_tool_enabled(&path, "x", "get-sum", true).unwrap();
    set_tool_enabled(&path, "x", "echo", true).unwrap();
    set_disabled(&path, "x", false).unwrap();
    assert_eq!(
        read(&path)["mcpServers"]["x"],
        json!({"command": "node", "active": true})
    );
    assert_eq!(
        set_disabled(&path, "y", false),
        Err(McpFileError::UnknownServer("y".to_owned()))
    );
}

#[test]
fn imported_servers_arrive_disabled_with_their_plain_values_in_the_keychain_and_a_taken_name_adds_nothing()
 {
    let (_folder, path) = folder_with(r#"{"mcpServers": {"mine": {"command": "x"}}}"#);
    let keychain = MemoryKeychain::default();
    let (imported, _) = parse_mcp_config(
        r#"{"mcpServers": {
            "gh": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GITHUB_TOKEN": "ghp_abc"}},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer xyz"}}
        }}"#,
    )
    .unwrap();

    add_imported(&path, &imported.servers, &keychain).unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("ghp_abc") && !text.contains("xyz"), "{text}");
    assert_eq!(
        read(&path)["mcpServers"],
        json!({
            "mine": {"command": "x"},
            "gh": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GITHUB_TOKEN": {"keychain": "mcp.gh.GITHUB_TOKEN"}}, "disabled": true},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": {"keychain": "mcp.remote.Authorization"}}, "disabled": true},
        })
    );
    assert_eq!(
        keychain.values(),
        BTreeMap::from([
            ("mcp.gh.GITHUB_TOKEN".to_owned(), "ghp_abc".to_owned()),
            (
                "mcp.remote.Authorization".to_owned(),
                "Bearer xyz".to_owned()
            ),
        ])
    );
    let before = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        add_imported(&path, &imported.servers, &keychain),
        Err(McpFileError::NameTaken("gh".to_owned()))
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert_eq!(server_names(&path).unwrap(), ["mine", "gh", "remote"]);
}

#[cfg(unix)]
#[test]
fn a_symlinked_file_is_written_through_to_its_target() {
    let (folder, target) = folder_with(r#"{"mcpServers": {}}"#);
    let link = folder.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();

    set_up_one(&link);

    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(keys(&read(&target)["mcpServers"]), ["one"]);
}

#[test]
fn the_debug_form_of_an_entered_value_hides_it() {
    let shown = format!("{:?}", value("TOKEN", Some("s3cret")));
    assert!(!shown.contains("s3cret"), "{shown}");
}
