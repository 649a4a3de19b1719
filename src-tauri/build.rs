//! Generates the Tauri context from `tauri.conf.json`: the symlink here to the one real file at the
//! repository root. Reading it through the symlink keeps its relative paths (`../ui/dist`,
//! `../icons/…`) relative to `src-tauri/`, the way the Tauri CLI reads them.

fn main() {
    // App commands listed here need an explicit `allow-<command>` in a capability file, so the
    // window can call nothing that `capabilities/` does not name.
    let app_manifest = tauri_build::AppManifest::new().commands(&[
        "app_info",
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
        "list_conversations",
        "search_conversations",
        "open_conversation",
        "rename_conversation",
        "delete_conversation",
        "restore_conversation",
        "export_conversation",
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
