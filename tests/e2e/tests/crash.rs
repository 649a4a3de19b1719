//! A crash while an answer streams: the app is killed with SIGKILL mid-stream and started again on the same
//! data; the conversation must come back with the partial answer marked interrupted.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{OpenAiServer, Reply, text_delta, unfinished_text_chunks};
use rusqlite::{Connection, OpenFlags};

use crate::support::model_server::LaunchApp;

/// The app's conversation database, somewhere under its data folder.
const DATABASE_FILE_NAME: &str = "conversations.sqlite3";
/// How long the app may take to checkpoint the streaming answer (it does so at most once a second).
const CHECKPOINT_DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks at the database, sending one more delta each time so the app has an update
/// that falls outside its checkpoint throttle.
const CHECKPOINT_POLL: Duration = Duration::from_millis(250);

const PROMPT: &str = "tell me a story";
const PARTIAL: &str = "Once upon a time, there was a partial answer";

fn find_database(folder: &Path) -> Option<PathBuf> {
    for entry in std::fs::read_dir(folder).ok()?.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_database(&path) {
                return Some(found);
            }
        } else if path
            .file_name()
            .is_some_and(|name| name == DATABASE_FILE_NAME)
        {
            return Some(path);
        }
    }
    None
}

/// The body of the unfinished (checkpoint) assistant row, if the app wrote one yet.
fn checkpoint_body(home: &Path) -> Option<String> {
    let database = find_database(home)?;
    let connection =
        Connection::open_with_flags(&database, OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    connection
        .query_row(
            "SELECT body FROM messages WHERE role = 'assistant' AND complete = 0 \
             ORDER BY seq DESC LIMIT 1",
            [],
            |row| row.get::<_, String>(0),
        )
        .ok()
}

/// Feeds one delta at a time until the database holds a checkpoint of the answer containing `PARTIAL`.
async fn stream_until_checkpointed(server: &OpenAiServer, home: &Path) -> String {
    let started = Instant::now();
    loop {
        if let Some(body) = checkpoint_body(home) {
            // The text may be stored with JSON escapes only for non-ASCII; PARTIAL is plain ASCII.
            if body.contains(PARTIAL) {
                return body;
            }
        }
        assert!(
            started.elapsed() < CHECKPOINT_DEADLINE,
            "no checkpoint with the partial answer after {CHECKPOINT_DEADLINE:?}; last: {:?}",
            checkpoint_body(home)
        );
        server.feed(text_delta("."));
        tokio::time::sleep(CHECKPOINT_POLL).await;
    }
}

#[tokio::test]
async fn a_crash_while_streaming_keeps_the_conversation_and_marks_the_partial_answer_interrupted() {
    let server = OpenAiServer::start(vec![Reply::Feed(unfinished_text_chunks(&[
        "Once upon a time, ",
        "there was a partial answer",
    ]))])
    .await
    .unwrap();
    let app = AppUnderTest::launch(LaunchOptions {
        envs: server.app_envs(),
        args: Vec::new(),
    })
    .await
    .unwrap();

    app.send_prompt(PROMPT).await.unwrap();
    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="message-assistant" and @data-state="streaming"]//*[@data-testid="assistant-text" and contains(., "{PARTIAL}")]"#
    ))
    .await
    .unwrap();
    let checkpoint = stream_until_checkpointed(&server, app.home()).await;
    app.screenshot("crash-before-kill").await.unwrap();

    let home = app.kill().await.unwrap();
    let again = server.launch_app_in(home).await;

    again.find_test_id("conversation-item").await.unwrap();
    let items = again
        .client()
        .find_all(fantoccini::Locator::Css(
            r#"[data-testid="conversation-item"]"#,
        ))
        .await
        .unwrap();
    assert_eq!(items.len(), 1, "exactly the one conversation is listed");
    again
        .wait_for_css(r#"[data-testid="conversation-item"] [data-testid="conversation-open"]"#)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    again.wait_for_text("message-user", PROMPT).await.unwrap();
    let interrupted = again
        .wait_for_css(r#"[data-testid="message-assistant"][data-state="interrupted"]"#)
        .await
        .unwrap();
    let shown = interrupted.text().await.unwrap();
    assert!(shown.contains(PARTIAL), "{shown}");
    assert!(
        checkpoint.contains(PARTIAL),
        "the checkpoint the test waited for: {checkpoint}"
    );
    let assistants = again
        .client()
        .find_all(fantoccini::Locator::Css(
            r#"[data-testid="message-assistant"]"#,
        ))
        .await
        .unwrap();
    assert_eq!(
        assistants.len(),
        1,
        "one assistant message, the interrupted one"
    );
    again
        .screenshot("crash-restarted-interrupted")
        .await
        .unwrap();
    again.close().await.unwrap();
}
