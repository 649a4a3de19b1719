use std::sync::Arc;

use serde_json::json;

use super::{NO_RESULT_PROVIDED, USER_IMAGE_PLACEHOLDER, transform_messages};
use crate::content::{AssistantBlock, ImageContent, ThinkingContent, ToolCall, UserBlock};
use crate::message::{
    AssistantMessage, Message, StopReason, ToolResultMessage, UserContent, UserMessage,
};
use crate::model::{Api, InputModality, Model};

fn model(id: &str) -> Model {
    let mut model = Model::unknown();
    model.id = id.into();
    model.api = Api::OPENAI_COMPLETIONS;
    model.provider = "openai".into();
    model.input = vec![InputModality::Text];
    model
}

fn assistant(from: &Model, blocks: Vec<AssistantBlock>, stop_reason: StopReason) -> Message {
    let mut message = AssistantMessage::empty(from);
    message.content = blocks.into_iter().map(Arc::new).collect();
    message.stop_reason = stop_reason;
    Message::Assistant(message)
}

fn tool_result(id: &str) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "echo".into(),
        content: vec![UserBlock::text("ok")],
        details: None,
        usage: None,
        added_tool_names: None,
        is_error: false,
        timestamp: 1,
    })
}

fn blocks(message: &Message) -> Vec<AssistantBlock> {
    match message {
        Message::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| block.as_ref().clone())
            .collect(),
        Message::User(_) | Message::ToolResult(_) => Vec::new(),
    }
}

#[test]
fn thinking_from_another_model_becomes_text_and_loses_signatures() {
    let target = model("b");
    let mut signed = ThinkingContent::new("reasoned");
    signed.thinking_signature = Some("sig".into());
    let mut call = ToolCall::new("call|1", "echo", json!({}));
    call.thought_signature = Some("thought".into());
    let messages = vec![
        assistant(
            &model("a"),
            vec![signed.into(), AssistantBlock::thinking("  "), call.into()],
            StopReason::ToolUse,
        ),
        tool_result("call|1"),
    ];
    let out = transform_messages(&messages, &target, |id| id.replace('|', "_"));
    assert_eq!(
        blocks(&out[0]),
        vec![
            AssistantBlock::text("reasoned"),
            AssistantBlock::tool_call("call_1", "echo", json!({}))
        ]
    );
    let Message::ToolResult(result) = &out[1] else {
        panic!("expected the tool result, got {:?}", out[1])
    };
    assert_eq!(result.tool_call_id, "call_1");
}

#[test]
fn same_model_keeps_signed_empty_thinking_and_drops_unsigned_empty_thinking() {
    let target = model("a");
    let mut signed_empty = ThinkingContent::new("");
    signed_empty.thinking_signature = Some("sig".into());
    let messages = vec![assistant(
        &target,
        vec![
            signed_empty.clone().into(),
            AssistantBlock::thinking(""),
            AssistantBlock::thinking("kept"),
        ],
        StopReason::Stop,
    )];
    let out = transform_messages(&messages, &target, str::to_owned);
    assert_eq!(
        blocks(&out[0]),
        vec![signed_empty.into(), AssistantBlock::thinking("kept")]
    );
}

#[test]
fn failed_assistant_messages_are_skipped_and_orphaned_calls_get_synthetic_results() {
    let target = model("a");
    let messages = vec![
        assistant(
            &target,
            vec![
                AssistantBlock::tool_call("c1", "echo", json!({})),
                AssistantBlock::tool_call("c2", "echo", json!({})),
            ],
            StopReason::ToolUse,
        ),
        tool_result("c1"),
        Message::User(UserMessage::new("next")),
        assistant(
            &target,
            vec![AssistantBlock::text("partial")],
            StopReason::Aborted,
        ),
        assistant(
            &target,
            vec![AssistantBlock::tool_call("c3", "echo", json!({}))],
            StopReason::ToolUse,
        ),
    ];
    let out = transform_messages(&messages, &target, str::to_owned);
    let summary: Vec<String> = out
        .iter()
        .map(|message| match message {
            Message::ToolResult(result) => {
                let text = match &result.content[0] {
                    UserBlock::Text(text) => text.text.to_string(),
                    UserBlock::Image(_) => String::new(),
                };
                format!(
                    "toolResult:{}:{}:{}",
                    result.tool_call_id, result.is_error, text
                )
            }
            other => other.role().to_owned(),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            "assistant".to_owned(),
            "toolResult:c1:false:ok".to_owned(),
            format!("toolResult:c2:true:{NO_RESULT_PROVIDED}"),
            "user".to_owned(),
            "assistant".to_owned(),
            format!("toolResult:c3:true:{NO_RESULT_PROVIDED}"),
        ]
    );
}

#[test]
fn image_runs_become_one_placeholder_for_text_only_models() {
    let image = UserBlock::Image(ImageContent {
        data: "AA==".into(),
        mime_type: "image/png".into(),
    });
    let content = vec![
        image.clone(),
        image.clone(),
        UserBlock::text("between"),
        image,
    ];
    let messages = vec![Message::User(UserMessage {
        content: UserContent::Blocks(content),
        timestamp: 1,
    })];
    let out = transform_messages(&messages, &model("a"), str::to_owned);
    let Message::User(user) = &out[0] else {
        panic!("expected a user message")
    };
    assert_eq!(
        user.content,
        UserContent::Blocks(vec![
            UserBlock::text(USER_IMAGE_PLACEHOLDER),
            UserBlock::text("between"),
            UserBlock::text(USER_IMAGE_PLACEHOLDER),
        ])
    );
}
