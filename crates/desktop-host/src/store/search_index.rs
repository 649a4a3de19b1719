//! Writing the search index. Each message has a row in `message_search` (FTS5 with the trigram tokenizer: its
//! readable text) and a row with the same id in `message_search_ends` (that text's last character and last two
//! characters, folded as the tokenizer folds them: the places no trigram starts at, which `short_terms` needs).
//! Both are written here, together; a message's rows leave both when it is deleted (triggers on `messages`).

use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};

use super::trigram_fold::fold_char;

/// What `message_search_ends` holds for one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TextEnds {
    /// The last character, folded; `None` for an empty text.
    pub(super) last1: Option<String>,
    /// The last two characters, folded; `None` for a text shorter than two characters.
    pub(super) last2: Option<String>,
}

/// The ends of `text` as the tokenizer reads it: folded, and without NUL characters, which it skips.
pub(super) fn text_ends(text: &str) -> TextEnds {
    let mut from_the_end = text
        .chars()
        .rev()
        .filter(|&character| character != '\0')
        .map(fold_char);
    let last = from_the_end.next();
    let second_last = from_the_end.next();
    TextEnds {
        last1: last.map(String::from),
        last2: second_last
            .zip(last)
            .map(|(first, second)| [first, second].iter().collect()),
    }
}

/// Indexes a new message.
pub(super) fn index_message(connection: &Connection, id: i64, text: &str) -> rusqlite::Result<()> {
    connection
        .prepare_cached("INSERT INTO message_search (rowid, text) VALUES (?1, ?2)")?
        .execute(params![id, text])?;
    write_ends(connection, id, text)
}

/// Indexes the new text of a message already indexed (a checkpoint overwritten).
pub(super) fn reindex_message(
    connection: &Connection,
    id: i64,
    text: &str,
) -> rusqlite::Result<()> {
    let n_rows = connection
        .prepare_cached("UPDATE message_search SET text = ?2 WHERE rowid = ?1")?
        .execute(params![id, text])?;
    if n_rows == 0 {
        return Ok(());
    }
    write_ends(connection, id, text)
}

/// Writes the ends of every text in `message_search` (the upgrade to the schema that has them).
pub(super) fn write_all_ends(connection: &Connection) -> rusqlite::Result<()> {
    let mut select = connection.prepare("SELECT rowid, text FROM message_search")?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        // The text came from Rust strings; any other value ends in nothing searchable.
        let text = match row.get_ref(1)? {
            ValueRef::Text(bytes) => String::from_utf8_lossy(bytes),
            _ => "".into(),
        };
        write_ends(connection, id, &text)?;
    }
    Ok(())
}

fn write_ends(connection: &Connection, id: i64, text: &str) -> rusqlite::Result<()> {
    let ends = text_ends(text);
    connection
        .prepare_cached(
            "INSERT OR REPLACE INTO message_search_ends (id, last1, last2) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![id, ends.last1, ends.last2])?;
    Ok(())
}
