//! Short terms through the newest chunk, the index's vocabulary and the ends table, against checking every text
//! (the plain `LIKE` scan) and against `LIKE`'s own rule written out in Rust. `chunk` 0 sends every search to the
//! index; a small one lets a few hundred messages stand for a long history.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::super::clock::ManualClock;
use super::super::conversation_id::ConversationId;
use super::super::search::{Scope, SearchHit, Terms, statement};
use super::super::search_index::{TextEnds, text_ends};
use super::super::store_handle::{Store, UNDO_WINDOW_MS};
use super::*;

const START_MS: i64 = 1_796_040_000_000;

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": 1})
}

fn assistant(text: &str) -> Value {
    json!({
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "scripted", "provider": "scripted", "model": "scripted-1",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "stop",
        "timestamp": 1,
    })
}

struct Fixture {
    clock: ManualClock,
    store: Store,
}

impl Fixture {
    fn new() -> Self {
        let clock = ManualClock::new(START_MS);
        let store = Store::open_in_memory(Arc::new(clock.clone())).unwrap();
        Self { clock, store }
    }

    /// A conversation of user messages with these texts, in order.
    fn conversation(&self, texts: &[&str]) -> ConversationId {
        let id = self.store.create_conversation(None).unwrap().id;
        for text in texts {
            self.store.append_message(&id, &user(text)).unwrap();
        }
        self.clock.advance(1_000);
        id
    }

    /// The texts of the messages found, as the search shows them.
    fn found(&self, query: &str, chunk: i64) -> Vec<String> {
        let hits = self.store.search_with_chunk(query, 50, chunk).unwrap();
        assert_eq!(
            hits,
            self.plain(query, 50),
            "{query:?} with chunk {chunk} differs from the plain scan"
        );
        hits.iter().map(text_of).collect()
    }

    /// The search as it was before short terms had an index: every text checked.
    fn plain(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.store
            .search_with_chunk(query, limit, i64::MAX)
            .unwrap()
    }

    /// Checks that `message_search_ends` has exactly one row per indexed text, holding that text's ends.
    fn assert_ends_in_step(&self) {
        self.store
            .with_connection(|connection| {
                let read = |sql: &str| -> Vec<(i64, TextEnds)> {
                    let mut statement = connection.prepare(sql).unwrap();
                    statement
                        .query_map([], |row| {
                            Ok((
                                row.get(0)?,
                                TextEnds {
                                    last1: row.get(1)?,
                                    last2: row.get(2)?,
                                },
                            ))
                        })
                        .unwrap()
                        .collect::<Result<_, _>>()
                        .unwrap()
                };
                let mut expected = Vec::new();
                let mut statement = connection
                    .prepare("SELECT rowid, text FROM message_search ORDER BY rowid")
                    .unwrap();
                let mut rows = statement.query([]).unwrap();
                while let Some(row) = rows.next().unwrap() {
                    let text: String = row.get(1).unwrap();
                    expected.push((row.get(0).unwrap(), text_ends(&text)));
                }
                assert_eq!(
                    read("SELECT id, last1, last2 FROM message_search_ends ORDER BY id"),
                    expected
                );
                Ok(())
            })
            .unwrap();
    }

    fn n_ends_rows(&self) -> i64 {
        self.store
            .with_connection(|connection| {
                Ok(connection
                    .query_row("SELECT count(*) FROM message_search_ends", [], |row| {
                        row.get(0)
                    })
                    .unwrap())
            })
            .unwrap()
    }
}

fn text_of(hit: &SearchHit) -> String {
    hit.snippet.iter().map(|part| part.text.as_str()).collect()
}

fn texts(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|text| (*text).to_owned()).collect()
}

#[test]
fn a_two_character_term_is_found_in_the_middle_at_the_end_and_as_the_whole_text() {
    let fixture = Fixture::new();
    fixture.conversation(&["我的熊猫玩具", "一只熊猫", "熊猫", "熊", "猫熊", "熊 猫"]);
    assert_eq!(
        fixture.found("熊猫", 0),
        texts(&["我的熊猫玩具", "一只熊猫", "熊猫"])
    );
}

