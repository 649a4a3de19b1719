use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pretty_assertions::assert_eq;

use std::time::Duration;

use crate::support::app_processes::{web_process_environment, web_processes};
use crate::support::page_poll::poll;

#[tokio::test]
async fn the_window_opens_idle_with_an_empty_composer_and_send_enabled() {
    // A usable provider (the scripted one): with nothing configured Send waits for the setup card (first_run.rs).
    let app = AppUnderTest::launch(LaunchOptions {
        envs: vec![("PI_API".to_owned(), "scripted".to_owned())],
        args: Vec::new(),
    })
    .await
    .unwrap();

    let composer = app.find_test_id("composer-input").await.unwrap();
    assert!(composer.is_displayed().await.unwrap());
    assert_eq!(composer.prop("value").await.unwrap().as_deref(), Some(""));
    let send = app.find_test_id("send-button").await.unwrap();
    assert!(
        send.is_enabled().await.unwrap(),
        "Send must be enabled on an idle app"
    );
    let stop = app.find_test_id("stop-button").await.unwrap();
    assert!(
        !stop.is_enabled().await.unwrap(),
        "Stop must be disabled on an idle app"
    );
    let run_status = app.find_test_id("run-status").await.unwrap();
    assert_eq!(
        run_status.attr("data-state").await.unwrap().as_deref(),
        Some("idle")
    );
    assert!(
        app.find_test_id("settings-button")
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap()
    );
    // The title comes from the `app_info` command: IPC to the real backend works under the capability.
    app.wait_for_text(
        "app-title",
        &format!("Pi Desktop {}", env!("CARGO_PKG_VERSION")),
    )
    .await
    .unwrap();

    app.screenshot("window-opens").await.unwrap();
    app.close().await.unwrap();
}

/// The app with the scripted provider and these variables added to its environment.
async fn launch_scripted(envs: &[(&str, &str)]) -> AppUnderTest {
    let mut all = vec![("PI_API".to_owned(), "scripted".to_owned())];
    all.extend(
        envs.iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
    );
    AppUnderTest::launch(LaunchOptions {
        envs: all,
        args: Vec::new(),
    })
    .await
    .unwrap()
}

/// The app's environment variables, as the WebKit it started inherited them.
fn app_environment(app: &AppUnderTest) -> Vec<String> {
    web_process_environment(u32::try_from(app.app_pid().unwrap()).unwrap())
}

/// `window.__piDesktopJsHeap()` parsed, or null when the page has no such function.
const JS_HEAP: &str = "const report = window.__piDesktopJsHeap; \
    return typeof report === 'function' ? JSON.parse(report()) : null;";

