//! A big history in the real window, reported and never asserted: 10,000 conversations of 100 messages each
//! (1,000,000 messages, a tenth of them tool calls or their results, English with some Chinese) are written
//! through the app's own store before the app starts; then the time from the app process's start to the first
//! conversation in the sidebar, the time from typing each of a set of English and Chinese queries into the
//! sidebar's search box to its results on screen (in the page, `performance.now()`, checked once a frame), the
//! store's search alone over the same queries, the database's size and the memory of all app processes (PSS).
//! Seeding a million messages takes minutes, so the database is written once into
//! `$CARGO_TARGET_DIR/bench-data/` (keyed by the counts) and copied for each run; the store's search alone opens
//! that file itself, so a build with a newer schema upgrades it there (its backup left beside it). Run it with
//! `scripts/bench-big-history.sh`; `--conversations N` (default 10,000), `--messages N` (per conversation, a
//! multiple of 10, default 100), `--runs N` (default 1), `--repeats N` (per query, default 5), `--store-only 1`
//! (no app: seeds or loads the database and reports only the store's search alone, the time opening the store
//! took, a schema upgrade included, and the database's size; needs neither a display nor the app's binary, e.g.
//! `cargo run --release -p pi-desktop-e2e --features e2e --example big_history_bench -- --store-only 1`).
#![allow(clippy::print_stdout, reason = "a benchmark prints its report")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark aborts on the first failed step, like a test"
)]

#[allow(dead_code, reason = "shared with the tests, which use more of it")]
#[path = "../tests/support/model_server.rs"]
mod model_server;

#[allow(
    dead_code,
    reason = "shared with the other benchmarks, which use more of it"
)]
#[path = "../tests/support/app_processes.rs"]
mod app_processes;

#[allow(
    dead_code,
    reason = "shared with the other benchmarks, which use more of it"
)]
#[path = "../tests/support/bench_report.rs"]
mod bench_report;

#[path = "../tests/support/page_poll.rs"]
mod page_poll;

#[path = "../tests/support/stored_history.rs"]
mod stored_history;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use desktop_host::store::{ManualClock, Store};
use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::OpenAiServer;
use serde_json::{Value, json};

use app_processes::{app_process, app_pss_kib, uptime_seconds};
use bench_report::{Stats, load_average, mib};
use model_server::LaunchApp;
use page_poll::poll;
use stored_history::{assistant, database_in, tool_result, user};

/// How long memory is left to settle before it is read.
const SETTLE: Duration = Duration::from_secs(5);
/// Bumped whenever the seeded content changes, so a stale cached database is not reused.
const SEED_VERSION: u32 = 2;
/// The newest conversation's last change; older ones go back an hour and a half each (about 20 months in all).
const NEWEST_MS: i64 = 1_796_083_200_000;
const CONVERSATION_SPACING_MS: i64 = 90 * 60_000;

/// English words the messages are made of; frequent enough that common queries find thousands of messages.
const WORDS: &[&str] = &[
    "report",
    "budget",
    "meeting",
    "schedule",
    "invoice",
    "garden",
    "recipe",
    "travel",
    "weather",
    "summary",
    "project",
    "deadline",
    "letter",
    "photo",
    "folder",
    "archive",
    "printer",
    "network",
    "password",
    "calendar",
    "holiday",
    "train",
    "ticket",
    "museum",
    "library",
    "kitchen",
    "bicycle",
    "doctor",
    "insurance",
    "contract",
    "spreadsheet",
    "presentation",
    "quarterly",
    "customer",
    "delivery",
    "warehouse",
    "receipt",
    "mortgage",
    "birthday",
    "concert",
    "translation",
    "grammar",
    "history",
    "science",
    "planet",
    "ocean",
    "mountain",
    "river",
    "forest",
    "coffee",
    "breakfast",
    "dinner",
    "lunch",
    "music",
    "guitar",
    "piano",
    "violin",
];
/// Chinese phrases for the Chinese conversations.
const PHRASES: &[&str] = &[
    "会议纪要",
    "天气预报",
    "旅行计划",
    "项目进度",
    "预算报告",
    "下载文件夹",
    "照片整理",
    "合同条款",
    "客户反馈",
    "季度总结",
    "生日聚会",
    "火车票",
    "博物馆",
    "图书馆",
    "早餐",
    "晚饭",
    "音乐会",
    "翻译",
    "历史",
    "科学",
    "山水",
    "咖啡",
    "发票",
    "日程安排",
];
/// A word that occurs in about one message in 10,000 (English) and its Chinese counterpart.
const RARE_WORD: &str = "zeppelin";
const RARE_PHRASE: &str = "熊猫基地";

