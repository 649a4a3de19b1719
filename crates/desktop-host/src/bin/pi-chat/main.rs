//! `pi-chat`: the terminal front end of the desktop host.
//!
//! `pi-chat --prompt TEXT` runs one prompt with the desktop tools and streams the answer to stdout; without
//! `--prompt` it is an interactive chat (Ctrl-C stops the current answer, a second Ctrl-C quits). In the chat, a
//! line typed while the agent answers is a steering message (delivered after the current tool batch, or when the
//! answer ends) and `/followup TEXT` queues a follow-up (delivered when the agent would otherwise stop); what a
//! stopped answer did not deliver is kept: `/send` sends it, `/discard` drops it. `--json` prints
//! the wire envelopes as JSON lines instead. `--api`, `--base-url`, `--model` and `--api-key-env` mirror `PI_API`,
//! `PI_BASE_URL`, `PI_MODEL` and the key variable. Logs go to stderr (`RUST_LOG`, default `warn`).
//!
//! Conversations are the app's: saved as they stream in the same database as the window's (checkpoints and
//! interrupted answers included), so one started here opens in the window and the other way round. A run starts
//! a new conversation; `--continue` goes on with the most recent one, `--resume ID` with that one, and `--list`
//! prints them (newest first; JSON lines with `--json`).
//!
//! The MCP servers of `mcp.json` (beside `settings.json`) give their tools here too; `--list-tools` prints every
//! tool the agent gets. Each MCP call asks first: on the terminal, or, with `--yes`, allowed once; without a
//! terminal and without `--yes` it is denied (see `approval.rs`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a terminal front end prints its answers"
)]

mod approval;
mod inspect;

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

use std::sync::Arc;
use std::task::Poll;

use clap::Parser;
use desktop_host::conversations::{
    Conversations, ConversationsOptions, OpenConversation, SessionOptionsFactory, default_data_dir,
};
use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::desktop_tools::{DesktopToolContext, desktop_agent_tools};
use desktop_host::language::Language;
use desktop_host::mcp::{McpServerState, McpServers, ToolNames};

