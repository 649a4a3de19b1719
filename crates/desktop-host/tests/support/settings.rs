//! Provider settings for the tests: the scripted (offline, deterministic) model.

use std::collections::HashMap;

use desktop_host::settings::{
    NoKeySource, ResolveInputs, ResolvedSettings, SettingsFile, TcpProbe, resolve_settings,
};

/// The settings `PI_API=scripted` resolves to, with nothing else configured.
pub(crate) fn scripted_settings() -> ResolvedSettings {
    let env: HashMap<String, String> = [("PI_API".to_owned(), "scripted".to_owned())]
        .into_iter()
        .collect();
    resolve_settings(&ResolveInputs {
        file: &SettingsFile::default(),
        env: &env,
        key_env_override: None,
        key_source: &NoKeySource,
        probe: &TcpProbe::default(),
        settings_path: None,
    })
    .unwrap()
}