/// The queries, with their class: frequent or rare, English or Chinese, trigram index or `LIKE` (under three
/// characters).
const QUERIES: &[(&str, &str)] = &[
    ("en-frequent", "report"),
    ("en-frequent", "budget meeting"),
    ("en-rare", RARE_WORD),
    ("en-rare", "invoice zeppelin"),
    ("en-2char", "pi"),
    ("zh-frequent", "天气预报"),
    ("zh-frequent", "会议"),
    ("zh-rare", RARE_PHRASE),
    ("zh-2char", "熊猫"),
    ("zh-absent", "不存在的词"),
    ("zh-absent", "水獭"),
];

struct Options {
    conversations: usize,
    messages: usize,
    runs: usize,
    repeats: usize,
    store_only: bool,
}

fn parse_options() -> Options {
    let mut options = Options {
        conversations: 10_000,
        messages: 100,
        runs: 1,
        repeats: 5,
        store_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value: usize = args
            .next()
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("{arg} needs a number"));
        match arg.as_str() {
            "--conversations" => options.conversations = value,
            "--messages" => options.messages = value,
            "--runs" => options.runs = value,
            "--repeats" => options.repeats = value,
            "--store-only" => options.store_only = value != 0,
            other => panic!(
                "unknown argument {other}; use --conversations N --messages N --runs N --repeats N --store-only 0|1"
            ),
        }
    }
    assert!(
        options.messages >= 10 && options.messages % 10 == 0,
        "--messages must be a multiple of 10"
    );
    options
}

/// A small deterministic generator (xorshift), so every seeded database holds the same text.
struct Words(u64);

impl Words {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % 1_000_003).unwrap()
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next() % from.len()]
    }

    /// `count` words of the conversation's language, with a number now and then so texts differ.
    fn sentence(&mut self, chinese: bool, count: usize) -> String {
        let mut text = String::new();
        for position in 0..count {
            if chinese {
                text.push_str(self.pick(PHRASES));
                text.push(if position % 4 == 3 { '。' } else { '，' });
            } else {
                if position > 0 {
                    text.push(' ');
                }
                text.push_str(self.pick(WORDS));
                if position % 5 == 4 {
                    text.push_str(&format!(" {}", self.next() % 1000));
                }
            }
        }
        text
    }
}

/// Ten messages: three plain exchanges and one with a tool call and its result (`serial` numbers its call); with
/// `rare`, the first question ends with the rare word (the rare phrase in Chinese).
fn ten_messages(
    words: &mut Words,
    chinese: bool,
    rare: bool,
    serial: usize,
    timestamp: i64,
) -> Vec<Value> {
    let mut messages = Vec::with_capacity(10);
    for exchange in 0..4 {
        let mut question = words.sentence(chinese, 8);
        question.push('?');
        let answer = format!(
            "{}\n\n- **{}**\n- `{}`\n\n{}",
            words.sentence(chinese, 20),
            words.sentence(chinese, 3),
            words.sentence(chinese, 2),
            words.sentence(chinese, 15)
        );
        let serial = serial + messages.len();
        if rare && exchange == 0 {
            question.push_str(if chinese { RARE_PHRASE } else { RARE_WORD });
        }
        messages.push(user(&question, timestamp));
        if exchange == 3 {
            let call_id = format!("call_{serial}");
            let folder = words.pick(WORDS);
            messages.push(assistant(
                json!([{"type": "toolCall", "id": call_id, "name": "list_files",
                        "arguments": {"folder": folder}}]),
                "toolUse",
                timestamp,
            ));
            let listing = format!(
                "{}-{}.pdf\n{}-{}.txt\n{}.jpg",
                words.pick(WORDS),
                words.next(),
                words.pick(WORDS),
                words.next(),
                words.pick(WORDS)
            );
            messages.push(tool_result(&call_id, "list_files", &listing, timestamp));
        }
        messages.push(assistant(
            json!([{"type": "text", "text": answer}]),
            "stop",
            timestamp,
        ));
    }
    messages
}

