//! The desktop tools as plain functions on a temporary home: happy paths, filters, refusals, safe messages.

use desktop_host::desktop_paths::KnownFolder;
use desktop_host::desktop_tools::{
    DesktopToolContext, FailureKind, ListFilesArgs, ReadDocumentArgs, ToolFailure,
    list_folder_files, read_folder_document,
};
use desktop_host::language::Language;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::support::home::{TestHome, test_home};

fn context(home: &TestHome, language: Language) -> DesktopToolContext {
    DesktopToolContext::new(home.paths.clone(), language)
}

async fn list(
    context: &DesktopToolContext,
    folder: KnownFolder,
    args: ListFilesArgs,
) -> Result<Value, ToolFailure> {
    let output = list_folder_files(
        context,
        "list_download_files",
        folder,
        args,
        &CancellationToken::new(),
    )
    .await?;
    let content: Value = serde_json::from_str(&output.content).unwrap();
    // The model's JSON and the UI's details list the same files in the same order.
    let content_paths: Vec<&str> = content["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    let detail_paths: Vec<&str> = output.details["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["relativePath"].as_str().unwrap())
        .collect();
    assert_eq!(content_paths, detail_paths);
    Ok(content)
}

fn listed_paths(content: &Value) -> Vec<String> {
    content["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap().to_owned())
        .collect()
}

fn pdf_args(recursive: bool) -> ListFilesArgs {
    ListFilesArgs {
        extensions: vec!["pdf".to_owned()],
        recursive,
        ..ListFilesArgs::default()
    }
}

/// Asserts the failure's text leaks no absolute path of the test home.
fn assert_safe(home: &TestHome, failure: &ToolFailure) {
    let text = failure.to_string();
    assert!(!text.contains(home.home().to_str().unwrap()), "{text}");
    assert!(!text.contains('/'), "{text}");
}

#[tokio::test]
async fn list_download_files_lists_only_the_pdfs_and_skips_the_escaping_symlink() {
    let home = test_home();
    let context = context(&home, Language::En);
    let top = list(&context, KnownFolder::Downloads, pdf_args(false))
        .await
        .unwrap();
    assert_eq!(listed_paths(&top), vec!["report.pdf", "发票 2024.PDF"]);
    assert_eq!(top["folder"], "downloads");
    assert_eq!(top["files"][0]["kind"], "pdf");
    assert_eq!(top["files"][0]["modified"], "2023-11-19T22:13:20Z");
    let all = list(&context, KnownFolder::Downloads, pdf_args(true))
        .await
        .unwrap();
    assert_eq!(
        listed_paths(&all),
        vec![
            "report.pdf",
            "发票 2024.PDF",
            "archive/2023/old-statement.pdf",
            "archive/scanned.pdf"
        ]
    );
    assert_eq!(all["total"], 4);
}

#[tokio::test]
async fn listing_filters_by_name_and_date_and_pages_with_a_cursor() {
    let home = test_home();
    let context = context(&home, Language::En);
    let args = ListFilesArgs {
        name_contains: Some("T".to_owned()),
        modified_after: Some("2023-11-15".to_owned()),
        modified_before: Some("2023-11-25T00:00:00Z".to_owned()),
        sort: Some("name".to_owned()),
        ..ListFilesArgs::default()
    };
    // todo.txt (Nov 15), notes.md (Nov 16), setup.exe (Nov 17), report.pdf (Nov 19); not the old statement nor
    // the café menu written just now.
    assert_eq!(
        listed_paths(&list(&context, KnownFolder::Downloads, args).await.unwrap()),
        vec!["notes.md", "report.pdf", "setup.exe", "todo.txt"]
    );
    let first = list(
        &context,
        KnownFolder::Downloads,
        ListFilesArgs {
            limit: Some(2),
            ..ListFilesArgs::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(listed_paths(&first), vec!["report.pdf", "发票 2024.PDF"]);
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = list(
        &context,
        KnownFolder::Downloads,
        ListFilesArgs {
            limit: Some(2),
            cursor: Some(cursor),
            ..ListFilesArgs::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(listed_paths(&second), vec!["setup.exe", "notes.md"]);
}

#[cfg(unix)]
#[tokio::test]
async fn non_utf8_names_are_listed_and_readable_through_their_lossy_name() {
    let home = test_home();
    let context = context(&home, Language::En);
    let args = ListFilesArgs {
        extensions: vec!["TXT".to_owned()],
        sort: Some("name".to_owned()),
        ..ListFilesArgs::default()
    };
    let listed = list(&context, KnownFolder::Downloads, args).await.unwrap();
    assert_eq!(
        listed_paths(&listed),
        vec!["caf\u{fffd}-menu.txt", "todo.txt"]
    );
    let read = read_folder_document(
        &context,
        "read_document",
        ReadDocumentArgs {
            path: "caf\u{fffd}-menu.txt".to_owned(),
            ..ReadDocumentArgs::default()
        },
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(
        read.content.ends_with("espresso 2.00\n"),
        "{}",
        read.content
    );
}

#[tokio::test]
async fn listing_paths_that_escape_are_refused_with_a_safe_message_and_captured() {
    let home = test_home();
    let context = context(&home, Language::Zh);
    for path in [
        "..",
        "../outside",
        "outside-folder",
        home.home().join("outside").to_str().unwrap(),
    ] {
        let args = ListFilesArgs {
            path: Some(path.to_owned()),
            ..ListFilesArgs::default()
        };
        let failure = list(&context, KnownFolder::Downloads, args)
            .await
            .unwrap_err();
        assert_eq!(failure.kind, FailureKind::OutsideFolder, "{path}");
        assert_eq!(failure.to_string(), "拒绝访问：该路径不在下载目录内。");
        assert_safe(&home, &failure);
    }
    let captured = context.diagnostics.recent();
    assert_eq!(captured.len(), 4);
    assert!(
        captured[1]
            .detail
            .contains(home.home().join("outside").to_str().unwrap()),
        "{captured:?}"
    );
}

#[tokio::test]
async fn a_missing_downloads_folder_gives_the_chapter_message() {
    let home = test_home();
    std::fs::rename(home.downloads(), home.home().join("gone")).unwrap();
    let failure = list(
        &context(&home, Language::Zh),
        KnownFolder::Downloads,
        pdf_args(false),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.to_string(), "无法查询下载目录：目录暂时不可访问。");
    let english = list(
        &context(&home, Language::En),
        KnownFolder::Downloads,
        pdf_args(false),
    )
    .await
    .unwrap_err();
    assert_eq!(
        english.to_string(),
        "Cannot read the Downloads folder: it is not accessible right now."
    );
}

#[tokio::test]
async fn list_folder_reads_other_known_folders_and_refuses_unknown_ones() {
    let home = test_home();
    let context = context(&home, Language::En);
    let documents = list(&context, KnownFolder::Documents, ListFilesArgs::default())
        .await
        .unwrap();
    assert_eq!(listed_paths(&documents), vec!["plan.md"]);
    let failure = list(&context, KnownFolder::Pictures, ListFilesArgs::default())
        .await
        .unwrap_err();
    assert_eq!(failure.kind, FailureKind::FolderUnknown);
}

#[tokio::test]
async fn bad_arguments_are_explained() {
    let home = test_home();
    let context = context(&home, Language::En);
    let args = ListFilesArgs {
        modified_before: Some("last tuesday".to_owned()),
        ..ListFilesArgs::default()
    };
    let failure = list(&context, KnownFolder::Downloads, args)
        .await
        .unwrap_err();
    assert_eq!(
        failure.to_string(),
        "Invalid arguments: modified_before must be an RFC 3339 time or a YYYY-MM-DD date."
    );
    let args = ListFilesArgs {
        cursor: Some("garbage".to_owned()),
        ..ListFilesArgs::default()
    };
    let failure = list(&context, KnownFolder::Downloads, args)
        .await
        .unwrap_err();
    assert!(matches!(failure.kind, FailureKind::InvalidArguments { .. }));
}

#[tokio::test]
async fn a_cancelled_run_stops_the_tool() {
    let home = test_home();
    let context = context(&home, Language::En);
    let cancel_token = CancellationToken::new();
    cancel_token.cancel();
    let result = list_folder_files(
        &context,
        "list_download_files",
        KnownFolder::Downloads,
        pdf_args(true),
        &cancel_token,
    )
    .await;
    assert_eq!(result.unwrap_err().kind, FailureKind::Cancelled);
}

async fn read(
    context: &DesktopToolContext,
    args: ReadDocumentArgs,
) -> Result<(Value, String), ToolFailure> {
    let output =
        read_folder_document(context, "read_document", args, &CancellationToken::new()).await?;
    let (header, text) = output.content.split_once("\n\n").unwrap();
    let header: Value = serde_json::from_str(header).unwrap();
    assert_eq!(header, output.details);
    Ok((header, text.to_owned()))
}

fn read_args(path: &str) -> ReadDocumentArgs {
    ReadDocumentArgs {
        path: path.to_owned(),
        ..ReadDocumentArgs::default()
    }
}

#[tokio::test]
async fn read_document_extracts_pdf_text_with_page_and_character_ranges() {
    let home = test_home();
    let context = context(&home, Language::En);
    let (header, text) = read(&context, read_args("report.pdf")).await.unwrap();
    assert!(
        text.contains("Quarterly report") && text.contains("outlook (stable)"),
        "{text}"
    );
    assert_eq!(
        (header["format"].clone(), header["pageCount"].clone()),
        ("pdf".into(), 2.into())
    );
    let (header, text) = read(
        &context,
        ReadDocumentArgs {
            first_page: Some(2),
            ..read_args("report.pdf")
        },
    )
    .await
    .unwrap();
    assert!(
        text.contains("outlook") && !text.contains("Quarterly"),
        "{text}"
    );
    assert_eq!(header["pages"], serde_json::json!([2, 2]));
    let (header, text) = read(
        &context,
        ReadDocumentArgs {
            start_char: Some(2),
            max_chars: Some(3),
            ..read_args("notes.md")
        },
    )
    .await
    .unwrap();
    assert_eq!(text, "笔记\n");
    assert_eq!(header["format"], "markdown");
    assert_eq!(header["nextStartChar"], 5);
    let (_, nested) = read(&context, read_args("archive/2023/old-statement.pdf"))
        .await
        .unwrap();
    assert!(nested.contains("Statement for 2023"), "{nested}");
    let (_, document) = read(
        &context,
        ReadDocumentArgs {
            folder: Some("documents".to_owned()),
            ..read_args("plan.md")
        },
    )
    .await
    .unwrap();
    assert!(document.contains("Ship it."));
}

#[tokio::test]
async fn read_document_says_when_a_pdf_has_no_text_or_a_file_cannot_be_read() {
    let home = test_home();
    let context = context(&home, Language::Zh);
    let scanned = read(&context, read_args("archive/scanned.pdf"))
        .await
        .unwrap_err();
    assert_eq!(scanned.kind, FailureKind::NoTextLayer);
    assert!(scanned.to_string().contains("扫描件"));
    assert_eq!(
        read(&context, read_args("setup.exe"))
            .await
            .unwrap_err()
            .kind,
        FailureKind::Unsupported
    );
    assert_eq!(
        read(&context, read_args("archive")).await.unwrap_err().kind,
        FailureKind::NotAFile
    );
    assert_eq!(
        read(&context, read_args("missing.pdf"))
            .await
            .unwrap_err()
            .kind,
        FailureKind::NotFound
    );
    let pages = ReadDocumentArgs {
        first_page: Some(5),
        ..read_args("report.pdf")
    };
    assert_eq!(
        read(&context, pages).await.unwrap_err().kind,
        FailureKind::BadPageRange(2)
    );
}

#[tokio::test]
async fn read_document_refuses_paths_outside_the_folder() {
    let home = test_home();
    let context = context(&home, Language::En);
    let absolute = home.home().join("outside/secret.pdf");
    for path in [
        "../outside/secret.pdf",
        "shortcut.pdf",
        absolute.to_str().unwrap(),
        "../../etc/passwd",
    ] {
        let failure = read(&context, read_args(path)).await.unwrap_err();
        assert_eq!(failure.kind, FailureKind::OutsideFolder, "{path}");
        assert_eq!(
            failure.to_string(),
            "Access refused: that path is outside the Downloads folder."
        );
        assert_safe(&home, &failure);
    }
}
