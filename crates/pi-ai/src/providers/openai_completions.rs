//! `openai-completions`: OpenAI Chat Completions and the servers that speak it (Ollama, llama.cpp server,
//! vLLM, LM Studio, DeepSeek, OpenRouter, DashScope compatible mode, …).
//!
//! Request building follows pi-ai 0.85.1 including its per-provider compatibility switches (`compat`,
//! detected from the provider id and base URL, overridable per model); streaming follows its chunk
//! translation (`stream`).
//!
//! * `compat` — the switches and their string-valued settings;
//! * `messages` — the transcript as Chat Completions messages;
//! * `reasoning_details` — OpenRouter's `reasoning_details`, replayed and streamed;
//! * `request` — the body and the session-affinity headers;
//! * `stream` — chunks into events and the final stop reason.

mod compat;
mod messages;
mod reasoning_details;
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

/// The `openai-completions` implementation.
#[derive(Clone)]
pub struct OpenAiCompletions {
    client: HttpClient,
}

impl OpenAiCompletions {
    /// Uses `client` for every request (share one client between adapters to share connections).
    pub fn new(client: impl Into<HttpClient>) -> Self {
        Self {
            client: client.into(),
        }
    }
}

impl ApiProvider for OpenAiCompletions {
    fn api(&self) -> Api {
        Api::OPENAI_COMPLETIONS
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

impl Protocol for OpenAiCompletions {
    type Compat = Compat;

    const ENDPOINT: Endpoint = Endpoint::openai("/chat/completions");

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