/// Writes the history into a new database at `path`, oldest conversation first, each updated a little after
/// the one before; one conversation in ten is in Chinese.
fn seed(path: &Path, conversations: usize, messages: usize) {
    let clock = ManualClock::new(0);
    let store = Store::open_with_clock(path, Arc::new(clock.clone()))
        .unwrap()
        .store;
    let mut words = Words(0x9e37_79b9_7f4a_7c15);
    let mut serial = 0;
    for index in (0..conversations).rev() {
        let updated = NEWEST_MS - i64::try_from(index).unwrap() * CONVERSATION_SPACING_MS;
        clock.set(updated);
        let conversation = store.create_conversation(Some("test-model")).unwrap();
        let chinese = index % 10 == 7;
        for batch in 0..messages / 10 {
            // The rare word in every 10,000th message of the history that is English, the rare phrase in the
            // first question of one Chinese conversation in ten: one message in about 10,000 each with 100
            // messages per conversation.
            let rare = if chinese {
                batch == 0 && index / 10 % 10 == 0
            } else {
                serial % 10_000 == 0
            };
            for message in ten_messages(&mut words, chinese, rare, serial, updated) {
                store.append_message(&conversation.id, &message).unwrap();
            }
            serial += 10;
        }
    }
}

/// The cached database for these counts, seeded first when missing; returns it and the seconds seeding took
/// (`None` when it was cached).
fn template(conversations: usize, messages: usize) -> (PathBuf, Option<f64>) {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    let folder = target.join("bench-data");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(format!(
        "big-history-v{SEED_VERSION}-{conversations}x{messages}.sqlite3"
    ));
    if path.exists() {
        return (path, None);
    }
    // Seeded under another name and renamed when complete, so an interrupted seed is not taken for a cache.
    let partial = folder.join(format!(
        "big-history-partial-{}.sqlite3",
        std::process::id()
    ));
    let seeding = Instant::now();
    seed(&partial, conversations, messages);
    let seconds = seeding.elapsed().as_secs_f64();
    for suffix in ["-wal", "-shm"] {
        let mut side = partial.clone().into_os_string();
        side.push(suffix);
        assert!(
            !Path::new(&side).exists(),
            "the seeded database was not checkpointed"
        );
    }
    std::fs::rename(&partial, &path).unwrap();
    (path, Some(seconds))
}

/// The database file and its write-ahead log, in MiB.
#[allow(clippy::cast_precision_loss, reason = "bytes to MiB for a report")]
fn database_mib(path: &Path) -> (f64, f64) {
    let size = |path: &Path| std::fs::metadata(path).map_or(0, |metadata| metadata.len()) as f64;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    (
        size(path) / 1_048_576.0,
        size(Path::new(&wal)) / 1_048_576.0,
    )
}

