use desktop_host::store::{ConversationId, SearchHit, SnippetPart};
use pretty_assertions::assert_eq;

use crate::support::{TestStore, assistant, user};

struct Corpus {
    test_store: TestStore,
    english: ConversationId,
    chinese: ConversationId,
}

fn corpus() -> Corpus {
    let test_store = TestStore::new();
    let english = test_store.store.create_conversation(None).unwrap().id;
    test_store
        .store
        .append_message(&english, &user("Where is the quarterly Report?"))
        .unwrap();
    test_store
        .store
        .append_message(
            &english,
            &assistant("The report is in Documents/finance.", "stop"),
        )
        .unwrap();
    test_store.clock.advance(1_000);
    let chinese = test_store.store.create_conversation(None).unwrap().id;
    test_store
        .store
        .append_message(&chinese, &user("请解释智能体的循环是怎么工作的"))
        .unwrap();
    test_store
        .store
        .append_message(
            &chinese,
            &assistant(
                "智能体循环先调用模型，再执行工具，然后把结果交给模型。",
                "stop",
            ),
        )
        .unwrap();
    Corpus {
        test_store,
        english,
        chinese,
    }
}

fn found(corpus: &Corpus, query: &str) -> Vec<(ConversationId, i64)> {
    corpus
        .test_store
        .store
        .search(query, 50)
        .unwrap()
        .into_iter()
        .map(|hit| (hit.conversation_id, hit.message_seq))
        .collect()
}

fn highlighted(hit: &SearchHit) -> Vec<&str> {
    hit.snippet
        .iter()
        .filter(|part| part.highlighted)
        .map(|part| part.text.as_str())
        .collect()
}

#[test]
fn english_words_are_found_case_insensitively() {
    let corpus = corpus();
    let english = corpus.english.clone();
    assert_eq!(
        found(&corpus, "report"),
        vec![(english.clone(), 0), (english.clone(), 1)]
    );
    assert_eq!(found(&corpus, "QUARTERLY"), vec![(english.clone(), 0)]);
    assert_eq!(
        found(&corpus, "report documents"),
        vec![(english.clone(), 1)]
    );
    assert_eq!(
        found(&corpus, "is"),
        vec![(english.clone(), 0), (english, 1)]
    );
    assert_eq!(found(&corpus, "kettle"), vec![]);
}

#[test]
fn chinese_words_of_any_length_are_found() {
    let corpus = corpus();
    let chinese = corpus.chinese.clone();
    assert_eq!(
        found(&corpus, "智能体"),
        vec![(chinese.clone(), 0), (chinese.clone(), 1)]
    );
    assert_eq!(
        found(&corpus, "循环"),
        vec![(chinese.clone(), 0), (chinese.clone(), 1)]
    );
    assert_eq!(found(&corpus, "工具"), vec![(chinese.clone(), 1)]);
    assert_eq!(found(&corpus, "请"), vec![(chinese.clone(), 0)]);
    assert_eq!(found(&corpus, "模型 结果"), vec![(chinese, 1)]);
    assert_eq!(found(&corpus, "文件"), vec![]);
}

#[test]
fn hits_come_newest_conversation_first_with_highlighted_snippets() {
    let corpus = corpus();
    corpus.test_store.clock.advance(1_000);
    corpus
        .test_store
        .store
        .append_message(&corpus.english, &user("是 report 的循环"))
        .unwrap();
    let hits = corpus.test_store.store.search("循环", 50).unwrap();
    let order: Vec<(&ConversationId, i64)> = hits
        .iter()
        .map(|hit| (&hit.conversation_id, hit.message_seq))
        .collect();
    assert_eq!(
        order,
        vec![
            (&corpus.english, 2),
            (&corpus.chinese, 0),
            (&corpus.chinese, 1)
        ]
    );
    assert_eq!(
        hits[2].snippet,
        vec![
            SnippetPart {
                text: "智能体".to_owned(),
                highlighted: false
            },
            SnippetPart {
                text: "循环".to_owned(),
                highlighted: true
            },
            SnippetPart {
                text: "先调用模型，再执行工具，然后把结果交给模型。".to_owned(),
                highlighted: false
            },
        ]
    );
    let hits = corpus
        .test_store
        .store
        .search("Report quarterly", 50)
        .unwrap();
    assert_eq!(highlighted(&hits[0]), vec!["quarterly", "Report"]);
    assert_eq!(
        hits[0].conversation_title.as_deref(),
        Some("Where is the quarterly Report?")
    );
}

