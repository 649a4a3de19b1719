//! A long, structured Markdown answer delivered as many small deltas, and a probe of how the window answers
//! while it arrives: a one-line script round trip over WebDriver every [`PROBE_INTERVAL`].
//!
//! Each section is a heading, a paragraph with bold, inline code and a link, a nested list, a small table and
//! a closed `rust` fence (about 300 characters), so a 1 MB answer has some 3,400 sections and 17,000 blocks.

use std::ops::Deref;
use std::time::{Duration, Instant};

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{OpenAiServer, Reply};
use serde_json::Value;

/// How often the window is asked to answer a script.
pub(crate) const PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// The answer's text: whole sections until it holds at least `min_chars` characters (ASCII only).
pub(crate) fn markdown_answer(min_chars: usize) -> LongAnswer {
    let mut text = String::with_capacity(min_chars + 512);
    let mut sections = 0;
    while text.len() < min_chars {
        let i = sections;
        text.push_str(&format!(
            "## Section {i}\n\n\
             Paragraph {i} has **bold text**, inline `code_{i}()` and a [link](https://example.com/{i}).\n\n\
             - item {i}.1\n  - nested {i}.1.a\n  - nested {i}.1.b\n- item {i}.2\n\n\
             | key | value |\n|-----|-------|\n| a{i} | {i} |\n\n\
             ```rust\nfn section_{i}() -> u32 {{\n    {i}\n}}\n```\n\n"
        ));
        sections += 1;
    }
    LongAnswer { text, sections }
}

/// The text and how many sections it has (the last heading is `Section {sections - 1}`).
pub(crate) struct LongAnswer {
    pub(crate) text: String,
    pub(crate) sections: usize,
}

impl LongAnswer {
    /// The text cut into deltas of `chars` characters (the last may be shorter).
    pub(crate) fn deltas(&self, chars: usize) -> Vec<&str> {
        self.text
            .as_bytes()
            .chunks(chars)
            .map(|chunk| std::str::from_utf8(chunk).unwrap())
            .collect()
    }

    /// The heading text of the last section.
    pub(crate) fn last_heading(&self) -> String {
        format!("Section {}", self.sections - 1)
    }
}

/// A model server on a runtime of its own. Building a stream of hundreds of thousands of chunks and writing it
/// keep a thread busy for seconds; on the probe's runtime that would delay the probe's own round trips and be
/// counted against the window. A real model server is another machine.
pub(crate) struct ServerApart {
    server: Option<OpenAiServer>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl ServerApart {
    pub(crate) async fn start(replies: Vec<Reply>) -> ServerApart {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("model-server")
            .enable_all()
            .build()
            .unwrap();
        let server = runtime
            .spawn(OpenAiServer::start(replies))
            .await
            .unwrap()
            .unwrap();
        ServerApart {
            server: Some(server),
            runtime: Some(runtime),
        }
    }
}

impl Deref for ServerApart {
    type Target = OpenAiServer;

    fn deref(&self) -> &OpenAiServer {
        self.server.as_ref().unwrap()
    }
}

impl Drop for ServerApart {
    fn drop(&mut self) {
        drop(self.server.take());
        // Called from async code, where a runtime may not block to shut down.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// What the probe saw between Send and the moment the window showed idle with the whole answer.
pub(crate) struct Responsiveness {
    /// Every script round trip, in order.
    pub(crate) round_trips: Vec<Duration>,
    /// From the first probe to the first probe that saw the run idle.
    pub(crate) until_idle: Duration,
    /// Whether the whole answer (its last heading) was on screen in the same probe that first saw idle.
    pub(crate) complete_at_idle: bool,
}

impl Responsiveness {
    /// The round trip at quantile `q` (0..=1), nearest rank.
    pub(crate) fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.round_trips.clone();
        sorted.sort();
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss,
            reason = "a rank within a short list"
        )]
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    pub(crate) fn max(&self) -> Duration {
        self.round_trips.iter().copied().max().unwrap_or_default()
    }

    pub(crate) fn summary(&self) -> String {
        format!(
            "{} probes, p50 {:?}, p95 {:?}, max {:?}, idle after {:?}",
            self.round_trips.len(),
            self.quantile(0.5),
            self.quantile(0.95),
            self.max(),
            self.until_idle
        )
    }
}

/// The probe's script: as cheap as `return 1` while the run goes on. Finding the status line walks the document in
/// order, past every node of the answer, so it is looked up once and kept (React keeps the element); once it
/// reads idle, the script also says whether the answer's last heading is on screen.
const PROBE_SCRIPT: &str = r#"
let status = window.__probedRunStatus;
if (status === undefined || !status.isConnected) {
  status = document.querySelector('[data-testid="run-status"]');
  window.__probedRunStatus = status === null ? undefined : status;
}
const state = status === null || status === undefined ? null : status.getAttribute("data-state");
if (state !== "idle") return [state, false];
const headings = document.querySelectorAll('[data-testid="assistant-text"] h2');
const last = headings.length === 0 ? null : headings[headings.length - 1].textContent;
return [state, last === arguments[0]];
"#;

/// Probes the window every [`PROBE_INTERVAL`] until it reads idle, or `deadline` passed (then panics with
/// what it saw). Call it right after Send.
pub(crate) async fn probe_until_idle(
    app: &AppUnderTest,
    last_heading: &str,
    deadline: Duration,
) -> Responsiveness {
    let started = Instant::now();
    let mut ticks = tokio::time::interval(PROBE_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut round_trips = Vec::new();
    // The run starts when the prompt reaches the host; until the status has left idle once, idle is the old one.
    let mut left_idle = false;
    loop {
        ticks.tick().await;
        let sent = Instant::now();
        let answer = app
            .client()
            .execute(PROBE_SCRIPT, vec![Value::from(last_heading)])
            .await
            .unwrap();
        round_trips.push(sent.elapsed());
        let state = answer[0].as_str().unwrap_or_default();
        if state != "idle" {
            left_idle = true;
        } else if left_idle {
            return Responsiveness {
                round_trips,
                until_idle: started.elapsed(),
                complete_at_idle: answer[1].as_bool() == Some(true),
            };
        }
        let so_far = Responsiveness {
            round_trips: round_trips.clone(),
            until_idle: started.elapsed(),
            complete_at_idle: false,
        };
        assert!(
            started.elapsed() < deadline,
            "the window did not reach idle within {deadline:?}: {}",
            so_far.summary()
        );
    }
}
