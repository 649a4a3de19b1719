//! The `scripted` API (`PI_API=scripted`): a deterministic model without network, for demos, offline use of
//! `pi-chat` and tests of everything above the model layer.
//!
//! Its script reads the context: when the last message is a user prompt mentioning "pdf" and the
//! `list_download_files` tool is offered, it calls that tool with `{"extensions":["pdf"]}`; when the last message
//! is a tool result, it answers with a sentence quoting that result; otherwise it echoes the prompt. Text streams
//! word by word. A cancelled signal ends the stream with `error(aborted)` as every provider must.

use std::sync::Arc;

use pi_ai::{
    Api, ApiProvider, AssistantBlock, AssistantMessage, AssistantMessageEvent,
    AssistantMessageEventStream, Context, DoneReason, ErrorReason, Message, Model,
    SimpleStreamOptions, StopReason, ToolCall, UserBlock, UserContent, assistant_message_channel,
};
use serde_json::json;

/// The scripted API implementation.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScriptedModel;

/// What the script does next.
enum ScriptStep {
    CallTool {
        name: String,
        arguments: serde_json::Value,
    },
    Answer(String),
}

impl ApiProvider for ScriptedModel {
    fn api(&self) -> Api {
        Api::SCRIPTED
    }

    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let (sender, stream) = assistant_message_channel();
        let step = next_step(&context);
        let cancel_token = options.base.signal;
        let is_cancelled = move || {
            cancel_token
                .as_ref()
                .is_some_and(|token| token.is_cancelled())
        };
        let mut message = AssistantMessage::empty(&model);
        if is_cancelled() {
            sender.push(aborted(message));
            return stream;
        }
        sender.push(AssistantMessageEvent::Start {
            partial: message.clone().into(),
        });
        match step {
            ScriptStep::CallTool { name, arguments } => {
                let content_index = message.content.len();
                let call_id = format!("scripted_call_{}", context.messages.len());
                message.content.push(Arc::new(AssistantBlock::tool_call(
                    &call_id,
                    &name,
                    json!({}),
                )));
                sender.push(AssistantMessageEvent::ToolcallStart {
                    content_index,
                    partial: message.clone().into(),
                });
                let tool_call = ToolCall::new(call_id, name, arguments);
                message.content[content_index] =
                    Arc::new(AssistantBlock::ToolCall(tool_call.clone()));
                sender.push(AssistantMessageEvent::ToolcallDelta {
                    content_index,
                    delta: tool_call.arguments.to_string(),
                    partial: message.clone().into(),
                });
                sender.push(AssistantMessageEvent::ToolcallEnd {
                    content_index,
                    tool_call: Box::new(tool_call),
                    partial: message.clone().into(),
                });
                message.stop_reason = StopReason::ToolUse;
                sender.push(AssistantMessageEvent::Done {
                    reason: DoneReason::ToolUse,
                    message: message.into(),
                });
            }
            ScriptStep::Answer(text) => {
                let content_index = message.content.len();
                message.content.push(Arc::new(AssistantBlock::text("")));
                sender.push(AssistantMessageEvent::TextStart {
                    content_index,
                    partial: message.clone().into(),
                });
                let mut so_far = String::new();
                for word in text.split_inclusive(' ') {
                    if is_cancelled() {
                        sender.push(aborted(message));
                        return stream;
                    }
                    so_far.push_str(word);
                    message.content[content_index] = Arc::new(AssistantBlock::text(so_far.clone()));
                    sender.push(AssistantMessageEvent::TextDelta {
                        content_index,
                        delta: word.to_owned(),
                        partial: message.clone().into(),
                    });
                }
                sender.push(AssistantMessageEvent::TextEnd {
                    content_index,
                    content: so_far,
                    partial: message.clone().into(),
                });
                message.stop_reason = StopReason::Stop;
                sender.push(AssistantMessageEvent::Done {
                    reason: DoneReason::Stop,
                    message: message.into(),
                });
            }
        }
        stream
    }
}

fn aborted(mut message: AssistantMessage) -> AssistantMessageEvent {
    message.stop_reason = StopReason::Aborted;
    message.error_message = Some("Request was aborted".to_owned());
    AssistantMessageEvent::Error {
        reason: ErrorReason::Aborted,
        error: message.into(),
    }
}

fn next_step(context: &Context) -> ScriptStep {
    let offers_listing = context
        .tools
        .as_ref()
        .is_some_and(|tools| tools.iter().any(|tool| tool.name == "list_download_files"));
    match context.messages.last() {
        Some(Message::ToolResult(result)) => {
            let text: Vec<String> = result
                .content
                .iter()
                .filter_map(|block| match block {
                    UserBlock::Text(text) => Some(text.text.as_str().to_string()),
                    UserBlock::Image(_) => None,
                })
                .collect();
            let quoted: String = text.join("\n").chars().take(2_000).collect();
            ScriptStep::Answer(format!("The {} tool returned: {quoted}", result.tool_name))
        }
        Some(Message::User(user)) => {
            let prompt = match &user.content {
                UserContent::Text(text) => text.clone(),
                UserContent::Blocks(blocks) => blocks
                    .iter()
                    .filter_map(|block| match block {
                        UserBlock::Text(text) => Some(text.text.as_str().to_string()),
                        UserBlock::Image(_) => None,
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            if offers_listing && prompt.to_lowercase().contains("pdf") {
                ScriptStep::CallTool {
                    name: "list_download_files".to_owned(),
                    arguments: json!({"extensions": ["pdf"]}),
                }
            } else {
                ScriptStep::Answer(format!("(scripted) You said: {prompt}"))
            }
        }
        Some(Message::Assistant(_)) | None => {
            ScriptStep::Answer("(scripted) Nothing to answer.".to_owned())
        }
    }
}