use crate::approval::ApprovalMode;
use desktop_host::approval::ApprovalRequest;
use desktop_host::session::{DesktopSession, QueuedSend, QueuedStatus, SessionError};
use desktop_host::settings::SettingsService;
use desktop_host::store::ConversationId;
use desktop_host::wire::{Envelope, EnvelopePayload, EnvelopeSink, HostNotice, SinkClosed};
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
    /// Go on with the most recent conversation instead of starting a new one.
    #[arg(long = "continue", conflicts_with = "resume")]
    continue_last: bool,
    /// Go on with the conversation of this id (see `--list`).
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// List the saved conversations, newest first, and exit.
    #[arg(long, conflicts_with_all = ["prompt", "continue_last", "resume"])]
    list: bool,
    /// List every tool the agent gets (built-in and from MCP servers, with the servers' states), and exit.
    #[arg(long, conflicts_with_all = ["prompt", "list"])]
    list_tools: bool,
    /// Allow every MCP tool call without asking.
    #[arg(long)]
    yes: bool,
    /// After each run, print the loop inspector's summary: the exit condition and a line per turn (with --json,
    /// one `{"kind": "inspection"}` line).
    #[arg(long)]
    inspect: bool,
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
    let env: HashMap<String, String> = std::env::vars().chain(cli_env(&cli)).collect();
    let settings = SettingsService::from_platform();
    let mcp = Arc::new(McpServers::load(
        settings.config_dir(),
        Arc::new(settings.clone()),
    ));
    if !cli.list {
        mcp.start_all().await;
    }
    let conversations = open_conversations(
        &settings,
        env.clone(),
        cli.api_key_env.clone(),
        Arc::clone(&mcp),
    )?;
    if cli.list {
        return list(&conversations, cli.json);
    }
    if cli.list_tools {
        let listed = list_tools(&mcp);
        mcp.shutdown().await;
        return listed;
    }
    // The settings are checked before anything is saved, so a typo costs no empty conversation.
    settings
        .session_options(&env, cli.api_key_env.as_deref())
        .map_err(|error| error.to_string())?;
    let conversation = match (&cli.resume, cli.continue_last) {
        (Some(id), _) => conversations
            .open_conversation(&ConversationId::from(id.as_str()))
            .await
            .map_err(|error| format!("{error}; `pi-chat --list` shows the conversations"))?,
        (None, true) => conversations
            .active()
            .await
            .map_err(|error| error.to_string())?,
        (None, false) => conversations
            .new_conversation()
            .await
            .map_err(|error| error.to_string())?,
    };
    let (envelope_tx, envelopes) = mpsc::unbounded_channel();
    conversations.subscribe(
        "pi-chat",
        Arc::new(OneConversation {
            id: conversation.id.clone(),
            tx: envelope_tx,
        }),
    );
    let OpenConversation { id, session } = conversation;
    let (questions_tx, questions) = mpsc::unbounded_channel();
    let printer = tokio::spawn(print_envelopes(
        envelopes,
        cli.json,
        cli.inspect,
        questions_tx,
    ));
    let mut answering = Answering {
        session: session.clone(),
        mode: ApprovalMode::detect(cli.yes),
        questions,
    };

    let code = match cli.prompt {
        Some(prompt) => run_once(&session, prompt, &mut answering).await,
        None => run_interactive(&session, cli.json, &mut answering).await,
    };
    drop(answering);
    drop(session);
    drop(conversations);
    let _ = printer.await;
    // The servers' process groups end with the program, not after it.
    mcp.shutdown().await;
    if !cli.json {
        eprintln!("pi-chat: saved as conversation {id} (pi-chat --resume {id} goes on with it)");
    }
    Ok(code)
}

/// The `--api`, `--base-url` and `--model` values as the variables they stand for.
fn cli_env(cli: &Cli) -> Vec<(String, String)> {
    [
        ("PI_API", &cli.api),
        ("PI_BASE_URL", &cli.base_url),
        ("PI_MODEL", &cli.model),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.clone().map(|value| (key.to_owned(), value)))
    .collect()
}

/// The app's conversations (its database, exports into Downloads), each session made from `settings` and `env`.
fn open_conversations(
    settings: &SettingsService,
    env: HashMap<String, String>,
    key_env_override: Option<String>,
    mcp: Arc<McpServers>,
) -> Result<Conversations, String> {
    let data_dir = default_data_dir().ok_or("cannot find the data folder: set HOME")?;
    let paths = DesktopPaths::detect().ok_or("cannot find the home folder: set HOME")?;
    let settings = settings.clone();
    let session_options: SessionOptionsFactory = Arc::new(move || {
        let mut options = settings
            .session_options(&env, key_env_override.as_deref())
            .map_err(|error| Box::new(error) as Box<dyn std::error::Error + Send + Sync>)?;
        options.mcp = Some(Arc::clone(&mcp));
        Ok(options)
    });
    Conversations::open(ConversationsOptions::new(
        data_dir,
        paths.downloads().to_path_buf(),
        session_options,
    ))
    .map_err(|error| error.to_string())
}

