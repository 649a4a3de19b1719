use std::sync::atomic::{AtomicUsize, Ordering};

use pretty_assertions::assert_eq;

use super::*;
use crate::settings::api_key::NoKeySource;

struct FixedProbe {
    reachable: bool,
    calls: AtomicUsize,
}

impl FixedProbe {
    fn new(reachable: bool) -> FixedProbe {
        FixedProbe {
            reachable,
            calls: AtomicUsize::new(0),
        }
    }
}

impl LocalServerProbe for FixedProbe {
    fn is_reachable(&self, base_url: &str) -> bool {
        assert_eq!(base_url, OLLAMA_DEFAULT_BASE_URL);
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.reachable
    }
}

struct MapKeySource(HashMap<String, String>);

impl ApiKeySource for MapKeySource {
    fn api_key(&self, provider: &str) -> Result<Option<ApiKey>, String> {
        Ok(self.0.get(provider).map(|key| ApiKey::new(key.as_str())))
    }
}

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
}

fn resolve_with(
    file: &SettingsFile,
    env: &HashMap<String, String>,
    key_source: &dyn ApiKeySource,
    probe: &dyn LocalServerProbe,
) -> Result<ResolvedSettings, SettingsError> {
    resolve_settings(&ResolveInputs {
        file,
        env,
        key_env_override: None,
        key_source,
        probe,
        settings_path: Some(Path::new("/home/u/.config/pi-desktop/settings.json")),
    })
}