#[test]
fn a_one_character_term_is_found_last_second_to_last_and_anywhere_else() {
    let fixture = Fixture::new();
    fixture.conversation(&["abcx", "abxc", "xbcd", "x", "xy", "abc", ""]);
    assert_eq!(
        fixture.found("x", 0),
        texts(&["abcx", "abxc", "xbcd", "x", "xy"])
    );
    assert_eq!(fixture.found("猫", 0), Vec::<String>::new());
}

#[test]
fn short_terms_fold_ascii_letters_only_as_like_does() {
    let fixture = Fixture::new();
    fixture.conversation(&["Raspberry PI", "pi", "uPi!", "pie", "p i"]);
    assert_eq!(
        fixture.found("pI", 0),
        texts(&["Raspberry PI", "pi", "uPi!", "pie"])
    );
    // The index folds Ä to ä, `LIKE` only B to b: the candidates come folded, the check keeps `LIKE`'s answer.
    fixture.conversation(&["xxÄB", "xxäb", "ÄBxx", "äbxx", "xxÄb", "Äb", "ä"]);
    assert_eq!(fixture.found("äb", 0), texts(&["xxäb", "äbxx"]));
    assert_eq!(
        fixture.found("ÄB", 0),
        texts(&["xxÄB", "ÄBxx", "xxÄb", "Äb"])
    );
    assert_eq!(
        fixture.found("Ä", 0),
        texts(&["xxÄB", "ÄBxx", "xxÄb", "Äb"])
    );
    assert_eq!(fixture.found("ä", 0), texts(&["xxäb", "äbxx", "ä"]));
}

#[test]
fn a_short_term_with_a_long_one_needs_both() {
    let fixture = Fixture::new();
    fixture.conversation(&[
        "budget for pi",
        "pi budget",
        "budget only",
        "only pi",
        "budgetpi",
    ]);
    assert_eq!(
        fixture.found("pi budget", 0),
        texts(&["budget for pi", "pi budget", "budgetpi"])
    );
    assert_eq!(fixture.found("budget 熊猫", 0), Vec::<String>::new());
    assert_eq!(fixture.found("pi 熊猫", 0), Vec::<String>::new());
    assert_eq!(fixture.found("fo pi", 0), texts(&["budget for pi"]));
}

#[test]
fn many_texts_ending_in_the_term_are_read_through_the_long_terms_matches() {
    let fixture = Fixture::new();
    // More endings in "ab" than are checked one by one, and the two with "budget" older than the newest matches
    // of "budget" that step 1 reads.
    let endings: Vec<String> = (0..=FEW_ENDINGS)
        .map(|n| match n {
            7 | 107 => format!("budget {n} ab"),
            _ => format!("note {n} ab"),
        })
        .collect();
    fixture.conversation(&endings.iter().map(String::as_str).collect::<Vec<_>>());
    let newer = usize::try_from(NEWEST_LONG_MATCHES).unwrap() + 10;
    let budgets: Vec<String> = (0..newer).map(|n| format!("budget {n}")).collect();
    fixture.conversation(&budgets.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        fixture.found("ab budget", 0),
        texts(&["budget 7 ab", "budget 107 ab"])
    );
}

#[test]
fn a_term_starting_too_many_trigrams_leaves_the_lead_to_another_or_reads_every_text() {
    let fixture = Fixture::new();
    let many: Vec<String> = (0..=u32::try_from(MAX_EXPANDED_TERMS).unwrap())
        .filter_map(|n| char::from_u32(0x4E00 + n))
        .map(|character| format!("q{character}z"))
        .collect();
    fixture.conversation(&many.iter().map(String::as_str).collect::<Vec<_>>());
    fixture.conversation(&["q熊猫", "熊猫 q", "q"]);
    assert_eq!(fixture.found("q 熊猫", 0), texts(&["q熊猫", "熊猫 q"]));
    let newest: Vec<String> = many.iter().rev().take(47).rev().cloned().collect();
    let mut expected = texts(&["q熊猫", "熊猫 q", "q"]);
    expected.extend(newest);
    assert_eq!(fixture.found("q", 0), expected);
}

#[test]
fn an_absent_short_term_finds_nothing() {
    let fixture = Fixture::new();
    fixture.conversation(&["nothing here", "熊"]);
    assert_eq!(fixture.found("熊猫", 0), Vec::<String>::new());
    assert_eq!(fixture.found("q", 0), Vec::<String>::new());
    assert_eq!(fixture.found("zz", 0), Vec::<String>::new());
}

