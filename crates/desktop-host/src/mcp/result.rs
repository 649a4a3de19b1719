//! A `tools/call` result (the server's JSON) as pi's tool result: text and images to the model, embedded
//! resources as their text, resource links as a line naming them, `structuredContent` and the resources into
//! `details`, and `isError` as an error result. Output the model gets is capped with a visible marker.

use pi_agent::{AgentToolResult, ToolError};
use pi_ai::{ImageContent, UserBlock};
use serde_json::{Value, json};

/// The most text of one result the model gets.
pub const MAX_RESULT_TEXT: usize = 100_000;

/// What the model is told instead of an image when it cannot read images.
pub const IMAGE_PLACEHOLDER: &str = "[image: this model does not take images]";

/// Turns `result` into the tool result; `takes_images` says whether images go to the model.
pub fn tool_result(result: &Value, takes_images: bool) -> Result<AgentToolResult, ToolError> {
    let mut blocks: Vec<UserBlock> = Vec::new();
    let mut resources = Vec::new();
    let mut text_budget = MAX_RESULT_TEXT;
    let mut cut = false;
    let mut push_text = |blocks: &mut Vec<UserBlock>, text: &str| {
        if text_budget == 0 {
            cut |= !text.is_empty();
            return;
        }
        let kept: String = text.chars().take(text_budget).collect();
        cut |= kept.len() < text.len();
        text_budget = text_budget.saturating_sub(kept.chars().count());
        blocks.push(UserBlock::text(kept));
    };
    for block in result["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => push_text(&mut blocks, block["text"].as_str().unwrap_or_default()),
            Some("image") => match (block["data"].as_str(), block["mimeType"].as_str()) {
                (Some(data), Some(mime_type)) if takes_images => {
                    blocks.push(UserBlock::Image(ImageContent {
                        data: data.to_owned(),
                        mime_type: mime_type.to_owned(),
                    }));
                }
                _ => push_text(&mut blocks, IMAGE_PLACEHOLDER),
            },
            Some("resource") => {
                let resource = &block["resource"];
                match resource["text"].as_str() {
                    Some(text) => push_text(&mut blocks, text),
                    None => push_text(
                        &mut blocks,
                        &format!("[resource {}]", resource["uri"].as_str().unwrap_or("?")),
                    ),
                }
                resources.push(block.clone());
            }
            Some("resource_link") => {
                let name = block["name"]
                    .as_str()
                    .or(block["title"].as_str())
                    .unwrap_or("resource");
                let uri = block["uri"].as_str().unwrap_or("?");
                push_text(&mut blocks, &format!("[resource link: {name} <{uri}>]"));
                resources.push(block.clone());
            }
            Some("audio") => push_text(&mut blocks, "[audio: not passed to the model]"),
            _ => {}
        }
    }
    if cut {
        blocks.push(UserBlock::text(format!(
            "[output cut: the tool returned more than {MAX_RESULT_TEXT} characters]"
        )));
    }
    if result["isError"].as_bool() == Some(true) {
        let message: Vec<String> = blocks
            .iter()
            .filter_map(|block| match block {
                UserBlock::Text(text) => Some(text.text.to_string()),
                UserBlock::Image(_) => None,
            })
            .collect();
        let message = message.join("\n");
        return Err(ToolError::new(if message.is_empty() {
            "the tool reported an error without a message".to_owned()
        } else {
            message
        }));
    }
    let mut details = json!({});
    if let Some(structured) = result
        .get("structuredContent")
        .filter(|value| !value.is_null())
    {
        details["structuredContent"] = structured.clone();
    }
    if !resources.is_empty() {
        details["resources"] = Value::Array(resources);
    }
    Ok(AgentToolResult::new(blocks, details))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(result: &AgentToolResult) -> Vec<String> {
        result
            .content
            .iter()
            .flatten()
            .map(|block| match block {
                UserBlock::Text(text) => text.text.to_string(),
                UserBlock::Image(image) => format!("image {}", image.mime_type),
            })
            .collect()
    }

    #[test]
    fn text_images_resources_and_structured_content_land_where_the_model_and_the_ui_read_them() {
        let result = json!({"content": [
            {"type": "text", "text": "Here:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "demo://a", "text": "A's text"}},
            {"type": "resource_link", "uri": "demo://b", "name": "B"}
        ], "structuredContent": {"sum": 5}});

        let with_images = tool_result(&result, true).unwrap();
        let without = tool_result(&result, false).unwrap();

        assert_eq!(
            texts(&with_images),
            [
                "Here:",
                "image image/png",
                "A's text",
                "[resource link: B <demo://b>]"
            ]
        );
        assert_eq!(texts(&without)[1], IMAGE_PLACEHOLDER);
        assert_eq!(
            with_images.details.as_ref().unwrap()["structuredContent"],
            json!({"sum": 5})
        );
        assert_eq!(
            with_images.details.as_ref().unwrap()["resources"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn is_error_becomes_an_error_result_and_long_output_is_cut_with_a_marker() {
        let error = tool_result(
            &json!({"content": [{"type": "text", "text": "Access denied"}], "isError": true}),
            true,
        );
        assert_eq!(error.unwrap_err().message(), "Access denied");

        let long = "x".repeat(MAX_RESULT_TEXT + 10);
        let cut = tool_result(&json!({"content": [{"type": "text", "text": long}]}), true).unwrap();
        let texts = texts(&cut);
        assert_eq!(texts[0].len(), MAX_RESULT_TEXT);
        assert!(texts[1].starts_with("[output cut"));
    }
}
