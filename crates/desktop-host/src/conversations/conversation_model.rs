//! The model chosen for one conversation (the header's model picker): stored with the conversation and given to
//! its session, whose next turn uses it (a run in progress keeps the model it started with). A conversation opened
//! again starts on its stored model, and saved settings leave an open conversation on its own model as long as
//! they keep the provider its session talks to (another provider would not have that model).

use crate::session::{DesktopSession, SessionOptions};
use crate::settings::ResolvedSettings;
use crate::store::{ConversationId, Store};

use super::{Conversations, ConversationsError};

impl Conversations {
    /// Stores `model` (a trimmed, non-empty id) for conversation `id` and applies `settings` with that model to
    /// its open session, if any.
    pub fn set_conversation_model(
        &self,
        id: &ConversationId,
        model: &str,
        settings: &ResolvedSettings,
    ) -> Result<(), ConversationsError> {
        self.inner.store.set_model(id, model)?;
        if let Some(session) = self.open_session(id) {
            let mut settings = settings.clone();
            settings.model = model.to_owned();
            session.apply_settings(&settings)?;
        }
        Ok(())
    }
}

/// The options of a session for stored conversation `id` on the model stored with it, when one is.
pub(super) fn with_stored_model(store: &Store, id: &ConversationId, options: &mut SessionOptions) {
    match store.conversation(id) {
        Ok(summary) => {
            if let Some(model) = summary.model.filter(|model| !model.trim().is_empty()) {
                options.settings.model = model;
            }
        }
        Err(error) => {
            tracing::warn!(%error, conversation = %id.as_str(), "no stored model; the settings' model is used");
        }
    }
}

/// `settings` for the open session of conversation `id`: on the model stored with it when the settings keep the
/// provider the session talks to now; else on the settings' model, which then is the one stored.
pub(super) fn keeping_own_model(
    store: &Store,
    id: &ConversationId,
    session: &DesktopSession,
    settings: &ResolvedSettings,
) -> ResolvedSettings {
    let mut own = settings.clone();
    let same_provider = session.state_without_versions().model.provider == settings.provider;
    let stored = store
        .conversation(id)
        .ok()
        .and_then(|summary| summary.model)
        .filter(|model| !model.trim().is_empty());
    match stored {
        Some(model) if same_provider => own.model = model,
        _ => {
            if let Err(error) = store.set_model(id, &settings.model) {
                tracing::warn!(%error, conversation = %id.as_str(), "the conversation's new model was not stored");
            }
        }
    }
    own
}
