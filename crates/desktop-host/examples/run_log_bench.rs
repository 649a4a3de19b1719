//! Measures what the loop inspector keeps: the stored log of a run of 2,000 text deltas and of a 1 MB answer,
//! streamed through the conversations service into a real SQLite file, with the wire's delta coalescing (16 ms)
//! and without it (every delta its own envelope, the worst case), and the time summarising each log takes.
//!
//! `cargo run --release -p desktop-host --example run_log_bench`

#![allow(clippy::print_stdout, reason = "a benchmark prints its numbers")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use desktop_host::conversations::{
    Conversations, ConversationsOptions, SessionOptionsFactory, summarize_log_lines,
};
use desktop_host::desktop_paths::{DesktopEnv, DesktopPaths};
use desktop_host::session::SessionOptions;
use desktop_host::settings::{
    NoKeySource, ResolveInputs, SettingsFile, TcpProbe, resolve_settings,
};
use pi_agent::{StreamFn, stream_fn};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, DoneReason, StopReason,
    assistant_message_channel,
};

/// A model that answers the text `deltas`, one every `pace`.
fn paced_model(deltas: Arc<Vec<String>>, pace: Duration) -> StreamFn {
    stream_fn(move |model, _context, _options| {
        let deltas = Arc::clone(&deltas);
        async move {
            let (sender, stream) = assistant_message_channel();
            tokio::spawn(async move {
                let mut message = AssistantMessage::empty(&model);
                sender.push(AssistantMessageEvent::Start {
                    partial: message.clone().into(),
                });
                message.content.push(Arc::new(AssistantBlock::text("")));
                sender.push(AssistantMessageEvent::TextStart {
                    content_index: 0,
                    partial: message.clone().into(),
                });
                let mut text = String::new();
                for delta in deltas.iter() {
                    text.push_str(delta);
                    sender.push(AssistantMessageEvent::TextDelta {
                        content_index: 0,
                        delta: delta.clone(),
                        partial: message.clone().into(),
                    });
                    if !pace.is_zero() {
                        tokio::time::sleep(pace).await;
                    }
                }
                message.content[0] = Arc::new(AssistantBlock::text(text.clone()));
                sender.push(AssistantMessageEvent::TextEnd {
                    content_index: 0,
                    content: text,
                    partial: message.clone().into(),
                });
                message.stop_reason = StopReason::Stop;
                sender.push(AssistantMessageEvent::Done {
                    reason: DoneReason::Stop,
                    message: message.into(),
                });
            });
            Ok::<_, pi_agent::StreamFnError>(stream)
        }
    })
}

struct Case {
    name: &'static str,
    deltas: usize,
    delta_bytes: usize,
    pace: Duration,
    coalesce: Duration,
}

async fn measure(case: &Case) -> Result<(), Box<dyn std::error::Error>> {
    let home = tempfile::tempdir()?;
    let downloads = home.path().join("Downloads");
    std::fs::create_dir_all(&downloads)?;
    let paths = DesktopPaths::from_env(&DesktopEnv {
        home: home.path().to_path_buf(),
        vars: Default::default(),
    });
    let env = std::collections::HashMap::from([("PI_API".to_owned(), "scripted".to_owned())]);
    let settings = resolve_settings(&ResolveInputs {
        file: &SettingsFile::default(),
        env: &env,
        key_env_override: None,
        key_source: &NoKeySource,
        probe: &TcpProbe::default(),
        settings_path: None,
    })?;
    let text = prose(case.deltas * case.delta_bytes);
    let deltas: Arc<Vec<String>> = Arc::new(
        text.as_bytes()
            .chunks(case.delta_bytes)
            .map(|chunk| String::from_utf8_lossy(chunk).into_owned())
            .collect(),
    );
    let answer_bytes = text.len();
    let (pace, coalesce) = (case.pace, case.coalesce);
    let factory: SessionOptionsFactory = Arc::new(move || {
        let mut options = SessionOptions::new(settings.clone(), paths.clone());
        options.stream_fn = Some(paced_model(Arc::clone(&deltas), pace));
        options.coalesce_window = coalesce;
        Ok(options)
    });
    let service = Conversations::open(ConversationsOptions::new(
        home.path().join("data"),
        downloads,
        factory,
    ))?;
    let conversation = service.active().await?;
    let (envelope_tx, mut envelopes) = tokio::sync::mpsc::unbounded_channel();
    service.subscribe("bench", Arc::new(envelope_tx));
    let started = Instant::now();
    conversation.session.prompt("go").await?;
    // The run's log is handed to the store when its `idle` passes.
    while let Some(envelope) = envelopes.recv().await {
        if envelope.is_idle() {
            break;
        }
    }
    let streamed = started.elapsed();
    let (service_for_read, id) = (service.clone(), conversation.id.clone());
    let inspection = tokio::task::spawn_blocking(move || service_for_read.inspect(&id)).await??;
    let run = inspection.runs.last().ok_or("no run was kept")?;
    let log_id = run.log_id.ok_or("the run was not stored")?;
    let replay = service
        .run_replay(&conversation.id, log_id)?
        .ok_or("no log")?;
    let read = Instant::now();
    let summaries = summarize_log_lines(&replay.lines);
    let summarised = read.elapsed();
    println!(
        "{:<36} answer {:>8} B  envelopes {:>5}  log {:>8} B as JSON lines, {:>7} B stored ({:.2}× the answer)  summary in {:>5.2} ms  (streamed in {:.2} s, {} turn)",
        case.name,
        answer_bytes,
        replay.lines.len(),
        run.raw_bytes,
        run.bytes,
        run.bytes as f64 / answer_bytes as f64,
        summarised.as_secs_f64() * 1000.0,
        streamed.as_secs_f64(),
        summaries.last().map_or(0, |summary| summary.turns.len()),
    );
    Ok(())
}

/// `length` bytes of words drawn from a fixed pseudo-random sequence: text that compresses like prose, not like
/// one repeated letter.
fn prose(length: usize) -> String {
    const WORDS: [&str; 16] = [
        "the ",
        "agent ",
        "loop ",
        "calls ",
        "a ",
        "tool ",
        "and ",
        "reads ",
        "its ",
        "result ",
        "then ",
        "answers ",
        "with ",
        "files ",
        "from ",
        "Downloads. ",
    ];
    let mut state: u64 = 7;
    let mut text = String::with_capacity(length + 16);
    while text.len() < length {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        text.push_str(WORDS[usize::try_from(state >> 60).unwrap_or(0)]);
    }
    text.truncate(length);
    text
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cases = [
        Case {
            name: "2,000 deltas, 1 ms apart",
            deltas: 2_000,
            delta_bytes: 5,
            pace: Duration::from_millis(1),
            coalesce: desktop_host::wire::COALESCE_WINDOW,
        },
        Case {
            name: "2,000 deltas, no coalescing",
            deltas: 2_000,
            delta_bytes: 5,
            pace: Duration::ZERO,
            coalesce: Duration::ZERO,
        },
        Case {
            name: "1 MB answer, 1 KB deltas 1 ms apart",
            deltas: 1_024,
            delta_bytes: 1024,
            pace: Duration::from_millis(1),
            coalesce: desktop_host::wire::COALESCE_WINDOW,
        },
        Case {
            name: "1 MB answer, no coalescing",
            deltas: 1_024,
            delta_bytes: 1024,
            pace: Duration::ZERO,
            coalesce: Duration::ZERO,
        },
    ];
    for case in &cases {
        measure(case).await?;
    }
    Ok(())
}
