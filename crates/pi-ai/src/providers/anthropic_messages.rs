//! placeholder
use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::model::{Api, Model};
use crate::options::SimpleStreamOptions;
use crate::provider::ApiProvider;

/// The adapter.
#[derive(Clone)]
pub struct AnthropicMessages {
    client: reqwest::Client,
}

impl AnthropicMessages {
    /// Uses `client` for every request.
    pub fn new(client: reqwest::Client) -> Self {
        Self { client }
    }
}

impl ApiProvider for AnthropicMessages {
    fn api(&self) -> Api {
        Api::ANTHROPIC_MESSAGES
    }

    fn stream_simple(&self, model: Model, _context: Context, _options: SimpleStreamOptions) -> AssistantMessageEventStream {
        let _ = &self.client;
        super::common::spawn_stream(model, |_, mut output| async move { output.fail(false, "not yet".into()) })
    }
}
