//! `read_attachment` as the window calls it: the real config and capabilities on Tauri's mock runtime.

use base64::Engine;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tauri::App;
use tauri::test::{MockRuntime, mock_builder};

use crate::test_window::{call, main_window};

fn test_app() -> App<MockRuntime> {
    crate::configure(mock_builder())
        .build(tauri::generate_context!())
        .unwrap()
}

fn read(app: &App<MockRuntime>, name: &str, bytes: &[u8]) -> Result<Value, Value> {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    call(
        &main_window(app),
        "read_attachment",
        json!({ "name": name, "data": data }),
    )
}

#[test]
fn a_text_file_comes_back_as_its_text() {
    let app = test_app();

    let file = read(&app, "main.rs", b"fn main() {}\n").unwrap();

    assert_eq!(
        file,
        json!({
            "name": "main.rs",
            "format": "text",
            "text": "fn main() {}\n",
            "totalChars": 13,
            "truncated": false,
        })
    );
}

#[test]
fn a_program_renamed_to_text_is_refused_as_unsupported() {
    let app = test_app();

    let error = read(&app, "notes.txt", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00").unwrap_err();

    assert_eq!(
        error,
        json!({
            "kind": "invalid",
            "code": "attachment_unsupported",
            "detail": "notes.txt is not a PDF, text, Markdown or code file",
        })
    );
}

#[test]
fn a_broken_pdf_is_refused_as_unreadable() {
    let app = test_app();

    let error = read(&app, "broken.pdf", b"%PDF-1.7\n1 0 obj\n<<").unwrap_err();

    assert_eq!(error["code"], json!("attachment_unreadable"));
    assert!(
        error["detail"]
            .as_str()
            .unwrap()
            .starts_with("broken.pdf cannot be read as a PDF"),
        "{error}"
    );
}

#[test]
fn a_file_over_the_limit_is_refused_before_it_is_decoded() {
    let app = test_app();
    let data = "A".repeat(28 * 1024 * 1024);

    let error = call(
        &main_window(&app),
        "read_attachment",
        json!({ "name": "video.txt", "data": data }),
    )
    .unwrap_err();

    assert_eq!(error["code"], json!("attachment_too_large"));
}
