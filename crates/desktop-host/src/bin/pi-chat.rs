//! `pi-chat`: the terminal front end of the desktop host.
//!
//! `pi-chat --prompt TEXT` runs one prompt with the desktop tools and streams the answer to stdout; without
//! `--prompt` it is an interactive chat (Ctrl-C stops the current answer, a second Ctrl-C quits). `--json` prints
//! the wire envelopes as JSON lines instead. `--api`, `--base-url`, `--model` and `--api-key-env` mirror `PI_API`,
//! `PI_BASE_URL`, `PI_MODEL` and the key variable. Logs go to stderr (`RUST_LOG`, default `warn`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a terminal front end prints its answers"
)]

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::session::{DesktopSession, SessionError, SessionOptions};
use desktop_host::settings::{
    NoKeySource, ResolveInputs, SETTINGS_FILE_NAME, SettingsFile, TcpProbe, default_config_dir,
    load_settings, resolve_settings,
};
use desktop_host::wire::{Envelope, EnvelopePayload, HostNotice};
use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

/// Command line of `pi-chat`.
#[derive(Debug, Parser)]
#[command(
    name = "pi-chat",
    about = "Chat with the desktop assistant in a terminal"
)]
struct Cli {
    /// Run this one prompt and exit (otherwise: interactive chat).
    #[arg(long)]
    prompt: Option<String>,
    /// Print the wire envelopes as JSON lines instead of the answer text.
    #[arg(long)]
    json: bool,
    /// Wire API (PI_API): openai-completions, openai-responses, anthropic-messages, scripted.
    #[arg(long)]
    api: Option<String>,
    /// Endpoint base URL (PI_BASE_URL).
    #[arg(long)]
    base_url: Option<String>,
    /// Model id (PI_MODEL).
    #[arg(long)]
    model: Option<String>,
    /// Read the API key from this environment variable.
    #[arg(long)]
    api_key_env: Option<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    match run(cli).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("pi-chat: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode, String> {
    let mut env: HashMap<String, String> = std::env::vars().collect();
    for (key, value) in [
        ("PI_API", &cli.api),
        ("PI_BASE_URL", &cli.base_url),
        ("PI_MODEL", &cli.model),
    ] {
        if let Some(value) = value {
            env.insert(key.to_owned(), value.clone());
        }
    }
    let settings_path = default_config_dir().map(|dir| dir.join(SETTINGS_FILE_NAME));
    let file = match &settings_path {
        Some(path) => load_settings(path).map_err(|error| error.to_string())?,
        None => SettingsFile::default(),
    };
    let probe = TcpProbe::default();
    let settings = resolve_settings(&ResolveInputs {
        file: &file,
        env: &env,
        key_env_override: cli.api_key_env.as_deref(),
        key_source: &NoKeySource,
        probe: &probe,
        settings_path: settings_path.as_deref(),
    })
    .map_err(|error| error.to_string())?;
    let paths = DesktopPaths::detect().ok_or("cannot find the home folder: set HOME")?;
    let (session, envelopes) =
        DesktopSession::start_with_channel(SessionOptions::new(settings, paths))
            .map_err(|error| error.to_string())?;
    let printer = tokio::spawn(print_envelopes(envelopes, cli.json));

    let code = match cli.prompt {
        Some(prompt) => run_once(&session, prompt).await,
        None => run_interactive(&session, cli.json).await,
    };
    drop(session);
    let _ = printer.await;
    Ok(code)
}

/// One prompt; Ctrl-C stops it (exit code 130). Exit code 1 when the answer ended in an error.
async fn run_once(session: &DesktopSession, prompt: String) -> ExitCode {
    let run = session.prompt(prompt);
    tokio::pin!(run);
    let mut interrupted = false;
    let result = loop {
        tokio::select! {
            result = &mut run => break result,
            _ = tokio::signal::ctrl_c() => {
                interrupted = true;
                session.abort();
            }
        }
    };
    if interrupted {
        eprintln!("pi-chat: stopped");
        return ExitCode::from(130);
    }
    finish_code(session, result)
}

fn finish_code(session: &DesktopSession, result: Result<(), SessionError>) -> ExitCode {
    if let Err(error) = result {
        eprintln!("pi-chat: {error}");
        return ExitCode::from(1);
    }
    match session.get_state().error_message {
        Some(message) => {
            eprintln!("pi-chat: {message}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

/// Reads prompts from stdin until EOF or a Ctrl-C while idle. Ctrl-C during an answer stops it; a second Ctrl-C
/// before it has stopped quits.
async fn run_interactive(session: &DesktopSession, json: bool) -> ExitCode {
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    loop {
        if !json {
            eprint!("> ");
        }
        let line = tokio::select! {
            line = lines.next_line() => line,
            _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
        };
        let prompt = match line {
            Ok(Some(line)) if line.trim().is_empty() => continue,
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => return ExitCode::SUCCESS,
        };
        let run = session.prompt(prompt);
        tokio::pin!(run);
        let mut interrupted = false;
        let result = loop {
            tokio::select! {
                result = &mut run => break result,
                _ = tokio::signal::ctrl_c() => {
                    if interrupted {
                        return ExitCode::from(130);
                    }
                    interrupted = true;
                    session.abort();
                    eprintln!("\n(stopping; press Ctrl-C again to quit)");
                }
            }
        };
        if let Err(error) = result {
            eprintln!("pi-chat: {error}");
        }
    }
}

/// Prints envelopes: JSON lines, or the answer text on stdout with tool activity on stderr.
async fn print_envelopes(mut envelopes: mpsc::UnboundedReceiver<Envelope>, json: bool) {
    let mut stdout = std::io::stdout();
    while let Some(envelope) = envelopes.recv().await {
        if json {
            match serde_json::to_string(&envelope) {
                Ok(line) => {
                    let _ = writeln!(stdout, "{line}");
                }
                Err(error) => eprintln!("pi-chat: cannot encode an envelope: {error}"),
            }
            let _ = stdout.flush();
            continue;
        }
        match &envelope.payload {
            EnvelopePayload::Event(event) => print_event(event, &mut stdout),
            EnvelopePayload::Notice(HostNotice::Error { message, .. }) => {
                eprintln!("pi-chat: {message}")
            }
            EnvelopePayload::Notice(HostNotice::State { .. } | HostNotice::Idle) => {}
        }
        let _ = stdout.flush();
    }
}

fn print_event(event: &AgentEvent, stdout: &mut std::io::Stdout) {
    match event {
        AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::TextDelta { delta, .. },
            ..
        } => {
            let _ = write!(stdout, "{delta}");
        }
        AgentEvent::MessageEnd { message } => {
            if message
                .as_assistant()
                .is_some_and(|assistant| !assistant.text().is_empty())
            {
                let _ = writeln!(stdout);
            }
            if let Some(error) = message
                .as_assistant()
                .and_then(|assistant| assistant.error_message.as_deref())
            {
                eprintln!("[error] {error}");
            }
        }
        AgentEvent::ToolExecutionStart {
            tool_name, args, ..
        } => eprintln!("[{tool_name}] {args}"),
        AgentEvent::ToolExecutionEnd {
            tool_name,
            is_error: true,
            result,
            ..
        } => {
            let text = serde_json::to_value(&result.content).unwrap_or_default();
            eprintln!("[{tool_name} failed] {text}");
        }
        AgentEvent::AgentStart
        | AgentEvent::AgentEnd { .. }
        | AgentEvent::TurnStart
        | AgentEvent::TurnEnd { .. }
        | AgentEvent::MessageStart { .. }
        | AgentEvent::MessageUpdate { .. }
        | AgentEvent::ToolExecutionUpdate { .. }
        | AgentEvent::ToolExecutionEnd { .. } => {}
    }
}