#[test]
fn a_frequent_short_term_is_answered_from_the_newest_chunk() {
    let fixture = Fixture::new();
    let older: Vec<String> = (0..100).map(|n| format!("old pi {n}")).collect();
    fixture.conversation(&older.iter().map(String::as_str).collect::<Vec<_>>());
    let newer: Vec<String> = (0..100).map(|n| format!("new pi {n}")).collect();
    fixture.conversation(&newer.iter().map(String::as_str).collect::<Vec<_>>());
    // Without the vocabulary the index cannot be read: what is found comes from the newest messages alone.
    fixture
        .store
        .with_connection(|connection| {
            connection
                .execute_batch("DROP TABLE message_search_vocab")
                .unwrap();
            Ok(())
        })
        .unwrap();
    let hits = fixture.store.search_with_chunk("pi", 10, 30).unwrap();
    let expected: Vec<String> = (90..100).map(|n| format!("new pi {n}")).collect();
    assert_eq!(hits.iter().map(text_of).collect::<Vec<_>>(), expected);
    assert!(
        fixture.store.search_with_chunk("pi", 10, 0).is_err(),
        "the index is needed past the newest messages"
    );
}

#[test]
fn a_rare_short_term_is_found_beyond_the_newest_chunk() {
    let fixture = Fixture::new();
    fixture.conversation(&["熊猫在吃竹子", "看熊猫", "pi is older"]);
    let filler: Vec<String> = (0..300).map(|n| format!("filler message {n}")).collect();
    fixture.conversation(&filler.iter().map(String::as_str).collect::<Vec<_>>());
    fixture.conversation(&["one newer pi"]);
    assert_eq!(
        fixture.found("熊猫", 50),
        texts(&["熊猫在吃竹子", "看熊猫"])
    );
    assert_eq!(
        fixture.found("pi", 50),
        texts(&["one newer pi", "pi is older"])
    );
    let one = fixture.store.search_with_chunk("pi", 1, 50).unwrap();
    assert_eq!(
        one.iter().map(text_of).collect::<Vec<_>>(),
        texts(&["one newer pi"])
    );
}

#[test]
fn a_growing_checkpoint_keeps_its_ends_in_step() {
    let fixture = Fixture::new();
    let id = fixture.conversation(&["question"]);
    let seq = fixture
        .store
        .write_checkpoint(&id, None, &assistant("熊"))
        .unwrap();
    fixture.assert_ends_in_step();
    assert_eq!(fixture.found("熊猫", 0), Vec::<String>::new());
    fixture
        .store
        .write_checkpoint(&id, Some(seq), &assistant("一只熊猫"))
        .unwrap();
    fixture.assert_ends_in_step();
    assert_eq!(fixture.found("熊猫", 0), texts(&["一只熊猫"]));
    fixture
        .store
        .finish_checkpoint(&id, seq, &assistant("一只熊猫在睡觉。Zz"))
        .unwrap();
    fixture.assert_ends_in_step();
    assert_eq!(fixture.found("zZ", 0), texts(&["一只熊猫在睡觉。Zz"]));
    assert_eq!(fixture.found("熊猫", 0), texts(&["一只熊猫在睡觉。Zz"]));
    assert_eq!(fixture.n_ends_rows(), 2);
}

#[test]
fn deleted_and_purged_messages_leave_the_ends_table() {
    let fixture = Fixture::new();
    let kept = fixture.conversation(&["kept 熊猫"]);
    let gone = fixture.conversation(&["gone 熊猫"]);
    let pair = fixture.conversation(&["asked 熊猫", "still here"]);
    fixture
        .store
        .append_message(&pair, &assistant("answered 熊猫"))
        .unwrap();
    fixture.store.append_message(&pair, &user("last")).unwrap();
    assert_eq!(fixture.n_ends_rows(), 6);

    fixture.store.delete_conversation(&gone).unwrap();
    let deleted = fixture.store.delete_message_pair(&pair, 1).unwrap();
    assert_eq!(deleted.seqs, vec![1, 2]);
    assert_eq!(
        fixture.found("熊猫", 0),
        texts(&["asked 熊猫", "kept 熊猫"])
    );
    fixture.clock.advance(UNDO_WINDOW_MS);
    fixture.store.purge_expired_deletions().unwrap();
    fixture.assert_ends_in_step();
    assert_eq!(fixture.n_ends_rows(), 3);
    assert_eq!(
        fixture.found("熊猫", 0),
        texts(&["asked 熊猫", "kept 熊猫"])
    );
    assert_eq!(fixture.store.search("熊猫", 50).unwrap().len(), 2);
    assert!(fixture.store.conversation(&kept).is_ok());
}

