//! Provider presets: the API, base URL, default model and key variable of each provider the app knows.

use serde::{Deserialize, Serialize};

/// A provider the settings can name by id instead of spelling out API, URL and model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderPreset {
    /// OpenAI (Responses API).
    Openai,
    /// Anthropic (Messages API).
    Anthropic,
    /// DeepSeek (OpenAI-compatible chat completions).
    Deepseek,
    /// OpenRouter (OpenAI-compatible chat completions).
    Openrouter,
    /// Qwen through DashScope's OpenAI-compatible mode.
    Qwen,
    /// A local Ollama server.
    Ollama,
    /// A local llama.cpp server (`llama-server`).
    #[serde(rename = "llamacpp", alias = "llama.cpp")]
    LlamaCpp,
    /// Any other OpenAI-compatible server (vLLM, LM Studio, a company gateway): its base URL is typed, and its
    /// key has a slot of its own.
    Custom,
}

/// What a preset fills in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PresetDefaults {
    /// pi's provider id (used for auth look-ups and shown in the UI).
    pub provider: &'static str,
    /// The wire protocol.
    pub api: &'static str,
    /// The endpoint base.
    pub base_url: &'static str,
    /// The model used when none is configured.
    pub model: &'static str,
    /// The environment variable holding the key; `None` for local servers that need none.
    pub key_env: Option<&'static str>,
}

/// Ollama's default address (its OpenAI-compatible endpoint lives under `/v1`).
pub const OLLAMA_DEFAULT_BASE_URL: &str = "http://127.0.0.1:11434/v1";

impl ProviderPreset {
    /// Every preset.
    pub const ALL: [ProviderPreset; 8] = [
        ProviderPreset::Openai,
        ProviderPreset::Anthropic,
        ProviderPreset::Deepseek,
        ProviderPreset::Openrouter,
        ProviderPreset::Qwen,
        ProviderPreset::Ollama,
        ProviderPreset::LlamaCpp,
        ProviderPreset::Custom,
    ];

    /// The preset's defaults.
    pub fn defaults(self) -> PresetDefaults {
        match self {
            ProviderPreset::Openai => PresetDefaults {
                provider: "openai",
                api: "openai-responses",
                base_url: "https://api.openai.com/v1",
                model: "gpt-4.1-mini",
                key_env: Some("OPENAI_API_KEY"),
            },
            ProviderPreset::Anthropic => PresetDefaults {
                provider: "anthropic",
                api: "anthropic-messages",
                base_url: "https://api.anthropic.com",
                model: "claude-sonnet-4-5",
                key_env: Some("ANTHROPIC_API_KEY"),
            },
            ProviderPreset::Deepseek => PresetDefaults {
                provider: "deepseek",
                api: "openai-completions",
                base_url: "https://api.deepseek.com",
                model: "deepseek-chat",
                key_env: Some("DEEPSEEK_API_KEY"),
            },
            ProviderPreset::Openrouter => PresetDefaults {
                provider: "openrouter",
                api: "openai-completions",
                base_url: "https://openrouter.ai/api/v1",
                model: "openai/gpt-4.1-mini",
                key_env: Some("OPENROUTER_API_KEY"),
            },
            ProviderPreset::Qwen => PresetDefaults {
                provider: "dashscope",
                api: "openai-completions",
                base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
                model: "qwen-plus",
                key_env: Some("DASHSCOPE_API_KEY"),
            },
            ProviderPreset::Ollama => PresetDefaults {
                provider: "ollama",
                api: "openai-completions",
                base_url: OLLAMA_DEFAULT_BASE_URL,
                model: "llama3.2",
                key_env: None,
            },
            ProviderPreset::LlamaCpp => PresetDefaults {
                provider: "llama.cpp",
                api: "openai-completions",
                base_url: "http://127.0.0.1:8080/v1",
                model: "default",
                key_env: None,
            },
            // The base URL is the user's; this one only fills the field. Its own endpoint never demands a key
            // (resolution asks for one only at a preset's hosted endpoint), yet one kept for it is sent.
            ProviderPreset::Custom => PresetDefaults {
                provider: "custom",
                api: "openai-completions",
                base_url: "http://127.0.0.1:8000/v1",
                model: "default",
                key_env: Some("PI_API_KEY"),
            },
        }
    }

    /// The settings-file name (`"openai"`, `"llamacpp"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderPreset::Openai => "openai",
            ProviderPreset::Anthropic => "anthropic",
            ProviderPreset::Deepseek => "deepseek",
            ProviderPreset::Openrouter => "openrouter",
            ProviderPreset::Qwen => "qwen",
            ProviderPreset::Ollama => "ollama",
            ProviderPreset::LlamaCpp => "llamacpp",
            ProviderPreset::Custom => "custom",
        }
    }

    /// Parses a settings-file or command-line name.
    pub fn parse(name: &str) -> Option<ProviderPreset> {
        let name = name.trim().to_lowercase();
        if name == "llama.cpp" {
            return Some(ProviderPreset::LlamaCpp);
        }
        ProviderPreset::ALL
            .into_iter()
            .find(|preset| preset.as_str() == name)
    }
}
