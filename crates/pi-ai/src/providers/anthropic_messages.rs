//! `anthropic-messages`: the Anthropic Messages API (also served by Kimi, MiniMax, OpenRouter and gateways),
//! as pi-ai 0.85.1 speaks it.
//!
//! * `compat` — the settings read from the model's `compat`;
//! * `messages` — the transcript as Anthropic messages;
//! * `request` — the body and the beta features;
//! * `stream` — events into blocks and the final stop reason.

mod compat;
mod messages;
mod request;
mod stream;

use std::future::Future;

use compat::Compat;

use super::client::HttpClient;
use super::exchange::{self, Call, Endpoint, KeyHeader, Opened, Protocol, Request};
use super::sse::LineBreaks;
use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::model::{Api, Model};
use crate::options::SimpleStreamOptions;
use crate::provider::ApiProvider;
use crate::tool_choice::UnsupportedToolChoice;

/// The `anthropic-messages` implementation.
#[derive(Clone)]
pub struct AnthropicMessages {
    client: HttpClient,
}

impl AnthropicMessages {
    /// Uses `client` for every request.
    pub fn new(client: impl Into<HttpClient>) -> Self {
        Self {
            client: client.into(),
        }
    }
}

impl ApiProvider for AnthropicMessages {
    fn api(&self) -> Api {
        Api::ANTHROPIC_MESSAGES
    }

    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        exchange::stream::<Self>(&self.client, model, context, options)
    }
}

impl Protocol for AnthropicMessages {
    type Compat = Compat;

    const ENDPOINT: Endpoint = Endpoint {
        path: "/v1/messages?beta=true",
        protocol_headers: &[
            ("anthropic-version", "2023-06-01"),
            ("anthropic-dangerous-direct-browser-access", "true"),
        ],
        key_header: KeyHeader::XApiKey,
        restream_replaced_payload: true,
        line_breaks: LineBreaks::SplitCrLfAcrossReads,
    };

    fn compat(model: &Model) -> Compat {
        Compat::for_model(model)
    }

    fn request(call: &Call<'_, Compat>) -> Result<Request, UnsupportedToolChoice> {
        request::build(call)
    }

    fn read(call: &Call<'_, Compat>, response: Opened) -> impl Future<Output = ()> + Send {
        stream::read(call, response)
    }
}
