//! The desktop host, without Tauri: desktop folders and tools, settings, secrets, the IPC wire format.