/// Types `arguments[0]` into the sidebar's search box the way React sees typing (the input's own value setter,
/// then an input event); the page then stamps, once a frame, when the search results (or the no-results line)
/// for it are on screen (`window.__searched`, ms after typing, with the number of hits). A blank query waits for
/// the conversation list to come back instead.
const SEARCH_SCRIPT: &str = r#"
const [query, term] = arguments;
const box = document.querySelector('[data-testid="conversation-search"]');
const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
window.__searched = null;
const started = performance.now();
const check = () => {
  const results = document.querySelector('[data-testid="search-results"]');
  const empty = document.querySelector('.sidebar-scroll > .sidebar-empty');
  let done;
  if (query === '') {
    done = results === null && document.querySelector('[data-testid="conversation-item"]') !== null;
  } else if (results !== null) {
    const first = results.querySelector('[data-testid="search-hit"]');
    done = first !== null && first.textContent.toLowerCase().includes(term.toLowerCase());
  } else {
    done = empty !== null && empty.textContent !== '';
  }
  if (done) {
    const hits = results === null ? 0 : results.querySelectorAll('[data-testid="search-hit"]').length;
    window.__searched = { ms: performance.now() - started, hits };
    return;
  }
  requestAnimationFrame(check);
};
setValue.call(box, query);
box.dispatchEvent(new Event('input', { bubbles: true }));
requestAnimationFrame(check);
return null;
"#;

/// Waits, checking once a frame, for the first conversation in the sidebar; returns `performance.now()` then
/// (ms since the page's navigation started) and whether it was already there at the first check.
const POPULATED_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
const first = document.querySelector('[data-testid="conversation-item"]') !== null;
const check = () => {
  if (document.querySelector('[data-testid="conversation-item"]') !== null) {
    done({ now: performance.now(), already: first,
           items: document.querySelectorAll('[data-testid="conversation-item"]').length });
    return;
  }
  requestAnimationFrame(check);
};
check();
"#;

/// One search typed into the page: ms from typing to its results on screen, and the hits shown.
async fn page_search(app: &AppUnderTest, query: &str) -> (f64, u64) {
    let term = query.split_whitespace().next().unwrap_or("");
    let typed = app
        .client()
        .execute(SEARCH_SCRIPT, vec![Value::from(query), Value::from(term)])
        .await
        .unwrap();
    assert!(typed.is_null(), "{typed}");
    let searched = poll(app, "return window.__searched;", Duration::from_secs(120)).await;
    (
        searched["ms"].as_f64().unwrap(),
        searched["hits"].as_u64().unwrap(),
    )
}

