//! Generates the Tauri context from `tauri.conf.json`: the symlink here to the one real file at the
//! repository root. Reading it through the symlink keeps its relative paths (`../ui/dist`,
//! `../icons/…`) relative to `src-tauri/`, the way the Tauri CLI reads them. On Linux it also builds the web
//! process extension (`web-extension/`), which the app embeds and writes out when it starts.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        build_web_extension();
    }
    // App commands listed here need an explicit `allow-<command>` in a capability file, so the
    // window can call nothing that `capabilities/` does not name.
    let app_manifest = tauri_build::AppManifest::new().commands(&[
        "app_info",
        "open_log_folder",
        "autostart_enabled",
        "set_autostart",
        "quick_ask",
        "open_in_main_window",
        "hide_quick_ask",
        "quick_ask_shortcut_status",
        "fetch_image",
        "subscribe",
        "get_state",
        "new_conversation",
        "prompt",
        "read_attachment",
        "continue_run",
        "abort",
        "steer",
        "follow_up",
        "cancel_queued",
        "send_queued",
        "queue_settings",
        "save_queue_settings",
        "resolve_approval",
        "regenerate",
        "edit_message",
        "show_version",
        "delete_message_pair",
        "restore_messages",
        "continue_answer",
        "list_conversations",
        "search_conversations",
        "open_conversation",
        "rename_conversation",
        "delete_conversation",
        "restore_conversation",
        "export_conversation",
        "choose_export_path",
        "reveal_exported_file",
        "inspect_conversation",
        "run_events",
        "run_replay",
        "export_run_log",
        "get_settings",
        "save_settings",
        "set_api_key",
        "delete_api_key",
        "accept_key_file_fallback",
        "mcp_servers",
        "revoke_mcp_grant",
        "subscribe_mcp_servers",
        "save_mcp_server",
        "remove_mcp_server",
        "set_mcp_server_enabled",
        "set_mcp_tool_enabled",
        "restart_mcp_server",
        "mcp_import_candidates",
        "import_mcp_servers",
        "conversation_grants",
        "revoke_conversation_grant",
        "approval_settings",
        "save_approval_settings",
        "connection_settings",
        "save_connection_settings",
        "list_models",
        "describe_model",
        "test_connection",
        "provider_status",
        "detect_local_servers",
        "set_conversation_model",
    ]);
    let attributes = tauri_build::Attributes::new().app_manifest(app_manifest);
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri-build failed: {error:#}");
    }
}

/// Builds the extension, a shared object with no dependencies, with the compiler and target of this build, into
/// `$OUT_DIR/web-extension/`.
fn build_web_extension() {
    const SOURCE: &str = "web-extension/memory.rs";
    println!("cargo:rerun-if-changed=web-extension");
    let (Some(rustc), Some(out_dir), Some(target)) = (
        std::env::var_os("RUSTC"),
        std::env::var_os("OUT_DIR"),
        std::env::var_os("TARGET"),
    ) else {
        panic!("cargo sets RUSTC, OUT_DIR and TARGET for build scripts");
    };
    let folder = PathBuf::from(out_dir).join("web-extension");
    if let Err(error) = std::fs::create_dir_all(&folder) {
        panic!("cannot create {}: {error}", folder.display());
    }
    let status = Command::new(rustc)
        .args(["--edition=2024", "--crate-type=cdylib", "--target"])
        .arg(target)
        .args([
            "-C",
            "panic=abort",
            "-C",
            "opt-level=2",
            "-C",
            "strip=symbols",
        ])
        // Every symbol resolved when it is linked: WebKit reports a module it cannot load only on stderr.
        .args(["-C", "link-arg=-Wl,-z,defs", "-o"])
        .arg(folder.join("libpi_desktop_web_process.so"))
        .arg(SOURCE)
        .status();
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("building the web process extension failed: {status}"),
        Err(error) => panic!("cannot run rustc for the web process extension: {error}"),
    }
}
