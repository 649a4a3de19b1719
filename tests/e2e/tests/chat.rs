//! A conversation with a scripted loopback model: each test launches the app pointed at its own
//! [`OpenAiServer`], drives the window and checks both what the window shows and what the server saw.

use std::time::Duration;

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{
    OpenAiServer, Reply, text_chunks, tool_call_chunks, unfinished_text_chunks,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::model_server::LaunchApp;
use crate::support::stop::stop_the_answer;

/// How long the server may take to see the app close a stopped stream.
const CLOSE_DEADLINE: Duration = Duration::from_secs(30);
/// How long the system's URL handler may take to be started by the app's opener.
const OPEN_DEADLINE: Duration = Duration::from_secs(30);

async fn wait_until_idle(app: &AppUnderTest) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
}

/// The text of every `role: "tool"` message in a chat request.
fn tool_results(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "tool")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn asking_for_the_pdfs_in_downloads_runs_the_listing_tool_and_answers_with_both_names() {
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_list_1",
            "list_download_files",
            &[r#"{"extensions":["pdf"]}"#],
        )),
        Reply::Stream(text_chunks(&[
            "你的下载目录里有两个 PDF：",
            "invoice-2026.pdf 和 ",
            "travel-guide.pdf。",
        ])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;
    let downloads = app.home().join("Downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    for (name, bytes) in [
        ("invoice-2026.pdf", b"%PDF-1.4\n%%EOF\n".as_slice()),
        ("travel-guide.pdf", b"%PDF-1.4\n%%EOF\n".as_slice()),
        ("notes.txt", b"shopping list".as_slice()),
        ("photo.jpg", b"\xff\xd8\xff\xe0".as_slice()),
        ("budget.csv", b"month,amount\n".as_slice()),
    ] {
        std::fs::write(downloads.join(name), bytes).unwrap();
    }

    app.send_prompt("我的下载目录里有哪些 PDF？").await.unwrap();

    app.wait_for_text("message-user", "我的下载目录里有哪些 PDF？")
        .await
        .unwrap();
    app.find_test_id("tool-card").await.unwrap();
    app.wait_for_css(
        r#"[data-testid="tool-card"][data-tool="list_download_files"][data-state="done"]"#,
    )
    .await
    .unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="assistant-text" and contains(., "invoice-2026.pdf") and contains(., "travel-guide.pdf")]"#,
    )
    .await
    .unwrap();
    wait_until_idle(&app).await;
    app.screenshot("downloads-pdfs-answered").await.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "one request per model turn");
    assert!(
        tool_results(&requests[0].body).is_empty(),
        "the first request carries no tool result"
    );
    let results = tool_results(&requests[1].body);
    assert_eq!(results.len(), 1, "{results:?}");
    for pdf in ["invoice-2026.pdf", "travel-guide.pdf"] {
        assert!(
            results[0].contains(pdf),
            "{pdf} missing from {}",
            results[0]
        );
    }
    for other in ["notes.txt", "photo.jpg", "budget.csv"] {
        assert!(
            !results[0].contains(other),
            "{other} listed in {}",
            results[0]
        );
    }
    app.close().await.unwrap();
}

