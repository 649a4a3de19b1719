//! Exporting a conversation: Markdown for people, JSON lines for programs.

use std::fmt::Write as _;

use serde_json::Value;

use crate::language::Language;

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::message_text::{role_of, text_of_block};
use super::store_handle::Store;
use super::transcript::{EntryState, Transcript, TranscriptEntry};

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ExportFormat {
    /// A readable document: a heading per message of the shown branch (naming its version where it has several),
    /// tool calls and results as code blocks.
    Markdown,
    /// One JSON object per line: first `{"type":"conversation",…}` with the conversation's fields, then one
    /// `{"type":"message","seq":n,"message":{pi JSON}}` per message of the shown branch (with
    /// `"interrupted":true` when it is, and `"version":v,"versions":n` where there is more than one version).
    JsonLines,
}

impl ExportFormat {
    /// The usual file extension, without the dot.
    pub fn file_extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::JsonLines => "jsonl",
        }
    }
}

impl Store {
    /// The conversation in the given format, a Markdown document's headings and notes in `language` (the
    /// window's); the caller writes it wherever the user chose.
    pub fn export_conversation(
        &self,
        id: &ConversationId,
        format: ExportFormat,
        language: Language,
    ) -> Result<String, StoreError> {
        let transcript = self.load_transcript(id)?;
        match format {
            ExportFormat::Markdown => Ok(to_markdown(&transcript, Labels::of(language))),
            ExportFormat::JsonLines => to_json_lines(&transcript),
        }
    }
}

/// The words a Markdown export adds around what was written.
struct Labels {
    untitled: &'static str,
    model: &'static str,
    user: &'static str,
    assistant: &'static str,
    tool_result: &'static str,
    tool_error: &'static str,
    tool_call: &'static str,
    thinking: &'static str,
    image: &'static str,
    error: &'static str,
    stopped: &'static str,
    interrupted: &'static str,
    /// Before the messages of a conversation with several versions somewhere.
    branch_note: &'static str,
    /// `{v}` of `{n}`, after a heading.
    version: &'static str,
}

impl Labels {
    fn of(language: Language) -> &'static Labels {
        match language {
            Language::En => &Labels {
                untitled: "Untitled conversation",
                model: "Model",
                user: "User",
                assistant: "Assistant",
                tool_result: "Tool result",
                tool_error: " (error)",
                tool_call: "Tool call",
                thinking: "Thinking",
                image: "image",
                error: "Error",
                stopped: "Stopped",
                interrupted: "Interrupted before this message was complete.",
                branch_note: "This is the branch shown in Pi Desktop; other versions are kept in the app.",
                version: "version {v} of {n}",
            },
            Language::Zh => &Labels {
                untitled: "未命名对话",
                model: "模型",
                user: "用户",
                assistant: "助手",
                tool_result: "工具结果",
                tool_error: "（出错）",
                tool_call: "工具调用",
                thinking: "思考过程",
                image: "图片",
                error: "错误",
                stopped: "已停止",
                interrupted: "这条消息未完成时应用已关闭。",
                branch_note: "这是 Pi Desktop 中显示的分支；其他版本保存在应用里。",
                version: "第 {v} 版，共 {n} 版",
            },
        }
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ConversationLine<'a> {
    r#type: &'static str,
    id: &'a str,
    title: Option<&'a str>,
    model: Option<&'a str>,
    created_at: i64,
    updated_at: i64,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageLine<'a> {
    r#type: &'static str,
    seq: i64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    versions: Option<u32>,
    message: &'a Value,
}

fn to_json_lines(transcript: &Transcript) -> Result<String, StoreError> {
    let conversation = &transcript.conversation;
    let header = ConversationLine {
        r#type: "conversation",
        id: conversation.id.as_str(),
        title: conversation.title.as_deref(),
        model: conversation.model.as_deref(),
        created_at: conversation.created_at,
        updated_at: conversation.updated_at,
    };
    let mut output = serde_json::to_string(&header).map_err(StoreError::Serialise)?;
    output.push('\n');
    for entry in &transcript.entries {
        let line = MessageLine {
            r#type: "message",
            seq: entry.seq,
            interrupted: entry.state == EntryState::Interrupted,
            version: (entry.versions > 1).then_some(entry.version),
            versions: (entry.versions > 1).then_some(entry.versions),
            message: &entry.message,
        };
        output.push_str(&serde_json::to_string(&line).map_err(StoreError::Serialise)?);
        output.push('\n');
    }
    Ok(output)
}

