use desktop_host::language::Language;
use desktop_host::store::{ConversationRecorder, ExportFormat};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{START_MS, TestStore, assistant, user};

/// A conversation with every kind of block: text, thinking, a tool call and its result, an image, a custom
/// message, an aborted answer and an interrupted one.
fn sample(test_store: &TestStore) -> (desktop_host::store::ConversationId, Vec<Value>) {
    let conversation = test_store
        .store
        .create_conversation(Some("scripted-1"))
        .unwrap();
    let mut tool_turn = assistant("Let me look.", "toolUse");
    tool_turn["content"] = json!([
        {"type": "thinking", "thinking": "The user wants a listing."},
        {"type": "text", "text": "Let me look."},
        {"type": "toolCall", "id": "call_1", "name": "list_files", "arguments": {"folder": "Downloads"}},
    ]);
    let mut stopped = assistant("Half an ans", "aborted");
    stopped["errorMessage"] = json!("Request was aborted");
    let messages = vec![
        json!({"role": "user", "content": [
            {"type": "text", "text": "What is in Downloads? 下载文件夹里有什么？"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        ], "timestamp": START_MS}),
        tool_turn,
        json!({"role": "toolResult", "toolCallId": "call_1", "toolName": "list_files",
               "content": [{"type": "text", "text": "report.pdf\n```weird```.txt"}], "isError": false,
               "timestamp": START_MS}),
        json!({"role": "note", "content": "UI-only note", "level": "info", "timestamp": START_MS}),
        assistant(
            "Two files: **report.pdf** and a file with backticks.",
            "stop",
        ),
        user("Thanks"),
        stopped,
    ];
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    for message in &messages {
        recorder.on_message_end(message).unwrap();
    }
    recorder
        .on_message_update(&assistant("Still wri", "pending"))
        .unwrap();
    (conversation.id, messages)
}

#[test]
fn markdown_export_reads_like_the_conversation() {
    let test_store = TestStore::new();
    let (id, _) = sample(&test_store);
    let markdown = test_store
        .store
        .export_conversation(&id, ExportFormat::Markdown, Language::En)
        .unwrap();
    let expected = r#"# What is in Downloads? 下载文件夹里有什么？

Model: `scripted-1`

## User

What is in Downloads? 下载文件夹里有什么？

*[image: image/png]*

## Assistant

<details><summary>Thinking</summary>

The user wants a listing.

</details>

Let me look.

**Tool call** `list_files`

```json
{
  "folder": "Downloads"
}
```

## Tool result: `list_files`

````
report.pdf
```weird```.txt
````

## note

UI-only note

## Assistant

Two files: **report.pdf** and a file with backticks.

## User

Thanks

## Assistant

Half an ans

*Stopped: Request was aborted*

## Assistant

Still wri

*Interrupted before this message was complete.*
"#;
    assert_eq!(markdown, expected);
}

#[test]
fn a_chinese_window_gets_chinese_headings_and_notes_around_the_same_words() {
    let test_store = TestStore::new();
    let (id, _) = sample(&test_store);
    let english = test_store
        .store
        .export_conversation(&id, ExportFormat::Markdown, Language::En)
        .unwrap();
    let chinese = test_store
        .store
        .export_conversation(&id, ExportFormat::Markdown, Language::Zh)
        .unwrap();
    for heading in [
        "模型: `scripted-1`",
        "## 用户\n",
        "## 助手\n",
        "<details><summary>思考过程</summary>",
        "**工具调用** `list_files`",
        "## 工具结果: `list_files`",
        "*[图片: image/png]*",
        "*已停止: Request was aborted*",
        "*这条消息未完成时应用已关闭。*",
    ] {
        assert!(
            chinese.contains(heading),
            "{heading} missing from\n{chinese}"
        );
    }
    for english_only in ["## User", "## Assistant", "Tool call", "Interrupted before"] {
        assert!(
            !chinese.contains(english_only),
            "{english_only} in\n{chinese}"
        );
    }
    // What was written is the same in both: only the added words differ.
    let written = |text: &str| {
        text.lines()
            .filter(|line| {
                !line.starts_with('#') && !line.starts_with('*') && !line.starts_with('<')
            })
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(written(&chinese)[2..], written(&english)[2..]);
}

#[test]
fn json_lines_export_has_a_header_and_every_message_as_pi_json() {
    let test_store = TestStore::new();
    let (id, messages) = sample(&test_store);
    let export = test_store
        .store
        .export_conversation(&id, ExportFormat::JsonLines, Language::En)
        .unwrap();
    assert!(export.ends_with('\n'));
    let lines: Vec<Value> = export
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let mut expected = vec![json!({
        "type": "conversation",
        "id": id.as_str(),
        "title": "What is in Downloads? 下载文件夹里有什么？",
        "model": "scripted-1",
        "createdAt": START_MS,
        "updatedAt": START_MS,
    })];
    for (seq, message) in messages.iter().enumerate() {
        expected.push(json!({"type": "message", "seq": seq, "message": message}));
    }
    expected.push(json!({
        "type": "message", "seq": messages.len(), "interrupted": true,
        "message": assistant("Still wri", "pending"),
    }));
    assert_eq!(lines, expected);
    assert_eq!(ExportFormat::JsonLines.file_extension(), "jsonl");
}