#[tokio::test]
async fn stop_closes_the_model_stream_and_keeps_the_partial_answer() {
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&[
        "Once upon a time, ",
        "there was a partial answer",
    ]))])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Tell me a long story").await.unwrap();

    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="streaming"]//*[@data-testid="assistant-text" and contains(., "there was a partial answer")]"#,
    )
    .await
    .unwrap();
    assert!(
        !app.find_test_id("send-button")
            .await
            .unwrap()
            .is_enabled()
            .await
            .unwrap(),
        "Send must be disabled while the answer streams"
    );
    app.screenshot("stop-while-streaming").await.unwrap();
    let stopped = stop_the_answer(&app, &server, CLOSE_DEADLINE).await;
    let text = stopped.text().await.unwrap();
    assert!(
        text.contains("Once upon a time, there was a partial answer"),
        "{text}"
    );
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .unwrap();
    wait_until_idle(&app).await;
    app.screenshot("stopped-partial-answer").await.unwrap();
    assert_eq!(server.requests().len(), 1);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_401_from_the_provider_shows_a_message_about_the_api_key() {
    let server = OpenAiServer::start(vec![Reply::Status(
        401,
        json!({"error": {
            "message": "Incorrect API key provided",
            "type": "invalid_request_error",
            "code": "invalid_api_key"
        }}),
    )])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Hello").await.unwrap();

    let notice = app
        .wait_for_xpath(r#"//*[@data-testid="assistant-error" or @data-testid="error-banner"]"#)
        .await
        .unwrap();
    wait_until_idle(&app).await;
    let text = notice.text().await.unwrap();
    assert!(
        text.contains("401") && (text.contains("API key") || text.contains("API 密钥")),
        "the notice does not mention the API key and the 401: {text}"
    );
    app.screenshot("provider-401").await.unwrap();
    assert!(!server.requests().is_empty());
    app.close().await.unwrap();
}

#[tokio::test]
async fn hostile_markup_from_the_model_renders_inert() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[
        "Sample one: <img src=x onerror=\"document.title='pwned'\">\n\n",
        "Sample two: <script>document.title='pwned'</script>\n\n",
        "Sample three: [x](javascript:document.title='pwned')\n\n",
        "Harmless tail.",
    ]))])
    .await
    .unwrap();
    let app = server.launch_app().await;
    let title_before = app.client().title().await.unwrap();

    app.send_prompt("Show me some HTML").await.unwrap();

    let answer = app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "Harmless tail.")]"#,
    )
    .await
    .unwrap();
    wait_until_idle(&app).await;
    // The markup is shown as text, not dropped and not parsed.
    let shown = answer.text().await.unwrap();
    for literal in [
        r#"<img src=x onerror="document.title='pwned'">"#,
        "<script>document.title='pwned'</script>",
    ] {
        assert!(
            shown.contains(literal),
            "{literal} not shown as text in {shown}"
        );
    }
    app.screenshot("hostile-markup-inert").await.unwrap();

    let title_after = app.client().title().await.unwrap();
    assert_eq!(title_after, title_before);
    assert_ne!(title_after, "pwned");
    let counts = app
        .client()
        .execute(
            "const list = document.querySelector('[data-testid=\"message-list\"]');\
             return {\
               img: list.querySelectorAll('img').length,\
               onerror: document.querySelectorAll('[onerror]').length,\
               script: list.querySelectorAll('script').length,\
               linksWithHref: list.querySelectorAll('a[href]').length,\
               javascriptLinks: document.querySelectorAll('a[href^=\"javascript\"]').length\
             };",
            Vec::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        counts,
        json!({"img": 0, "onerror": 0, "script": 0, "linksWithHref": 0, "javascriptLinks": 0})
    );
    app.close().await.unwrap();
}