/// `--list`: one line per conversation, newest first (`ID  YYYY-MM-DD  title`), or JSON lines.
fn list(conversations: &Conversations, json: bool) -> Result<ExitCode, String> {
    let listed = conversations
        .list_conversations(None)
        .map_err(|error| error.to_string())?;
    let mut stdout = std::io::stdout();
    for day in &listed.days {
        for conversation in &day.conversations {
            let line = if json {
                serde_json::to_string(conversation).map_err(|error| error.to_string())?
            } else {
                format!(
                    "{}  {}  {}",
                    conversation.id,
                    day.day,
                    conversation.title.as_deref().unwrap_or("(untitled)")
                )
            };
            let _ = writeln!(stdout, "{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--list-tools`: the built-in tools, then each MCP server with its state and its tools.
fn list_tools(mcp: &McpServers) -> Result<ExitCode, String> {
    let paths = DesktopPaths::detect().ok_or("cannot find the home folder: set HOME")?;
    let built_in: Vec<String> =
        desktop_agent_tools(&DesktopToolContext::new(paths, Language::default()))
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect();
    let mut stdout = std::io::stdout();
    for tool in &built_in {
        let _ = writeln!(stdout, "{tool}  (built in)");
    }
    let view = mcp.view();
    for problem in &view.problems {
        eprintln!("pi-chat: {problem}");
    }
    // Named in the order a run names them, so the names are the ones the agent gets.
    let mut names = ToolNames::with_taken(built_in.iter().map(String::as_str));
    for server in &view.servers {
        let state = match &server.status {
            McpServerState::Failed { reason } => format!("failed: {reason}"),
            McpServerState::Restarting { attempt } => format!("restarting ({attempt})"),
            other => other.label().to_owned(),
        };
        let _ = writeln!(stdout, "[{}] {state}: {}", server.name, server.launch);
        for tool in server.tools.iter().filter(|tool| tool.enabled) {
            let _ = writeln!(
                stdout,
                "{}  ({})",
                names.assign(&server.name, &tool.name),
                tool.description
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Passes on the envelopes of the conversation this terminal shows.
struct OneConversation {
    id: ConversationId,
    tx: mpsc::UnboundedSender<Envelope>,
}

impl EnvelopeSink for OneConversation {
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        if envelope.conversation_id.as_ref() != Some(&self.id) {
            return Ok(());
        }
        self.tx.send(envelope.clone()).map_err(|_| SinkClosed)
    }
}

/// One prompt; Ctrl-C stops it (exit code 130). Exit code 1 when the answer ended in an error.
async fn run_once(session: &DesktopSession, prompt: String, answering: &mut Answering) -> ExitCode {
    // Listening before the run starts (the handler is installed on the first poll): a Ctrl-C in the run's first
    // instant stops the answer instead of killing the process with SIGINT's default action.
    let interrupt = tokio::signal::ctrl_c();
    tokio::pin!(interrupt);
    let mut listening = match futures_util::poll!(&mut interrupt) {
        Poll::Pending => true,
        Poll::Ready(Ok(())) => return ExitCode::from(130),
        Poll::Ready(Err(_)) => false,
    };
    let run = session.prompt(prompt);
    tokio::pin!(run);
    let mut interrupted = false;
    let result = loop {
        tokio::select! {
            result = &mut run => break result,
            Some(question) = answering.questions.recv() => answering.answer(question),
            signal = &mut interrupt, if listening => {
                listening = false;
                if signal.is_ok() {
                    interrupted = true;
                    session.abort();
                }
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

/// What a line typed in the chat asks for.
#[derive(Debug, PartialEq, Eq)]
enum ChatLine {
    /// Nothing (a blank line).
    Blank,
    /// A prompt when idle, a steering message during an answer.
    Message(String),
    /// `/followup TEXT`: a follow-up.
    FollowUp(String),
    /// `/send`: send the held messages.
    SendHeld,
    /// `/discard`: drop the held messages.
    DiscardHeld,
}

impl ChatLine {
    fn parse(line: &str) -> ChatLine {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return ChatLine::Blank;
        }
        match trimmed.split_once(char::is_whitespace) {
            Some(("/followup", text)) if !text.trim().is_empty() => {
                ChatLine::FollowUp(text.trim().to_owned())
            }
            None if trimmed == "/followup" => ChatLine::Blank,
            None if trimmed == "/send" => ChatLine::SendHeld,
            None if trimmed == "/discard" => ChatLine::DiscardHeld,
            _ => ChatLine::Message(line.to_owned()),
        }
    }
}

/// Reads prompts from stdin until EOF or a Ctrl-C while idle. During an answer, lines are steering messages or
/// follow-ups; Ctrl-C stops the answer, and a second Ctrl-C before it has stopped quits.
async fn run_interactive(
    session: &DesktopSession,
    json: bool,
    answering: &mut Answering,
) -> ExitCode {
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut stdin_open = true;
    loop {
        if !stdin_open {
            return ExitCode::SUCCESS;
        }
        if !json {
            report_held(session);
            eprint!("> ");
        }
        let line = tokio::select! {
            line = lines.next_line() => line,
            _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
        };
        let line = match line {
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => return ExitCode::SUCCESS,
        };
        let run = match ChatLine::parse(&line) {
            ChatLine::Blank => continue,
            ChatLine::Message(prompt) => session.start_prompt(prompt).await,
            ChatLine::FollowUp(text) => {
                session.follow_up(text).await;
                eprintln!("(queued: it follows the next answer)");
                continue;
            }
            ChatLine::SendHeld => match send_held(session).await {
                Some(run) => Ok(run),
                None => continue,
            },
            ChatLine::DiscardHeld => {
                discard_held(session).await;
                continue;
            }
        };
        let run = match run {
            Ok(run) => run,
            Err(error) => {
                eprintln!("pi-chat: {error}");
                continue;
            }
        };
        let finished = run.finished();
        tokio::pin!(finished);
        let mut interrupted = false;
        let result = loop {
            tokio::select! {
                result = &mut finished => break result,
                Some(question) = answering.questions.recv() => answering.answer(question),
                line = lines.next_line(), if stdin_open => match line {
                    Ok(Some(line)) => queue_during_answer(session, &line).await,
                    // The answer goes on; the chat ends after it.
                    Ok(None) | Err(_) => stdin_open = false,
                },
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

/// A line typed while the agent answers: a steering message, or a follow-up with `/followup`.
async fn queue_during_answer(session: &DesktopSession, line: &str) {
    match ChatLine::parse(line) {
        ChatLine::Blank => {}
        ChatLine::Message(text) => {
            session.steer(text).await;
            eprintln!("(steering: it reaches the agent after the current step)");
        }
        ChatLine::FollowUp(text) => {
            session.follow_up(text).await;
            eprintln!("(queued: it follows this answer)");
        }
        ChatLine::SendHeld | ChatLine::DiscardHeld => {
            eprintln!("(wait for the answer to end, or press Ctrl-C to stop it)");
        }
    }
}

/// Names the messages a run ended without delivering, and what to do with them.
fn report_held(session: &DesktopSession) {
    let held: Vec<String> = session
        .queued_messages()
        .into_iter()
        .filter(|message| message.status == QueuedStatus::Held)
        .map(|message| message.text)
        .collect();
    if held.is_empty() {
        return;
    }
    for text in &held {
        eprintln!("(not sent yet: {text})");
    }
    eprintln!("(/send sends it, /discard drops it)");
}

/// Sends the oldest held message as a prompt (the others stay held); the run, or none when nothing is held.
async fn send_held(session: &DesktopSession) -> Option<desktop_host::session::RunHandle> {
    let held = session
        .queued_messages()
        .into_iter()
        .find(|message| message.status == QueuedStatus::Held)?;
    match session.send_queued(held.id).await {
        Ok(QueuedSend::Started(run)) => Some(run),
        Ok(QueuedSend::Steering(_)) => None,
        Err(error) => {
            eprintln!("pi-chat: {error}");
            None
        }
    }
}

/// Drops every held message.
async fn discard_held(session: &DesktopSession) {
    for message in session.queued_messages() {
        if message.status == QueuedStatus::Held
            && let Err(error) = session.cancel_queued(message.id).await
        {
            eprintln!("pi-chat: {error}");
        }
    }
}

/// Prints envelopes: JSON lines, or the answer text on stdout with tool activity on stderr.
/// Answers the approval questions of the session's runs (they come from the printer, in order).
struct Answering {
    session: DesktopSession,
    mode: ApprovalMode,
    questions: mpsc::UnboundedReceiver<ApprovalRequest>,
}

impl Answering {
    /// Answers on a task of its own: the run waits for it, its other envelopes keep coming.
    fn answer(&self, question: ApprovalRequest) {
        tokio::spawn(approval::answer(self.session.clone(), question, self.mode));
    }
}

async fn print_envelopes(
    mut envelopes: mpsc::UnboundedReceiver<Envelope>,
    json: bool,
    inspect: bool,
    questions: mpsc::UnboundedSender<ApprovalRequest>,
) {
    let mut stdout = std::io::stdout();
    let mut recorder = inspect::RunRecorder::default();
    while let Some(envelope) = envelopes.recv().await {
        let inspected = if inspect {
            recorder.take(&envelope)
        } else {
            None
        };
        if let EnvelopePayload::Notice(HostNotice::ApprovalRequested(request)) = &envelope.payload {
            let _ = questions.send(request.clone());
        }
        if json {
            match serde_json::to_string(&envelope) {
                Ok(line) => {
                    let _ = writeln!(stdout, "{line}");
                }
                Err(error) => eprintln!("pi-chat: cannot encode an envelope: {error}"),
            }
            if let Some(summary) = &inspected {
                let line = serde_json::json!({"v": desktop_host::wire::PROTOCOL_VERSION, "kind": "inspection", "run": summary});
                let _ = writeln!(stdout, "{line}");
            }
            let _ = stdout.flush();
            continue;
        }
        if let Some(summary) = &inspected {
            let _ = writeln!(stdout, "{}", inspect::summary_text(summary));
        }
        match &envelope.payload {
            EnvelopePayload::Event(event) => print_event(event, &mut stdout),
            EnvelopePayload::Notice(HostNotice::Error { message, .. }) => {
                eprintln!("pi-chat: {message}")
            }
            EnvelopePayload::Notice(HostNotice::ModelRetry(retry)) => eprintln!(
                "[retrying in {:.0} s ({}/{})]",
                retry.delay_ms as f64 / 1000.0,
                retry.attempt,
                retry.max_retries
            ),
            // Questions are answered above; their resolution needs no line of its own.
            // The chat says what it queued when the line is typed; the rest needs no line of its own.
            EnvelopePayload::Notice(
                HostNotice::State { .. }
                | HostNotice::Idle
                | HostNotice::ApprovalRequested(_)
                | HostNotice::ApprovalResolved { .. }
                | HostNotice::MessageQueued { .. }
                | HostNotice::QueuedMessageConsumed { .. }
                | HostNotice::QueuedMessageCancelled { .. }
                | HostNotice::QueuedMessagesHeld { .. }
                | HostNotice::TurnRequest(_)
                | HostNotice::Versions { .. },
            ) => {}
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

#[cfg(test)]
mod tests {
    use super::ChatLine;

    #[test]
    fn a_typed_line_is_a_message_unless_it_names_a_chat_command() {
        assert_eq!(
            ChatLine::parse("also the PDFs"),
            ChatLine::Message("also the PDFs".to_owned())
        );
        assert_eq!(
            ChatLine::parse("/followup  then sum them up "),
            ChatLine::FollowUp("then sum them up".to_owned())
        );
        assert_eq!(ChatLine::parse("/followup"), ChatLine::Blank);
        assert_eq!(ChatLine::parse("   "), ChatLine::Blank);
        assert_eq!(ChatLine::parse("/send"), ChatLine::SendHeld);
        assert_eq!(ChatLine::parse(" /discard "), ChatLine::DiscardHeld);
        assert_eq!(
            ChatLine::parse("/followups are nice"),
            ChatLine::Message("/followups are nice".to_owned())
        );
    }
}
