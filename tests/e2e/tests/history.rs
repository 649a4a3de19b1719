//! A history longer than the sidebar's first page, written through the app's own store before the app starts:
//! the sidebar lists the newest conversations first and the rest as its end is scrolled into view, and a
//! search finds a conversation the list has not loaded yet.

use std::sync::Arc;

use desktop_host::store::{ManualClock, Store};
use pi_test_support::openai::OpenAiServer;
use serde_json::json;

use crate::support::model_server::LaunchApp;
use crate::support::stored_history::database_in;

/// More conversations than the sidebar asks for at first (`LIST_PAGE_SIZE` in `ui/src/features/sidebar/Sidebar.tsx`).
const CONVERSATIONS: usize = 230;
const PAGE: usize = 100;
/// The oldest conversation's time (2026-01-01); each later one is a minute newer.
const OLDEST_MS: i64 = 1_767_225_600_000;

/// A home whose store holds `CONVERSATIONS` conversations titled "Topic 1" (the oldest) to "Topic 230".
fn home_with_history() -> tempfile::TempDir {
    let home = pi_desktop_e2e::new_home().unwrap();
    let clock = ManualClock::new(OLDEST_MS);
    let store = Store::open_with_clock(&database_in(home.path()), Arc::new(clock.clone()))
        .unwrap()
        .store;
    for number in 1..=CONVERSATIONS {
        let at = OLDEST_MS + i64::try_from(number).unwrap() * 60_000;
        clock.set(at);
        let conversation = store.create_conversation(Some("test-model")).unwrap();
        let question = if number == 7 {
            "Topic 7: where did I put the zebra-crossing photos?".to_owned()
        } else {
            format!("Topic {number}")
        };
        store
            .append_message(
                &conversation.id,
                &json!({"role": "user", "content": [{"type": "text", "text": question}], "timestamp": at}),
            )
            .unwrap();
    }
    home
}

async fn listed(app: &pi_desktop_e2e::AppUnderTest) -> usize {
    app.client()
        .execute(
            "return document.querySelectorAll('[data-testid=\"conversation-item\"]').length;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap()
        .try_into()
        .unwrap()
}

#[tokio::test]
async fn the_sidebar_lists_a_long_history_page_by_page_and_search_reaches_all_of_it() {
    let server = OpenAiServer::start(vec![]).await.unwrap();
    let app = server.launch_app_in(home_with_history()).await;

    // The newest first, and only the first page of them.
    app.wait_for_xpath(&format!(
        r#"(//*[@data-testid="conversation-item"])[1][contains(., "Topic {CONVERSATIONS}")]"#
    ))
    .await
    .unwrap();
    app.wait_for_css(r#"[data-testid="conversations-more"]"#)
        .await
        .unwrap();
    assert_eq!(listed(&app).await, PAGE);

    // Scrolling the list's end into view loads the next page, until all are there and the end says no more.
    for expected in [2 * PAGE, CONVERSATIONS] {
        app.client()
            .execute(
                "document.querySelector('[data-testid=\"conversations-more\"]').scrollIntoView();",
                vec![],
            )
            .await
            .unwrap();
        if let Err(error) = app
            .wait_for_xpath(&format!(
                r#"(//*[@data-testid="conversation-item"])[{expected}]"#
            ))
            .await
        {
            panic!(
                "{expected} conversations were not listed ({} were): {error}",
                listed(&app).await
            );
        }
    }
    app.wait_for_xpath(
        r#"(//*[@data-testid="conversation-item"])[last()][contains(., "Topic 1")]"#,
    )
    .await
    .unwrap();
    assert_eq!(listed(&app).await, CONVERSATIONS);
    let more = app
        .client()
        .execute(
            "return document.querySelector('[data-testid=\"conversations-more\"]') === null;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        more,
        json!(true),
        "the end of the whole list offers no more"
    );
    app.screenshot("history-all-pages").await.unwrap();

    // A search reaches an old conversation whatever the list holds.
    let search = app.find_test_id("conversation-search").await.unwrap();
    search.send_keys("zebra").await.unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="search-hit"][contains(., "Topic 7") and contains(., "zebra")]"#,
    )
    .await
    .unwrap();
    app.close().await.unwrap();
}