/// A home whose default handler of http and https URLs (the freedesktop way `xdg-open` reads it, which the
/// opener runs on Linux) is a script that appends each URL it gets to `opened-urls.txt` in the home.
fn home_with_recording_browser() -> tempfile::TempDir {
    let home = pi_desktop_e2e::new_home().unwrap();
    let applications = home.path().join(".local/share/applications");
    std::fs::create_dir_all(&applications).unwrap();
    std::fs::create_dir_all(home.path().join(".config")).unwrap();
    let recorder = home.path().join("record-url.sh");
    let opened = home.path().join("opened-urls.txt");
    std::fs::write(
        &recorder,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &recorder,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(
        applications.join("pi-e2e-browser.desktop"),
        format!(
            "[Desktop Entry]\nType=Application\nName=Recording browser\nExec={} %u\n\
             MimeType=x-scheme-handler/http;x-scheme-handler/https;\n",
            recorder.display()
        ),
    )
    .unwrap();
    std::fs::write(
        home.path().join(".config/mimeapps.list"),
        "[Default Applications]\nx-scheme-handler/http=pi-e2e-browser.desktop\n\
         x-scheme-handler/https=pi-e2e-browser.desktop\n",
    )
    .unwrap();
    home
}

/// The URLs the recording browser of [`home_with_recording_browser`] got, once it got at least one.
async fn wait_for_opened_urls(home: &std::path::Path) -> Vec<String> {
    let opened = home.join("opened-urls.txt");
    let deadline = std::time::Instant::now() + OPEN_DEADLINE;
    loop {
        if let Ok(text) = std::fs::read_to_string(&opened)
            && !text.is_empty()
        {
            return text.lines().map(str::to_owned).collect();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the system browser was not started within {OPEN_DEADLINE:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_link_in_an_answer_opens_in_the_system_browser_and_the_window_stays_on_the_app() {
    let url = "https://example.com/guide?step=2&lang=en";
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[
        "Read [the guide](",
        url,
        ") first, then [this](javascript:document.title='pwned').",
    ]))])
    .await
    .unwrap();
    let app = server.launch_app_in(home_with_recording_browser()).await;
    app.send_prompt("Where is the guide?").await.unwrap();
    let link = app
        .wait_for_xpath(
            r#"//*[@data-testid="message-assistant" and @data-state="done"]//a[contains(@class, "md-link") and . = "the guide"]"#,
        )
        .await
        .unwrap();
    wait_until_idle(&app).await;
    assert_eq!(link.attr("href").await.unwrap().as_deref(), Some(url));
    let shown_url = app.wait_for_css(".md-link-url").await.unwrap();
    assert_eq!(shown_url.text().await.unwrap(), url);
    let page_before = app.client().current_url().await.unwrap();
    let title_before = app.client().title().await.unwrap();

    link.click().await.unwrap();
    let opened = wait_for_opened_urls(app.home()).await;
    let inert = app
        .wait_for_xpath(r#"//a[contains(@class, "md-link") and . = "this"]"#)
        .await
        .unwrap();
    inert.click().await.unwrap();

    assert_eq!(opened, vec![url.to_owned()]);
    assert_eq!(app.client().current_url().await.unwrap(), page_before);
    assert_eq!(app.client().title().await.unwrap(), title_before);
    // The transcript is still the app's: the answer and the composer are there.
    app.wait_for_xpath(
        r#"//*[@data-testid="assistant-text" and starts-with(normalize-space(.), "Read the guide")]"#,
    )
    .await
    .unwrap();
    app.find_test_id("composer-input").await.unwrap();
    app.screenshot("link-opened-outside").await.unwrap();
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_formula_and_a_diagram_render_in_the_real_window() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[
        "The roots are\n\n$$\nx = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}\n$$\n\n",
        "for $a \\neq 0$, at $5 or $10.\n\n```mermaid\ngraph LR\n  A[Question] --> B{Known?}\n",
        "  B -->|yes| C[Answer]\n  B -->|no| D[Search files]\n  D --> C\n```\n",
    ]))])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("A formula and a diagram").await.unwrap();

    app.wait_for_css(
        r#"[data-testid="message-assistant"][data-state="done"] .math-display .katex .mfrac"#,
    )
    .await
    .unwrap();
    app.wait_for_css(r#"[data-testid="message-assistant"] .mermaid-diagram svg .node"#)
        .await
        .unwrap();
    wait_until_idle(&app).await;
    let drawn = app
        .client()
        .execute(
            "const answer = document.querySelector('[data-testid=\"message-assistant\"]');\
             const struts = [...answer.querySelectorAll('.math-display .katex-strut')];\
             const svg = answer.querySelector('.mermaid-diagram svg');\
             return {\
               strutHeight: Math.max(...struts.map((strut) => strut.getBoundingClientRect().height)),\
               inlineFormulas: answer.querySelectorAll('.math-inline .katex').length,\
               prices: answer.textContent.includes('at $5 or $10.'),\
               diagramWidth: svg.getBoundingClientRect().width,\
               labels: svg.textContent.includes('Search files'),\
               styleAttributes: answer.querySelectorAll('[style]').length === answer.querySelectorAll('.katex [style], .mermaid-diagram [style]').length\
             };",
            Vec::new(),
        )
        .await
        .unwrap();
    app.screenshot("formula-and-diagram").await.unwrap();

    assert!(drawn["strutHeight"].as_f64().unwrap() > 30.0, "{drawn}");
    assert!(drawn["diagramWidth"].as_f64().unwrap() > 200.0, "{drawn}");
    assert_eq!(drawn["inlineFormulas"], json!(1), "{drawn}");
    assert_eq!(drawn["prices"], json!(true), "{drawn}");
    assert_eq!(drawn["labels"], json!(true), "{drawn}");
    assert_eq!(drawn["styleAttributes"], json!(true), "{drawn}");
    app.close().await.unwrap();
}