#[test]
fn the_statements_read_indexes_not_whole_tables() {
    let fixture = Fixture::new();
    let plan = |query: &str, scope: &Scope| -> String {
        let (sql, parameters) = statement(&Terms::parse(query), scope, 50);
        fixture
            .store
            .with_connection(|connection| {
                let mut explained = connection
                    .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .unwrap();
                let details: Vec<String> = explained
                    .query_map(rusqlite::params_from_iter(parameters), |row| row.get(3))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                Ok(details.join("\n"))
            })
            .unwrap()
    };
    let text = |value: &str| SqlValue::Text(value.to_owned());
    let newest = plan("pi", &Scope::NewerThan(10));
    assert!(newest.contains("VIRTUAL TABLE INDEX 192:>"), "{newest}");
    let indexed = plan("pi budget", &Scope::Indexed("\"pia\"".to_owned()));
    assert!(
        indexed.starts_with("SCAN message_search VIRTUAL TABLE INDEX 192:M1\n"),
        "{indexed}"
    );
    for (index, condition, values, search) in [
        (
            "message_search_ends_by_last2",
            "e.last2 = ?",
            vec![text("pi")],
            "INDEX message_search_ends_by_last2 (last2=?)",
        ),
        (
            "message_search_ends_by_last1",
            "e.last1 = ?",
            vec![text("p")],
            "INDEX message_search_ends_by_last1 (last1=?)",
        ),
        (
            "message_search_ends_by_last2",
            "e.last2 >= ? AND e.last2 < ?",
            vec![text("p"), text("q")],
            "INDEX message_search_ends_by_last2 (last2>? AND last2<?)",
        ),
    ] {
        let ends = plan(
            "pi budget",
            &Scope::Ends {
                index,
                condition: condition.to_owned(),
                values: values.clone(),
            },
        );
        let lines: Vec<&str> = ends.lines().collect();
        assert!(
            lines[0].starts_with("SEARCH e ") && lines[0].contains(search),
            "{ends}"
        );
        assert_eq!(
            lines[1], "SCAN message_search VIRTUAL TABLE INDEX 0:=M1",
            "{ends}"
        );
        // Rows of one ending come in id order; a range of endings is sorted (`FEW_ENDINGS` rows at most, or
        // messages whose second-to-last character is the term).
        assert_eq!(
            ends.contains("TEMP B-TREE"),
            condition.contains(">="),
            "{ends}"
        );
        let matched = plan(
            "pi budget",
            &Scope::IndexedWithEnds {
                condition: condition.to_owned(),
                values,
            },
        );
        let lines: Vec<&str> = matched.lines().collect();
        assert_eq!(
            lines[0], "SCAN message_search VIRTUAL TABLE INDEX 192:M1",
            "{matched}"
        );
        assert!(
            lines[1].contains("SEARCH e USING INTEGER PRIMARY KEY (rowid=?)"),
            "{matched}"
        );
    }
    let vocabulary = fixture
        .store
        .with_connection(|connection| {
            Ok(connection
                .query_row(
                    "EXPLAIN QUERY PLAN SELECT term, doc FROM message_search_vocab
                     WHERE term >= 'pi' AND term < 'pj' LIMIT 201",
                    [],
                    |row| row.get::<_, String>(3),
                )
                .unwrap())
        })
        .unwrap();
    // fts5vocab's plan number: 0x200, read from the lower bound on `term`; 0x400, stop at the upper one.
    let flags: u32 = vocabulary
        .split("INDEX ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|number| number.parse().ok())
        .unwrap();
    assert_eq!(flags & 0x600, 0x600, "{vocabulary}");
}

/// `LIKE`'s rule: `term` occurs in `text`, ASCII letters matched regardless of case, everything else exactly.
fn like_contains(text: &str, term: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let term: Vec<char> = term.chars().collect();
    text.windows(term.len()).any(|window| {
        window.iter().zip(&term).all(|(left, right)| {
            left == right || (left.is_ascii() && left.eq_ignore_ascii_case(right))
        })
    })
}

/// A small deterministic generator (xorshift).
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % u64::try_from(n).unwrap()).unwrap()
    }

    fn text(&mut self, alphabet: &[char], max_len: usize) -> String {
        let len = self.below(max_len + 1);
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())])
            .collect()
    }
}