#[test]
fn nothing_configured_uses_a_reachable_local_ollama() {
    let probe = FixedProbe::new(true);
    let resolved = resolve_with(&SettingsFile::default(), &env(&[]), &NoKeySource, &probe).unwrap();
    assert_eq!(resolved.preset, Some(ProviderPreset::Ollama));
    assert_eq!(resolved.choice, ProviderChoice::LocalOllama);
    assert_eq!(resolved.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(resolved.api, "openai-completions");
    assert_eq!(resolved.api_key, None);
    assert_eq!(probe.calls.load(Ordering::SeqCst), 1);
}

#[test]
fn nothing_configured_and_no_ollama_says_what_to_set() {
    let error = resolve_with(
        &SettingsFile::default(),
        &env(&[]),
        &NoKeySource,
        &FixedProbe::new(false),
    )
    .unwrap_err();
    let text = error.to_string();
    for needle in [
        "PI_API",
        "PI_BASE_URL",
        "PI_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "settings.json",
    ] {
        assert!(text.contains(needle), "{text} lacks {needle}");
    }
}

#[test]
fn environment_overrides_the_file_which_overrides_the_preset() {
    let file = SettingsFile {
        provider: Some(ProviderPreset::Deepseek),
        model: Some("deepseek-reasoner".to_owned()),
        thinking_level: Some(ModelThinkingLevel::High),
        ..SettingsFile::default()
    };
    let probe = FixedProbe::new(true);
    let resolved = resolve_with(
        &file,
        &env(&[("DEEPSEEK_API_KEY", "sk-d"), ("LANG", "zh_CN.UTF-8")]),
        &NoKeySource,
        &probe,
    )
    .unwrap();
    assert_eq!(resolved.model, "deepseek-reasoner");
    assert_eq!(resolved.base_url, "https://api.deepseek.com");
    assert_eq!(resolved.thinking_level, ModelThinkingLevel::High);
    assert_eq!(resolved.api_key.as_ref().map(ApiKey::expose), Some("sk-d"));
    assert_eq!(
        resolved.api_key_origin,
        Some(ApiKeyOrigin::Env("DEEPSEEK_API_KEY".to_owned()))
    );
    assert_eq!(resolved.language, Language::Zh);
    assert_eq!(resolved.system_prompt, DEFAULT_SYSTEM_PROMPT_ZH);

    let overridden = resolve_with(
        &file,
        &env(&[
            ("PI_MODEL", "x-model"),
            ("PI_BASE_URL", "http://127.0.0.1:9/v1"),
            ("PI_API_KEY", "sk-pi"),
        ]),
        &NoKeySource,
        &probe,
    )
    .unwrap();
    assert_eq!(overridden.model, "x-model");
    assert_eq!(overridden.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(
        overridden.api_key_origin,
        Some(ApiKeyOrigin::Env("PI_API_KEY".to_owned()))
    );
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn pi_api_alone_picks_the_matching_preset_and_a_custom_url_needs_no_key() {
    let resolved = resolve_with(
        &SettingsFile::default(),
        &env(&[
            ("PI_API", "openai-completions"),
            ("PI_BASE_URL", "http://127.0.0.1:4000/v1"),
            ("PI_MODEL", "m"),
        ]),
        &NoKeySource,
        &FixedProbe::new(false),
    )
    .unwrap();
    assert_eq!(resolved.provider, "openai");
    assert_eq!(resolved.api, "openai-completions");
    assert_eq!(resolved.api_key, None);
}

#[test]
fn hosted_presets_without_a_key_name_the_variable() {
    let file = SettingsFile {
        provider: Some(ProviderPreset::Qwen),
        ..SettingsFile::default()
    };
    let error = resolve_with(&file, &env(&[]), &NoKeySource, &FixedProbe::new(true)).unwrap_err();
    assert!(
        matches!(&error, SettingsError::MissingApiKey { key_env, .. } if key_env == "DASHSCOPE_API_KEY")
    );
}

#[test]
fn the_key_source_is_consulted_after_the_environment() {
    let file = SettingsFile {
        provider: Some(ProviderPreset::Anthropic),
        ..SettingsFile::default()
    };
    let key_source = MapKeySource(
        [("anthropic".to_owned(), "sk-stored".to_owned())]
            .into_iter()
            .collect(),
    );
    let stored = resolve_with(&file, &env(&[]), &key_source, &FixedProbe::new(false)).unwrap();
    assert_eq!(
        stored.api_key.as_ref().map(ApiKey::expose),
        Some("sk-stored")
    );
    assert_eq!(stored.api_key_origin, Some(ApiKeyOrigin::KeySource));
    let from_env = resolve_with(
        &file,
        &env(&[("ANTHROPIC_API_KEY", "sk-env")]),
        &key_source,
        &FixedProbe::new(false),
    )
    .unwrap();
    assert_eq!(
        from_env.api_key.as_ref().map(ApiKey::expose),
        Some("sk-env")
    );
    // The resolved settings are safe to log.
    assert!(!format!("{from_env:?}").contains("sk-env"));
}

#[test]
fn a_key_in_the_environment_selects_its_provider_when_nothing_else_is_set() {
    let resolved = resolve_with(
        &SettingsFile::default(),
        &env(&[("OPENAI_API_KEY", "sk-o")]),
        &NoKeySource,
        &FixedProbe::new(true),
    )
    .unwrap();
    assert_eq!(resolved.preset, Some(ProviderPreset::Openai));
    assert_eq!(
        resolved.choice,
        ProviderChoice::KeyInEnvironment("OPENAI_API_KEY")
    );
}

#[test]
fn api_key_env_flag_reads_the_named_variable_or_fails() {
    let file = SettingsFile {
        provider: Some(ProviderPreset::Openrouter),
        ..SettingsFile::default()
    };
    let vars = env(&[("MY_KEY", "sk-mine"), ("PI_API_KEY", "sk-pi")]);
    let probe = FixedProbe::new(false);
    let inputs = |key_env_override| ResolveInputs {
        file: &file,
        env: &vars,
        key_env_override,
        key_source: &NoKeySource,
        probe: &probe,
        settings_path: None,
    };
    let resolved = resolve_settings(&inputs(Some("MY_KEY"))).unwrap();
    assert_eq!(
        resolved.api_key.as_ref().map(ApiKey::expose),
        Some("sk-mine")
    );
    assert!(matches!(
        resolve_settings(&inputs(Some("NOPE"))),
        Err(SettingsError::KeyEnvNotSet { .. })
    ));
}

#[test]
fn unknown_apis_are_refused() {
    let error = resolve_with(
        &SettingsFile::default(),
        &env(&[("PI_API", "carrier-pigeon")]),
        &NoKeySource,
        &FixedProbe::new(true),
    )
    .unwrap_err();
    assert!(matches!(error, SettingsError::UnknownApi { .. }));
}

#[test]
fn scripted_needs_no_key_and_no_url() {
    let resolved = resolve_with(
        &SettingsFile::default(),
        &env(&[("PI_API", "scripted")]),
        &NoKeySource,
        &FixedProbe::new(false),
    )
    .unwrap();
    assert_eq!(
        (
            resolved.api.as_str(),
            resolved.provider.as_str(),
            resolved.base_url.as_str()
        ),
        ("scripted", "scripted", "")
    );
}

#[test]
fn authority_parsing_adds_default_ports() {
    assert_eq!(
        authority_of("http://127.0.0.1:11434/v1").as_deref(),
        Some("127.0.0.1:11434")
    );
    assert_eq!(
        authority_of("https://api.openai.com/v1").as_deref(),
        Some("api.openai.com:443")
    );
    assert_eq!(authority_of("nonsense"), None);
}
