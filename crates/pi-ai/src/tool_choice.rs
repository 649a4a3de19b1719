//! `toolChoice`: every form one of pi-ai 0.85.1's adapters takes, and the one each API is sent.
//!
//! pi passes the value through per API: Anthropic Messages takes `"auto" | "any" | "none" | {type: "tool",
//! name}` and wraps a word as `{"type": word}`; OpenAI Chat Completions takes the SDK's
//! `ChatCompletionToolChoiceOption`; OpenAI Responses the Responses API's `tool_choice`. A value written
//! for one API is refused by another with [`UnsupportedToolChoice`] before any request is sent.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

/// A tool choice in the wire form of the API it was written for (its JSON is that form).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolChoice {
    /// `"auto"`: the model decides (every API).
    Auto,
    /// `"none"`: no tool calls (every API).
    None,
    /// `"any"`: some tool must be called (Anthropic Messages).
    Any,
    /// `"required"`: some tool must be called (both OpenAI APIs).
    Required,
    /// `{"type": "tool", "name"}`: this tool (Anthropic Messages).
    Tool {
        /// The tool's name.
        name: String,
    },
    /// `{"type": "function", "function": {"name"}}`: this function (Chat Completions).
    ChatFunction {
        /// The function's name.
        name: String,
    },
    /// `{"type": "custom", "custom": {"name"}}`: this custom tool (Chat Completions).
    ChatCustom {
        /// The custom tool's name.
        name: String,
    },
    /// `{"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}` (Chat Completions).
    ChatAllowedTools {
        /// Whether one of the tools must be called.
        mode: AllowedToolsMode,
        /// The tool definitions the model may pick from, as the API takes them.
        tools: Vec<Map<String, Value>>,
    },
    /// `{"type": "function", "name"}`: this function (Responses).
    Function {
        /// The function's name.
        name: String,
    },
    /// `{"type": "custom", "name"}`: this custom tool (Responses).
    Custom {
        /// The custom tool's name.
        name: String,
    },
    /// `{"type": "allowed_tools", "mode", "tools"}` (Responses).
    AllowedTools {
        /// Whether one of the tools must be called.
        mode: AllowedToolsMode,
        /// The tool definitions the model may pick from, as the API takes them.
        tools: Vec<Map<String, Value>>,
    },
    /// `{"type": "mcp", "server_label", "name"?}`: a tool of a remote MCP server (Responses).
    Mcp {
        /// The server's label.
        server_label: String,
        /// One tool of that server; `None` = any of them.
        name: Option<String>,
    },
    /// `{"type": <hosted tool>}`: a tool the provider runs (Responses).
    Hosted(HostedTool),
}

/// `mode` of an allowed-tools choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AllowedToolsMode {
    /// The model may call one of the tools.
    Auto,
    /// The model must call one of the tools.
    Required,
}

/// The hosted tools a Responses tool choice can name by `type` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostedTool {
    /// `file_search`.
    FileSearch,
    /// `web_search_preview`.
    WebSearchPreview,
    /// `web_search_preview_2025_03_11`.
    #[serde(rename = "web_search_preview_2025_03_11")]
    WebSearchPreview20250311,
    /// `computer`.
    Computer,
    /// `computer_use_preview`.
    ComputerUsePreview,
    /// `computer_use`.
    ComputerUse,
    /// `image_generation`.
    ImageGeneration,
    /// `code_interpreter`.
    CodeInterpreter,
    /// `mcp` without a server label.
    Mcp,
    /// `apply_patch`.
    ApplyPatch,
    /// `shell`.
    Shell,
}

/// The APIs whose tool-choice forms differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolChoiceApi {
    /// `anthropic-messages`.
    AnthropicMessages,
    /// `openai-completions`.
    OpenAiCompletions,
    /// `openai-responses`.
    OpenAiResponses,
}