#[test]
fn random_short_texts_and_terms_give_what_like_gives() {
    let alphabet = [
        'a', 'b', 'A', 'B', 'ä', 'Ä', '熊', '猫', '的', ' ', '%', '_', 'Σ', 'σ',
    ];
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    let fixture = Fixture::new();
    let mut written: Vec<(ConversationId, i64, String)> = Vec::new();
    for _ in 0..30 {
        let id = fixture.store.create_conversation(None).unwrap().id;
        for _ in 0..random.below(20) {
            let text = random.text(&alphabet, 7);
            let seq = fixture.store.append_message(&id, &user(&text)).unwrap();
            written.push((id.clone(), seq, text));
        }
        fixture.clock.advance(1_000);
    }
    let deleted = written[0].0.clone();
    fixture.store.delete_conversation(&deleted).unwrap();
    fixture.assert_ends_in_step();

    for round in 0..300 {
        let n_terms = 1 + random.below(2);
        let query: Vec<String> = (0..n_terms)
            .map(|_| {
                let len = if random.below(8) == 0 {
                    3
                } else {
                    1 + random.below(2)
                };
                (0..len)
                    .map(|_| alphabet[random.below(alphabet.len())])
                    .filter(|character| *character != ' ')
                    .collect::<String>()
            })
            .filter(|term| !term.is_empty())
            .collect();
        let query = query.join(" ");
        if query.is_empty() {
            continue;
        }
        let limit = [1, 3, 50][random.below(3)];
        let chunk = [0, 5, 40, i64::MAX][random.below(4)];
        let hits = fixture
            .store
            .search_with_chunk(&query, limit, chunk)
            .unwrap();
        assert_eq!(
            hits,
            fixture.plain(&query, limit),
            "round {round}: {query:?}, limit {limit}, chunk {chunk}"
        );
        if query
            .split_whitespace()
            .all(|term| term.chars().count() < 3)
        {
            // Messages are written in order, so the newest are the last written.
            let mut expected: Vec<(ConversationId, i64)> = written
                .iter()
                .rev()
                .filter(|(id, _, text)| {
                    *id != deleted
                        && query
                            .split_whitespace()
                            .all(|term| like_contains(text, term))
                })
                .take(limit)
                .map(|(id, seq, _)| (id.clone(), *seq))
                .collect();
            let mut found: Vec<(ConversationId, i64)> = hits
                .iter()
                .map(|hit| (hit.conversation_id.clone(), hit.message_seq))
                .collect();
            expected.sort_by(|left, right| {
                left.0
                    .as_str()
                    .cmp(right.0.as_str())
                    .then(left.1.cmp(&right.1))
            });
            found.sort_by(|left, right| {
                left.0
                    .as_str()
                    .cmp(right.0.as_str())
                    .then(left.1.cmp(&right.1))
            });
            assert_eq!(
                found, expected,
                "round {round}: {query:?}, limit {limit}, chunk {chunk}"
            );
        }
    }
}

#[test]
fn after_prefix_is_the_next_text_in_byte_order() {
    assert_eq!(after_prefix("pi").as_deref(), Some("pj"));
    assert_eq!(after_prefix("熊").as_deref(), Some("熋"));
    assert_eq!(after_prefix("a\u{D7FF}").as_deref(), Some("a\u{E000}"));
    assert_eq!(after_prefix("a\u{10FFFF}").as_deref(), Some("b"));
    assert_eq!(after_prefix("\u{10FFFF}"), None);
}

#[test]
fn a_term_with_a_nul_character_is_checked_as_like_checks_it() {
    let fixture = Fixture::new();
    fixture.conversation(&["ab", "abc", "b"]);
    for chunk in [0, i64::MAX] {
        let hits = fixture.store.search_with_chunk("b\0", 50, chunk).unwrap();
        // `LIKE '%b\0%'` reads as `LIKE '%b'`: texts ending in b.
        assert_eq!(
            hits.iter().map(text_of).collect::<Vec<_>>(),
            texts(&["ab", "b"])
        );
    }
}
