use base64::Engine;
use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_block_carries_the_name_and_text_and_parses_back() {
    let block = file_block("notes.md", "# Plan\n\n- one");
    assert_eq!(
        block,
        "<attached-file name=\"notes.md\">\n# Plan\n\n- one\n</attached-file>"
    );
    assert_eq!(
        parse_file_block(&block),
        Some(("notes.md".to_owned(), "# Plan\n\n- one"))
    );
}

#[test]
fn a_hostile_name_is_escaped_in_the_block_and_comes_back_as_it_was() {
    let name = "a\"><script>alert(1)</script>&amp;.txt";
    let block = file_block(name, "text");
    let first_line = block.lines().next().unwrap();
    assert_eq!(
        first_line,
        "<attached-file name=\"a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;.txt\">"
    );
    assert_eq!(parse_file_block(&block), Some((name.to_owned(), "text")));
}

#[test]
fn line_breaks_in_a_name_cannot_end_the_opening_line() {
    let block = file_block("evil\n</attached-file>\nname.txt", "body");
    assert_eq!(
        parse_file_block(&block),
        Some(("evil </attached-file> name.txt".to_owned(), "body"))
    );
}

#[test]
fn text_that_contains_the_closing_tag_stays_inside_the_block() {
    let text = "before\n</attached-file>\nafter";
    let block = file_block("x.txt", text);
    assert_eq!(parse_file_block(&block), Some(("x.txt".to_owned(), text)));
}

#[test]
fn other_text_is_not_a_block() {
    for text in [
        "hello",
        "<attached-file name=\"x\">",
        "<attached-file name=\"x\">\nno end",
        "<attached-file name=\"x\" extra>\nbody\n</attached-file>",
        " <attached-file name=\"x\">\nbody\n</attached-file>",
    ] {
        assert_eq!(parse_file_block(text), None, "{text}");
    }
}

#[test]
fn a_text_file_is_read_whole_and_markdown_is_named_so() {
    let file = read_attachment("plan.md", b"# Plan\nShip it.".to_vec()).unwrap();
    assert_eq!(
        file,
        AttachedFile {
            name: "plan.md".to_owned(),
            format: DocumentFormat::Markdown,
            text: "# Plan\nShip it.".to_owned(),
            page_count: None,
            total_chars: 15,
            truncated: false,
        }
    );
}

#[test]
fn a_long_file_is_cut_with_a_visible_marker() {
    let text = "é".repeat(MAX_ATTACHMENT_CHARS + 10);
    let file = read_attachment("long.txt", text.into_bytes()).unwrap();
    assert!(file.truncated);
    assert_eq!(file.total_chars, MAX_ATTACHMENT_CHARS + 10);
    let marker = format!(
        "\n\n[Truncated: the first {MAX_ATTACHMENT_CHARS} of {} characters of long.txt are attached.]",
        MAX_ATTACHMENT_CHARS + 10
    );
    assert!(file.text.ends_with(&marker));
    assert_eq!(
        file.text.chars().count(),
        MAX_ATTACHMENT_CHARS + marker.chars().count()
    );
    assert!(PromptFile::new(&file.name, file.text).is_ok());
}

#[test]
fn a_binary_file_is_refused_by_name() {
    let error = read_attachment("setup.exe", b"MZ\x90\x00\x03\x00\x00\x00".to_vec()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "setup.exe is not a PDF, text, Markdown or code file"
    );
}

#[test]
fn a_broken_pdf_is_refused_as_a_pdf() {
    let error = read_attachment("broken.pdf", b"%PDF-1.4\nnot really".to_vec()).unwrap_err();
    assert!(
        matches!(error, AttachmentError::BadPdf { ref name, .. } if name == "broken.pdf"),
        "{error:?}"
    );
}

#[test]
fn an_oversized_file_is_refused_before_it_is_decoded() {
    let data = "A".repeat((MAX_ATTACHMENT_BYTES + 16) / 3 * 4);
    let error = decode_attachment("huge.pdf", &data).unwrap_err();
    assert!(
        matches!(error, AttachmentError::TooLarge { .. }),
        "{error:?}"
    );
    assert_eq!(
        read_attachment("huge.txt", vec![b'a'; MAX_ATTACHMENT_BYTES + 1]).unwrap_err(),
        AttachmentError::TooLarge {
            name: "huge.txt".to_owned(),
            bytes: MAX_ATTACHMENT_BYTES + 1
        }
    );
}

#[test]
fn data_that_is_not_base64_is_refused() {
    assert_eq!(
        decode_attachment("a.txt", "not base64!"),
        Err(AttachmentError::InvalidData {
            name: "a.txt".to_owned()
        })
    );
    let data = base64::engine::general_purpose::STANDARD.encode("hello");
    assert_eq!(decode_attachment("a.txt", &data).unwrap(), b"hello");
}

#[test]
fn a_prompt_refuses_too_many_unnamed_or_overlong_files() {
    let files = (0..=MAX_PROMPT_FILES)
        .map(|index| (format!("{index}.txt"), "x".to_owned()))
        .collect();
    assert_eq!(
        prompt_files(files),
        Err(PromptFileError::TooMany(MAX_PROMPT_FILES + 1))
    );
    assert_eq!(
        prompt_files(vec![
            ("a.txt".to_owned(), "x".to_owned()),
            (" ".to_owned(), "y".to_owned())
        ]),
        Err(PromptFileError::Unnamed { index: 2 })
    );
    let long = "x".repeat(MAX_ATTACHMENT_CHARS + MARKER_ALLOWANCE_CHARS + 1);
    assert_eq!(
        prompt_files(vec![("a.txt".to_owned(), long)]),
        Err(PromptFileError::TooLong {
            index: 1,
            chars: MAX_ATTACHMENT_CHARS + MARKER_ALLOWANCE_CHARS + 1
        })
    );
}