/// The store's own search over `path`, `repeats` times per query, with the sidebar's limit (50): the times and
/// the hits, in the order of [`QUERIES`], and the ms opening the store took (with a schema upgrade, if any).
fn host_searches(path: &Path, repeats: usize) -> (Vec<(Stats, usize)>, f64) {
    let opening = Instant::now();
    let opened = Store::open(path).unwrap();
    let open_ms = opening.elapsed().as_secs_f64() * 1000.0;
    if !opened.notices.is_empty() {
        println!("opening the store: {:?}", opened.notices);
    }
    let store = opened.store;
    let searches = QUERIES
        .iter()
        .map(|(_, query)| {
            let mut times = Vec::new();
            let mut hits = 0;
            for _ in 0..repeats {
                let started = Instant::now();
                hits = store.search(query, 50).unwrap().len();
                times.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            (Stats::new(times), hits)
        })
        .collect();
    (searches, open_ms)
}

/// `--store-only 1`: the store's search alone over `template`, without the app.
fn report_store_only(template: &Path, repeats: usize) {
    let (host, open_ms) = host_searches(template, repeats);
    let (db_mib, wal_mib) = database_mib(template);
    println!(
        "store open {open_ms:.0} ms; database {db_mib:.1} MiB + wal {wal_mib:.1} MiB; load {}",
        load_average()
    );
    println!("class        query              hits  host_p50_ms  host_p95_ms  host_max_ms");
    for ((class, query), (times, hits)) in QUERIES.iter().zip(host) {
        println!(
            "{class:<11}  {:<17}  {hits:>4}  {:>11.1}  {:>11.1}  {:>11.1}",
            format!("{query:?}"),
            times.quantile(0.5),
            times.quantile(0.95),
            times.max()
        );
    }
    println!("load {}", load_average());
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    let total = options.conversations * options.messages;
    let (template, seeded) = template(options.conversations, options.messages);
    let (file_mib, wal_mib) = database_mib(&template);
    println!(
        "history: {} conversations, {total} messages; seed {}; database {file_mib:.1} MiB + wal {wal_mib:.1} MiB; load {}",
        options.conversations,
        seeded.map_or_else(|| "cached".to_owned(), |seconds| format!("{seconds:.1} s")),
        load_average()
    );
    if options.store_only {
        report_store_only(&template, options.repeats * options.runs.max(1) * 2);
        return;
    }
    println!(
        "run  start_to_sidebar_ms  page_populated_ms  already  items  search_p50_ms  search_p95_ms  search_max_ms  pss_mib  db_mib  wal_mib  load"
    );
    let mut per_query: Vec<Vec<f64>> = vec![Vec::new(); QUERIES.len()];
    let mut page_hits = vec![0; QUERIES.len()];
    for run in 1..=options.runs {
        let home = pi_desktop_e2e::new_home().unwrap();
        let database = database_in(home.path());
        std::fs::copy(&template, &database).unwrap();
        // No request is made: the server only gives the app a usable model.
        let server = OpenAiServer::start(vec![]).await.unwrap();
        let uptime_at_spawn = uptime_seconds();
        let spawned = Instant::now();
        let app = server.launch_app_in(home).await;
        let populated = loop {
            let found = app
                .client()
                .execute(
                    "return document.querySelector('[data-testid=\"conversation-item\"]') !== null;",
                    vec![],
                )
                .await
                .unwrap();
            if found.as_bool() == Some(true) {
                break spawned.elapsed();
            }
            assert!(spawned.elapsed() < Duration::from_secs(300), "no sidebar");
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        let process = app_process(app.home()).expect("no pi-desktop process with this home");
        let app_started_after = process.started_seconds() - uptime_at_spawn;
        let start_to_sidebar = populated.as_secs_f64() * 1000.0 - app_started_after * 1000.0;
        let page = app
            .client()
            .execute_async(POPULATED_SCRIPT, vec![])
            .await
            .unwrap();

        let mut all = Vec::new();
        for _ in 0..options.repeats {
            for (index, (_, query)) in QUERIES.iter().enumerate() {
                let (ms, hits) = page_search(&app, query).await;
                per_query[index].push(ms);
                page_hits[index] = hits;
                all.push(ms);
                page_search(&app, "").await;
            }
        }
        let all = Stats::new(all);
        tokio::time::sleep(SETTLE).await;
        let pss = app_pss_kib(app.home());
        let (db_mib, wal_mib) = database_mib(&database);
        println!(
            "{run:>3}  {start_to_sidebar:>19.0}  {:>17.0}  {:>7}  {:>5}  {:>13.0}  {:>13.0}  {:>13.0}  {:>7.0}  {db_mib:>6.1}  {wal_mib:>7.1}  {}",
            page["now"].as_f64().unwrap_or(f64::NAN),
            page["already"],
            page["items"],
            all.quantile(0.5),
            all.quantile(0.95),
            all.max(),
            mib(pss),
            load_average()
        );
        app.close().await.unwrap();
    }

    let (host, _) = host_searches(&template, options.repeats * options.runs.max(1) * 2);
    println!(
        "class        query              hits  page_p50_ms  page_p95_ms  page_max_ms  host_p50_ms  host_p95_ms  host_max_ms"
    );
    for (index, ((class, query), (times, host_hits))) in QUERIES.iter().zip(host).enumerate() {
        let page = Stats::new(per_query[index].clone());
        println!(
            "{class:<11}  {:<17}  {:>4}  {:>11.0}  {:>11.0}  {:>11.0}  {:>11.1}  {:>11.1}  {:>11.1}",
            format!("{query:?}"),
            format!("{}/{host_hits}", page_hits[index]),
            page.quantile(0.5),
            page.quantile(0.95),
            page.max(),
            times.quantile(0.5),
            times.quantile(0.95),
            times.max()
        );
    }
    println!("load {}", load_average());
}
