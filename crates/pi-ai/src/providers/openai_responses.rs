//! `openai-responses`: the OpenAI Responses API, as pi-ai 0.85.1 speaks it.
//!
//! * `compat` — the settings read from the model's `compat`;
//! * `custom_input` — the streamed input of a custom tool call;
//! * `ids` — tool-call ids, text signatures and pi's short hash;
//! * `messages` — the transcript as input items;
//! * `request` — the body and the session-affinity headers;
//! * `stream` — events into blocks and the final stop reason.

mod compat;
mod custom_input;
mod ids;
mod messages;
mod request;
mod stream;

use std::future::Future;

use compat::Compat;

use super::client::HttpClient;
use super::exchange::{self, Call, Endpoint, Opened, Protocol, Request};
use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::model::{Api, Model};
use crate::options::SimpleStreamOptions;
use crate::provider::ApiProvider;
use crate::tool_choice::UnsupportedToolChoice;

/// The `openai-responses` implementation.
#[derive(Clone)]
pub struct OpenAiResponses {
    client: HttpClient,
}

impl OpenAiResponses {
    /// Uses `client` for every request.
    pub fn new(client: impl Into<HttpClient>) -> Self {
        Self {
            client: client.into(),
        }
    }
}

impl ApiProvider for OpenAiResponses {
    fn api(&self) -> Api {
        Api::OPENAI_RESPONSES
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

impl Protocol for OpenAiResponses {
    type Compat = Compat;

    const ENDPOINT: Endpoint = Endpoint::openai("/responses");

    fn compat(model: &Model) -> Compat {
        Compat::for_model(model)
    }

    fn request(call: &Call<'_, Compat>) -> Result<Request, UnsupportedToolChoice> {
        Ok(Request {
            body: request::build_body(call)?,
            headers: request::session_headers(call),
            ..Request::default()
        })
    }

    fn read(call: &Call<'_, Compat>, response: Opened) -> impl Future<Output = ()> + Send {
        stream::read(call, response)
    }
}