impl ToolChoiceApi {
    fn name(self) -> &'static str {
        match self {
            Self::AnthropicMessages => "anthropic-messages",
            Self::OpenAiCompletions => "openai-completions",
            Self::OpenAiResponses => "openai-responses",
        }
    }

    fn accepted(self) -> &'static str {
        match self {
            Self::AnthropicMessages => {
                "\"auto\", \"any\", \"none\" or {\"type\": \"tool\", \"name\"}"
            }
            Self::OpenAiCompletions => {
                "\"none\", \"auto\", \"required\", {\"type\": \"function\", \"function\": {\"name\"}}, \
                 {\"type\": \"custom\", \"custom\": {\"name\"}} or {\"type\": \"allowed_tools\", \
                 \"allowed_tools\": {\"mode\", \"tools\"}}"
            }
            Self::OpenAiResponses => {
                "\"none\", \"auto\", \"required\", {\"type\": \"function\", \"name\"}, {\"type\": \"custom\", \
                 \"name\"}, {\"type\": \"allowed_tools\", \"mode\", \"tools\"}, {\"type\": \"mcp\", \
                 \"server_label\"} or a hosted tool's {\"type\"}"
            }
        }
    }
}

/// A tool choice the API it was given to cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool choice {choice} is not accepted by the {api} API, which takes {accepted}")]
pub struct UnsupportedToolChoice {
    /// The choice, as JSON.
    pub choice: String,
    /// The API's name.
    pub api: &'static str,
    /// The forms the API takes.
    pub accepted: &'static str,
}

impl ToolChoice {
    /// The `tool_choice` sent to `api`, as pi sends it (Anthropic gets a word wrapped as `{"type": word}`).
    pub fn to_request(&self, api: ToolChoiceApi) -> Result<Value, UnsupportedToolChoice> {
        let accepted = match (api, self) {
            (ToolChoiceApi::AnthropicMessages, Self::Auto | Self::Any | Self::None) => {
                return Ok(json!({"type": self.to_json()}));
            }
            (ToolChoiceApi::AnthropicMessages, Self::Tool { .. })
            | (
                ToolChoiceApi::OpenAiCompletions,
                Self::Auto
                | Self::None
                | Self::Required
                | Self::ChatFunction { .. }
                | Self::ChatCustom { .. }
                | Self::ChatAllowedTools { .. },
            )
            | (
                ToolChoiceApi::OpenAiResponses,
                Self::Auto
                | Self::None
                | Self::Required
                | Self::Function { .. }
                | Self::Custom { .. }
                | Self::AllowedTools { .. }
                | Self::Mcp { .. }
                | Self::Hosted(_),
            ) => true,
            (
                ToolChoiceApi::AnthropicMessages,
                Self::Required
                | Self::ChatFunction { .. }
                | Self::ChatCustom { .. }
                | Self::ChatAllowedTools { .. }
                | Self::Function { .. }
                | Self::Custom { .. }
                | Self::AllowedTools { .. }
                | Self::Mcp { .. }
                | Self::Hosted(_),
            )
            | (
                ToolChoiceApi::OpenAiCompletions,
                Self::Any
                | Self::Tool { .. }
                | Self::Function { .. }
                | Self::Custom { .. }
                | Self::AllowedTools { .. }
                | Self::Mcp { .. }
                | Self::Hosted(_),
            )
            | (
                ToolChoiceApi::OpenAiResponses,
                Self::Any
                | Self::Tool { .. }
                | Self::ChatFunction { .. }
                | Self::ChatCustom { .. }
                | Self::ChatAllowedTools { .. },
            ) => false,
        };
        if accepted {
            Ok(self.to_json())
        } else {
            Err(UnsupportedToolChoice {
                choice: self.to_json().to_string(),
                api: api.name(),
                accepted: api.accepted(),
            })
        }
    }

