//! The main window on Tauri's mock runtime and calls into it as the webview makes them (the capabilities decide),
//! for the tests of the IPC surface and of each command file.

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

/// The main window as `tauri.conf.json` describes it (`build` alone does not open config windows).
pub(crate) fn main_window(app: &App<MockRuntime>) -> WebviewWindow<MockRuntime> {
    let window_config = app
        .config()
        .app
        .windows
        .iter()
        .find(|window| window.label == "main")
        .unwrap();
    WebviewWindowBuilder::from_config(app, window_config)
        .unwrap()
        .build()
        .unwrap()
}

/// Invokes `cmd` without arguments.
pub(crate) fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str) -> Result<Value, Value> {
    request(window, cmd, InvokeBody::default())
}

/// Invokes `cmd` with JSON `args`.
pub(crate) fn call(
    window: &WebviewWindow<MockRuntime>,
    cmd: &str,
    args: Value,
) -> Result<Value, Value> {
    request(window, cmd, InvokeBody::Json(args))
}

fn request(
    window: &WebviewWindow<MockRuntime>,
    cmd: &str,
    body: InvokeBody,
) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body,
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_owned(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().unwrap())
}
