//! The IPC surface as the window sees it: the real config and capabilities on Tauri's mock runtime.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

fn app() -> App<MockRuntime> {
    crate::configure(mock_builder())
        .build(tauri::generate_context!())
        .unwrap()
}

/// The main window as `tauri.conf.json` describes it (`build` alone does not open config windows).
fn main_window(app: &App<MockRuntime>) -> WebviewWindow<MockRuntime> {
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

fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::default(),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_owned(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().unwrap())
}

#[test]
fn app_info_reports_the_product_name_and_version() {
    let app = app();
    let main_window = main_window(&app);

    assert_eq!(
        invoke(&main_window, "app_info"),
        Ok(json!({ "name": "Pi Desktop", "version": env!("CARGO_PKG_VERSION") }))
    );
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_call_app_info() {
    let app = app();
    let other_window = WebviewWindowBuilder::new(&app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    let error = invoke(&other_window, "app_info").unwrap_err();

    assert!(error.to_string().contains("not allowed"), "{error}");
}

#[test]
fn a_command_the_app_does_not_have_is_refused() {
    let app = app();
    let main_window = main_window(&app);

    let error = invoke(&main_window, "read_file").unwrap_err();

    assert!(error.to_string().contains("read_file"), "{error}");
}