    /// The choice's own wire form.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Auto => json!("auto"),
            Self::None => json!("none"),
            Self::Any => json!("any"),
            Self::Required => json!("required"),
            Self::Tool { name } => json!({"type": "tool", "name": name}),
            Self::ChatFunction { name } => json!({"type": "function", "function": {"name": name}}),
            Self::ChatCustom { name } => json!({"type": "custom", "custom": {"name": name}}),
            Self::ChatAllowedTools { mode, tools } => {
                json!({"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": tools}})
            }
            Self::Function { name } => json!({"type": "function", "name": name}),
            Self::Custom { name } => json!({"type": "custom", "name": name}),
            Self::AllowedTools { mode, tools } => {
                json!({"type": "allowed_tools", "mode": mode, "tools": tools})
            }
            Self::Mcp { server_label, name } => {
                let mut map = Map::new();
                map.insert("type".into(), json!("mcp"));
                map.insert("server_label".into(), json!(server_label));
                if let Some(name) = name {
                    map.insert("name".into(), json!(name));
                }
                Value::Object(map)
            }
            Self::Hosted(tool) => json!({"type": tool}),
        }
    }

    /// Reads any of the forms; the error names what was wrong.
    pub fn from_json(value: &Value) -> Result<Self, InvalidToolChoice> {
        let invalid = |why: String| InvalidToolChoice {
            value: value.to_string(),
            why,
        };
        let object = match value {
            Value::String(word) => {
                return match word.as_str() {
                    "auto" => Ok(Self::Auto),
                    "none" => Ok(Self::None),
                    "any" => Ok(Self::Any),
                    "required" => Ok(Self::Required),
                    _ => Err(invalid(
                        "the words are \"auto\", \"none\", \"any\" and \"required\"".into(),
                    )),
                };
            }
            Value::Object(object) => object,
            _ => {
                return Err(invalid(
                    "expected a word or an object with a \"type\"".into(),
                ));
            }
        };
        let text = |map: &Map<String, Value>, key: &str| {
            map.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| invalid(format!("\"{key}\" must be a string")))
        };
        let nested = |key: &str| {
            object
                .get(key)
                .and_then(Value::as_object)
                .ok_or_else(|| invalid(format!("\"{key}\" must be an object")))
        };
        let allowed = |map: &Map<String, Value>| {
            let mode = map
                .get("mode")
                .cloned()
                .and_then(|m| serde_json::from_value::<AllowedToolsMode>(m).ok())
                .ok_or_else(|| invalid("\"mode\" must be \"auto\" or \"required\"".into()))?;
            let tools = map
                .get("tools")
                .and_then(Value::as_array)
                .and_then(|tools| {
                    tools
                        .iter()
                        .map(|t| t.as_object().cloned())
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| invalid("\"tools\" must be an array of objects".into()))?;
            Ok((mode, tools))
        };
        let kind = text(object, "type")?;
        match kind.as_str() {
            "tool" => Ok(Self::Tool {
                name: text(object, "name")?,
            }),
            "function" if object.contains_key("function") => Ok(Self::ChatFunction {
                name: text(nested("function")?, "name")?,
            }),
            "function" => Ok(Self::Function {
                name: text(object, "name")?,
            }),
            "custom" if object.contains_key("custom") => Ok(Self::ChatCustom {
                name: text(nested("custom")?, "name")?,
            }),
            "custom" => Ok(Self::Custom {
                name: text(object, "name")?,
            }),
            "allowed_tools" if object.contains_key("allowed_tools") => {
                let (mode, tools) = allowed(nested("allowed_tools")?)?;
                Ok(Self::ChatAllowedTools { mode, tools })
            }
            "allowed_tools" => {
                let (mode, tools) = allowed(object)?;
                Ok(Self::AllowedTools { mode, tools })
            }
            "mcp" if object.contains_key("server_label") => Ok(Self::Mcp {
                server_label: text(object, "server_label")?,
                name: object
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }),
            other => serde_json::from_value::<HostedTool>(json!(other))
                .map(Self::Hosted)
                .map_err(|_| invalid(format!("unknown type {other:?}"))),
        }
    }
}