fn to_markdown(transcript: &Transcript, labels: &Labels) -> String {
    let conversation = &transcript.conversation;
    let mut output = format!(
        "# {}\n",
        conversation.title.as_deref().unwrap_or(labels.untitled)
    );
    if let Some(model) = &conversation.model {
        let _ = write!(output, "\n{}: `{model}`\n", labels.model);
    }
    if transcript.entries.iter().any(|entry| entry.versions > 1) {
        let _ = write!(output, "\n*{}*\n", labels.branch_note);
    }
    for entry in &transcript.entries {
        output.push('\n');
        write_entry(&mut output, entry, labels);
    }
    output
}

fn write_entry(output: &mut String, entry: &TranscriptEntry, labels: &Labels) {
    let message = &entry.message;
    let role = role_of(message).unwrap_or("message");
    let version = if entry.versions > 1 {
        format!(
            " ({})",
            labels
                .version
                .replace("{v}", &entry.version.to_string())
                .replace("{n}", &entry.versions.to_string())
        )
    } else {
        String::new()
    };
    match role {
        "user" => {
            let _ = writeln!(output, "## {}{version}", labels.user);
        }
        "assistant" => {
            let _ = writeln!(output, "## {}{version}", labels.assistant);
        }
        "toolResult" => {
            let tool_name = message
                .get("toolName")
                .and_then(Value::as_str)
                .unwrap_or("tool");
            let is_error = message.get("isError").and_then(Value::as_bool) == Some(true);
            let _ = writeln!(
                output,
                "## {}: `{tool_name}`{}",
                labels.tool_result,
                if is_error { labels.tool_error } else { "" }
            );
        }
        custom => {
            let _ = writeln!(output, "## {custom}");
        }
    }
    match message.get("content") {
        Some(Value::String(text)) => write_paragraph(output, text, role),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                write_block(output, block, role, labels);
            }
        }
        Some(_) | None => {
            if !matches!(role, "user" | "assistant" | "toolResult") {
                write_fenced(output, "json", &pretty(message));
            }
        }
    }
    if role == "assistant" {
        match message.get("stopReason").and_then(Value::as_str) {
            Some("error") => write_note(output, labels.error, message),
            Some("aborted") => write_note(output, labels.stopped, message),
            Some(_) | None => {}
        }
    }
    if entry.state == EntryState::Interrupted {
        let _ = write!(output, "\n*{}*\n", labels.interrupted);
    }
}

fn write_block(output: &mut String, block: &Value, role: &str, labels: &Labels) {
    if let Some(text) = text_of_block(block) {
        write_paragraph(output, text, role);
        return;
    }
    match block.get("type").and_then(Value::as_str) {
        Some("thinking") => {
            let thinking = block
                .get("thinking")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !thinking.trim().is_empty() {
                let _ = write!(
                    output,
                    "\n<details><summary>{}</summary>\n\n",
                    labels.thinking
                );
                output.push_str(thinking.trim_end());
                output.push_str("\n\n</details>\n");
            }
        }
        Some("toolCall") => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
            let _ = write!(output, "\n**{}** `{name}`\n", labels.tool_call);
            write_fenced(
                output,
                "json",
                &pretty(block.get("arguments").unwrap_or(&Value::Null)),
            );
        }
        Some("image") => {
            let mime_type = block
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or(labels.image);
            let _ = write!(output, "\n*[{}: {mime_type}]*\n", labels.image);
        }
        Some(_) | None => write_fenced(output, "json", &pretty(block)),
    }
}

/// Tool output is shown verbatim in a code block; what people and models wrote is Markdown already.
fn write_paragraph(output: &mut String, text: &str, role: &str) {
    if role == "toolResult" {
        write_fenced(output, "", text);
    } else if !text.trim().is_empty() {
        output.push('\n');
        output.push_str(text.trim_end());
        output.push('\n');
    }
}

fn write_note(output: &mut String, label: &str, message: &Value) {
    match message.get("errorMessage").and_then(Value::as_str) {
        Some(error_message) => {
            let _ = write!(output, "\n*{label}: {error_message}*\n");
        }
        None => {
            let _ = write!(output, "\n*{label}.*\n");
        }
    }
}

/// A fenced code block whose fence is longer than any backtick run inside, so the content cannot close it.
fn write_fenced(output: &mut String, language: &str, content: &str) {
    let mut longest_run = 0;
    let mut run = 0;
    for character in content.chars() {
        run = if character == '`' { run + 1 } else { 0 };
        longest_run = longest_run.max(run);
    }
    let fence = "`".repeat(longest_run.max(2) + 1);
    let _ = write!(
        output,
        "\n{fence}{language}\n{}\n{fence}\n",
        content.trim_end_matches('\n')
    );
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
