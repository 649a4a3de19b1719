//! How the real app makes a session: the provider settings resolved by desktop-host (the settings file in its
//! config folder, then `PI_API`, `PI_BASE_URL`, `PI_MODEL`, `PI_API_KEY` and the provider key variables) and the
//! user's real folders.

use std::collections::HashMap;

use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::session::SessionOptions;
use desktop_host::settings::{
    NoKeySource, ResolveInputs, SETTINGS_FILE_NAME, SettingsFile, TcpProbe, default_config_dir,
    load_settings, resolve_settings,
};

use crate::command_error::{CommandError, ErrorKind};
use crate::host::SessionFactory;

/// Resolves the settings anew for every session, so a new conversation sees changed settings.
pub(crate) fn from_environment() -> SessionFactory {
    std::sync::Arc::new(session_options_from_environment)
}

fn session_options_from_environment() -> Result<SessionOptions, CommandError> {
    let env: HashMap<String, String> = std::env::vars().collect();
    let settings_path = default_config_dir().map(|dir| dir.join(SETTINGS_FILE_NAME));
    let file = match &settings_path {
        Some(path) => load_settings(path)
            .map_err(|error| CommandError::new(ErrorKind::Settings, error.to_string()))?,
        None => SettingsFile::default(),
    };
    let settings = resolve_settings(&ResolveInputs {
        file: &file,
        env: &env,
        key_env_override: None,
        key_source: &NoKeySource,
        probe: &TcpProbe::default(),
        settings_path: settings_path.as_deref(),
    })
    .map_err(|error| CommandError::from(&error))?;
    let paths = DesktopPaths::detect().ok_or_else(|| {
        CommandError::new(
            ErrorKind::Internal,
            "Cannot find your home folder; set HOME and restart the app.",
        )
    })?;
    Ok(SessionOptions::new(settings, paths))
}