/// A value that is none of the tool-choice forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool choice {value}: {why}")]
pub struct InvalidToolChoice {
    /// The value, as JSON.
    pub value: String,
    /// What is wrong with it.
    pub why: String,
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_json(&value).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> ToolChoice {
        ToolChoice::from_json(&value).unwrap()
    }

    #[test]
    fn every_form_reads_back_as_itself() {
        for value in [
            json!("auto"),
            json!("none"),
            json!("any"),
            json!("required"),
            json!({"type": "tool", "name": "read"}),
            json!({"type": "function", "function": {"name": "read"}}),
            json!({"type": "custom", "custom": {"name": "patch"}}),
            json!({"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "read"}}]}}),
            json!({"type": "function", "name": "read"}),
            json!({"type": "custom", "name": "patch"}),
            json!({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "read"}]}),
            json!({"type": "mcp", "server_label": "docs", "name": "search"}),
            json!({"type": "mcp", "server_label": "docs"}),
            json!({"type": "mcp"}),
            json!({"type": "web_search_preview"}),
            json!({"type": "web_search_preview_2025_03_11"}),
            json!({"type": "apply_patch"}),
        ] {
            let choice: ToolChoice = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&choice).unwrap(), value);
        }
    }

    #[test]
    fn anthropic_gets_words_wrapped_and_its_tool_object_as_is() {
        let api = ToolChoiceApi::AnthropicMessages;
        assert_eq!(
            ToolChoice::Any.to_request(api).unwrap(),
            json!({"type": "any"})
        );
        assert_eq!(
            ToolChoice::None.to_request(api).unwrap(),
            json!({"type": "none"})
        );
        let tool = parse(json!({"type": "tool", "name": "read"}));
        assert_eq!(
            tool.to_request(api).unwrap(),
            json!({"type": "tool", "name": "read"})
        );
    }

    #[test]
    fn the_openai_apis_get_the_value_as_written() {
        let chat = parse(json!({"type": "function", "function": {"name": "read"}}));
        assert_eq!(
            chat.to_request(ToolChoiceApi::OpenAiCompletions).unwrap(),
            json!({"type": "function", "function": {"name": "read"}})
        );
        let hosted = parse(json!({"type": "file_search"}));
        assert_eq!(
            hosted.to_request(ToolChoiceApi::OpenAiResponses).unwrap(),
            json!({"type": "file_search"})
        );
        assert_eq!(
            ToolChoice::Required
                .to_request(ToolChoiceApi::OpenAiResponses)
                .unwrap(),
            json!("required")
        );
    }

    #[test]
    fn a_form_of_another_api_is_refused_with_what_the_api_takes() {
        let error = ToolChoice::Any
            .to_request(ToolChoiceApi::OpenAiCompletions)
            .unwrap_err();
        assert_eq!(error.api, "openai-completions");
        assert!(error.to_string().starts_with(
            "tool choice \"any\" is not accepted by the openai-completions API, which takes \"none\""
        ));
        let responses_form = parse(json!({"type": "function", "name": "read"}));
        assert!(
            responses_form
                .to_request(ToolChoiceApi::OpenAiCompletions)
                .is_err()
        );
        assert!(
            ToolChoice::Required
                .to_request(ToolChoiceApi::AnthropicMessages)
                .is_err()
        );
        let chat_form = parse(json!({"type": "function", "function": {"name": "read"}}));
        assert!(
            chat_form
                .to_request(ToolChoiceApi::OpenAiResponses)
                .is_err()
        );
    }

    #[test]
    fn a_value_of_no_form_says_what_is_wrong() {
        let error = ToolChoice::from_json(&json!("sometimes")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid tool choice \"sometimes\": the words are \"auto\", \"none\", \"any\" and \"required\""
        );
        let error = ToolChoice::from_json(&json!({"type": "tool"})).unwrap_err();
        assert!(error.to_string().ends_with("\"name\" must be a string"));
        let error = ToolChoice::from_json(&json!({"type": "telepathy"})).unwrap_err();
        assert!(error.to_string().ends_with("unknown type \"telepathy\""));
    }
}
