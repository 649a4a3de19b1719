//! How the real app makes a session: the provider settings resolved by desktop-host (the settings file in its
//! config folder, the stored API keys, then `PI_API`, `PI_BASE_URL`, `PI_MODEL`, `PI_API_KEY` and the provider key variables) and the
//! user's real folders.

use std::collections::HashMap;

use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::session::SessionOptions;
use desktop_host::settings::{ResolveInputs, TcpProbe, resolve_settings};

use crate::command_error::{CommandError, ErrorKind};
use crate::host::SessionFactory;
use crate::settings_service::SettingsService;

/// Resolves the settings anew for every session, so a new conversation sees changed settings; stored keys come
/// from `settings`' key store.
pub(crate) fn from_environment(settings: SettingsService) -> SessionFactory {
    std::sync::Arc::new(move || session_options_from_environment(&settings))
}

fn session_options_from_environment(
    service: &SettingsService,
) -> Result<SessionOptions, CommandError> {
    let env: HashMap<String, String> = std::env::vars().collect();
    let settings_path = service.settings_path();
    let file = service.load()?;
    let settings = resolve_settings(&ResolveInputs {
        file: &file,
        env: &env,
        key_env_override: None,
        key_source: service,
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