#[test]
fn query_syntax_characters_are_searched_literally() {
    let corpus = corpus();
    let id = corpus.english.clone();
    corpus
        .test_store
        .store
        .append_message(&id, &user("100% \"done\" (mostly) a_b"))
        .unwrap();
    assert_eq!(found(&corpus, "\"done\""), vec![(id.clone(), 2)]);
    assert_eq!(found(&corpus, "0%"), vec![(id.clone(), 2)]);
    assert_eq!(found(&corpus, "(mostly)"), vec![(id.clone(), 2)]);
    assert_eq!(found(&corpus, "_"), vec![(id, 2)]);
    assert_eq!(found(&corpus, "NEAR AND OR"), vec![]);
    assert_eq!(found(&corpus, "   "), vec![]);
}

#[test]
fn words_from_the_book_chapter_are_found_in_a_long_mixed_message() {
    let test_store = TestStore::new();
    let excerpt =
        std::fs::read_to_string(crate::support::data_path("chapter_excerpt.txt")).unwrap();
    let chapter = test_store.store.create_conversation(None).unwrap().id;
    test_store
        .store
        .append_message(&chapter, &user("第 6 章讲什么？"))
        .unwrap();
    test_store
        .store
        .append_message(&chapter, &assistant(&excerpt, "stop"))
        .unwrap();
    let search = |query: &str| -> Vec<i64> {
        test_store
            .store
            .search(query, 10)
            .unwrap()
            .into_iter()
            .map(|hit| hit.message_seq)
            .collect()
    };
    assert_eq!(search("核心认识"), vec![1]);
    assert_eq!(search("替换"), vec![1]);
    assert_eq!(search("章"), vec![0, 1]);
    assert_eq!(search("agent loop"), vec![1]);
    assert_eq!(search("answerWithOneToolRound"), vec![1]);
    assert_eq!(search("Pi 循环"), vec![1]);
    assert_eq!(search("数据库"), Vec::<i64>::new());
    assert_eq!(
        search("下载"),
        Vec::<i64>::new(),
        "the excerpt stops before the download tool"
    );
}

#[test]
fn a_limited_search_keeps_the_most_recently_written_matches_shown_newest_conversation_first() {
    let test_store = TestStore::new();
    let store = &test_store.store;
    let first = store.create_conversation(None).unwrap().id;
    store
        .append_message(&first, &user("lunch order one"))
        .unwrap();
    test_store.clock.advance(1_000);
    let second = store.create_conversation(None).unwrap().id;
    store
        .append_message(&second, &user("lunch order two"))
        .unwrap();
    store
        .append_message(&second, &assistant("lunch order three", "stop"))
        .unwrap();
    test_store.clock.advance(1_000);
    // The first conversation is written to last: its newest message is the newest match of all.
    store
        .append_message(&first, &assistant("lunch order four", "stop"))
        .unwrap();

    let positions = |query: &str, limit: usize| -> Vec<(ConversationId, i64)> {
        store
            .search(query, limit)
            .unwrap()
            .into_iter()
            .map(|hit| (hit.conversation_id, hit.message_seq))
            .collect()
    };
    // Two of the four: the two written last, the first conversation (changed last) shown first.
    assert_eq!(
        positions("lunch order", 2),
        vec![(first.clone(), 1), (second.clone(), 1)]
    );
    // All four, each conversation's in message order.
    assert_eq!(
        positions("lunch", 10),
        vec![
            (first.clone(), 0),
            (first.clone(), 1),
            (second.clone(), 0),
            (second, 1)
        ]
    );
    // The same through the short-term scan (two characters, no index).
    assert_eq!(positions("lu", 1), vec![(first, 1)]);
}