#[tokio::test]
async fn the_web_process_loads_the_extension_that_gives_its_freed_memory_back() {
    let app = launch_scripted(&[]).await;
    app.find_test_id("composer-input").await.unwrap();
    app.send_prompt("Hello").await.unwrap();
    app.wait_for_css(r#"[data-testid="message-assistant"][data-state="done"]"#)
        .await
        .unwrap();

    let app_pid = u32::try_from(app.app_pid().unwrap()).unwrap();
    let processes = web_processes(app_pid);
    assert!(!processes.is_empty(), "the app has no web process");
    for process in processes {
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", process.pid)).unwrap();
        assert!(
            maps.contains("/web-extension/libpi_desktop_web_process.so"),
            "web process {} has not loaded the extension",
            process.pid
        );
    }
    // The heap report is for the benchmarks: a page started without asking for it has no such function.
    let heap = app.client().execute(JS_HEAP, vec![]).await.unwrap();
    assert_eq!(heap, serde_json::Value::Null);
    app.close().await.unwrap();
}

#[tokio::test]
async fn asked_for_it_the_extension_gives_the_page_its_javascript_heap() {
    let app = launch_scripted(&[("PI_DESKTOP_REPORT_JS_HEAP", "1")]).await;
    app.find_test_id("composer-input").await.unwrap();

    let heap = app.client().execute(JS_HEAP, vec![]).await.unwrap();
    let size = heap["heapSize"].as_f64().unwrap();
    let capacity = heap["heapCapacity"].as_f64().unwrap();
    assert!(size > 0.0, "{heap}");
    assert!(capacity >= size, "{heap}");
    assert!(
        heap["objectTypeCounts"]["HTMLDivElement"].as_f64().unwrap() > 0.0,
        "{heap}"
    );
    app.close().await.unwrap();
}

/// `window.__piDesktopCachesEmptied()` of the current window's page (`{told, emptied, ms}`), once its `counter`
/// (`told` or `emptied`) is above zero.
async fn caches_once_above_zero(app: &AppUnderTest, counter: &str) -> serde_json::Value {
    let script = format!(
        "const report = window.__piDesktopCachesEmptied; \
         const c = typeof report === 'function' ? JSON.parse(report()) : null; \
         return c && c.{counter} > 0 ? c : null;"
    );
    poll(app, &script, Duration::from_secs(20)).await
}

#[tokio::test]
async fn the_web_process_empties_webkit_s_caches_once_the_window_goes_behind_not_while_it_is_in_front()
 {
    let app = launch_scripted(&[("PI_DESKTOP_REPORT_JS_HEAP", "1")]).await;
    app.find_test_id("composer-input").await.unwrap();
    let main = app.client().window().await.unwrap();
    app.send_prompt("Hello").await.unwrap();
    app.wait_for_css(r#"[data-testid="message-assistant"][data-state="done"]"#)
        .await
        .unwrap();

    // The app tells the web process about each quiet spell; in front, in the first minute, it only trims.
    let quiet = caches_once_above_zero(&app, "told").await;
    assert_eq!(quiet["emptied"], 0, "{quiet}");

    // The quick-ask window takes the focus: the main window is behind, and its web process worked since. The
    // quick-ask window's own page hears of the quiet spell after it opened as a window in front.
    let quick = app.open_quick_ask(&main).await.unwrap();
    app.client().switch_to_window(quick).await.unwrap();
    app.find_test_id("quick-ask-input").await.unwrap();
    let quick_quiet = caches_once_above_zero(&app, "told").await;
    assert_eq!(quick_quiet["emptied"], 0, "{quick_quiet}");
    app.client().switch_to_window(main).await.unwrap();
    let behind = caches_once_above_zero(&app, "emptied").await;
    assert_eq!(behind["emptied"], 1, "{behind}");
    assert!(behind["ms"].as_u64().is_some(), "{behind}");
    app.close().await.unwrap();
}

#[tokio::test]
async fn without_a_gpu_render_node_the_app_draws_without_compositing_and_a_value_set_by_hand_stays()
{
    let has_render_node = std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    });
    let app = launch_scripted(&[]).await;
    app.find_test_id("composer-input").await.unwrap();
    let compositing_off = app_environment(&app)
        .iter()
        .any(|entry| entry == "WEBKIT_DISABLE_COMPOSITING_MODE=1");
    assert_eq!(compositing_off, !has_render_node);
    app.send_prompt("Hello").await.unwrap();
    app.wait_for_css(r#"[data-testid="message-assistant"][data-state="done"]"#)
        .await
        .unwrap();
    app.close().await.unwrap();

    let app = launch_scripted(&[("WEBKIT_DISABLE_COMPOSITING_MODE", "0")]).await;
    app.find_test_id("composer-input").await.unwrap();
    let environment = app_environment(&app);
    assert!(
        environment
            .iter()
            .any(|entry| entry == "WEBKIT_DISABLE_COMPOSITING_MODE=0")
    );
    assert!(
        !environment
            .iter()
            .any(|entry| entry == "WEBKIT_DISABLE_COMPOSITING_MODE=1")
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn the_safe_rendering_switch_starts_webkit_without_dma_buf_and_the_window_still_works() {
    let app = launch_scripted(&[("PI_DESKTOP_SAFE_RENDERING", "1")]).await;

    app.find_test_id("composer-input").await.unwrap();
    let environment = app_environment(&app);
    for wanted in [
        "WEBKIT_DISABLE_DMABUF_RENDERER=1",
        "WEBKIT_DISABLE_COMPOSITING_MODE=1",
    ] {
        assert!(
            environment.iter().any(|entry| entry == wanted),
            "{wanted} is not in the app's environment"
        );
    }
    app.send_prompt("Hello").await.unwrap();
    app.wait_for_css(r#"[data-testid="message-assistant"][data-state="done"]"#)
        .await
        .unwrap();
    app.close().await.unwrap();
}
