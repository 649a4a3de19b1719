//! Which messages a search with a term of one or two characters reads. `LIKE`, which checks such a term, has no
//! index, and checking every text of a long history takes more than half a second when the term is rare; so the
//! newest matches are looked for in two steps, each giving exactly what checking every text would:
//!
//! 1. Among the newest [`NEWEST_CHUNK`] messages and, with terms of three characters or more, at least the newest
//!    [`NEWEST_LONG_MATCHES`] matches of those. A frequent term fills the limit there, and those matches are then
//!    the newest of all; long terms with fewer matches leave nothing else to check.
//! 2. Among candidates the index leads to, for one short term (the lead). An occurrence of it with at least three
//!    characters from its start to the end of the text starts a trigram of the index, which holds trigrams folded
//!    as the tokenizer folds them (`trigram_fold`; `LIKE` tells apart less, ASCII letters only): the index's
//!    vocabulary (`message_search_vocab`) lists the trigrams starting with the folded term, and a `MATCH` on any
//!    of them finds those messages. An occurrence in the last two characters starts no trigram (a text shorter
//!    than three characters has none at all): `message_search_ends` holds every text's folded last one and two
//!    characters (see `search_index`). Every term is then checked on the candidates as it always is.
//!
//! The short term whose trigrams are in the fewest messages leads. A term with more than [`MAX_EXPANDED_TERMS`]
//! trigrams, or trigrams in more than [`MAX_LEAD_OCCURRENCES`] messages, cannot lead (it is frequent, so step 1
//! usually answers); without a lead every text is checked as before.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use super::error::StoreError;
use super::search::{HitRow, Scope, Terms, matching_rows, phrase};
use super::trigram_fold::fold;

/// How many of the newest messages step 1 reads: enough that a term in one message of
/// `NEWEST_CHUNK / limit` is found there, few enough to read in a few milliseconds.
pub(super) const NEWEST_CHUNK: i64 = 10_000;

/// With terms of three characters or more, how many of their newest matches step 1 reads at least.
const NEWEST_LONG_MATCHES: i64 = 2_000;

/// The most trigrams a lead may start: its `MATCH` names each of them.
const MAX_EXPANDED_TERMS: usize = 200;

/// The most messages a lead's trigrams may be in, summed: reading the vocabulary counts each one (about 30 ns
/// apiece), so a frequent term's would take longer than the search it serves.
const MAX_LEAD_OCCURRENCES: i64 = 50_000;

/// With terms of three characters or more, the most messages ending in the lead that are checked one by one (a
/// lookup in the index each, about 0.15 ms); past it the long terms' matches are read in order instead, and their
/// endings checked.
const FEW_ENDINGS: usize = 200;

/// The `limit` newest live messages containing every term of `terms`, at least one of which is short, newest
/// first; see the module's documentation.
pub(super) fn newest_matches(
    connection: &Connection,
    terms: &Terms,
    limit: usize,
    newest_chunk: i64,
) -> Result<Vec<HitRow>, StoreError> {
    let Some(newest) = newest_id(connection)? else {
        return Ok(Vec::new());
    };
    let Some(floor) = step_one_floor(connection, terms, newest.saturating_sub(newest_chunk))?
    else {
        return matching_rows(connection, terms, &Scope::Everything, limit);
    };
    let recent = matching_rows(connection, terms, &Scope::NewerThan(floor), limit)?;
    if recent.len() >= limit {
        return Ok(recent);
    }
    let Some(lead) = lead(connection, terms)? else {
        return matching_rows(connection, terms, &Scope::Everything, limit);
    };
    let mut rows = Vec::new();
    for scope in candidate_scopes(connection, terms, &lead)? {
        rows.extend(matching_rows(connection, terms, &scope, limit)?);
    }
    rows.sort_by_key(|row| std::cmp::Reverse(row.id));
    rows.dedup_by_key(|row| row.id);
    rows.truncate(limit);
    Ok(rows)
}

/// The id above which step 1 reads: `chunk_floor`, or lower to take in the newest [`NEWEST_LONG_MATCHES`]
/// matches of the long terms; `None` when the long terms have fewer matches than that, all of which step 1 then
/// reads.
fn step_one_floor(
    connection: &Connection,
    terms: &Terms,
    chunk_floor: i64,
) -> Result<Option<i64>, StoreError> {
    let Some(expression) = terms.indexed_expression() else {
        return Ok(Some(chunk_floor));
    };
    let last_read: Option<i64> = connection
        .query_row(
            "SELECT rowid FROM message_search WHERE message_search MATCH ?1
             ORDER BY rowid DESC LIMIT 1 OFFSET ?2",
            (expression, NEWEST_LONG_MATCHES - 1),
            |row| row.get(0),
        )
        .optional()
        .map_err(StoreError::sqlite("search messages"))?;
    Ok(last_read.map(|id| chunk_floor.min(id.saturating_sub(1))))
}

/// The short term whose candidates are read, folded, and the trigrams of the index that start with it.
struct Lead {
    key: String,
    trigrams: Vec<String>,
}

fn newest_id(connection: &Connection) -> Result<Option<i64>, StoreError> {
    connection
        .query_row(
            "SELECT rowid FROM message_search ORDER BY rowid DESC LIMIT 1",
            [],
            |row| row.get(0),
        )
        .optional()
        .map_err(StoreError::sqlite("search messages"))
}

/// The short term whose trigrams are in the fewest messages, or `None` when none can lead.
fn lead(connection: &Connection, terms: &Terms) -> Result<Option<Lead>, StoreError> {
    let mut best: Option<(i64, Lead)> = None;
    for term in &terms.short {
        // `LIKE` reads its pattern up to a NUL character, so such a term is not a substring test; it can still
        // be checked on the candidates of another term.
        if term.contains('\0') {
            continue;
        }
        let key = fold(term);
        let Some((trigrams, n_occurrences)) = trigrams_starting_with(connection, &key)? else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(fewest, _)| n_occurrences < *fewest)
        {
            best = Some((n_occurrences, Lead { key, trigrams }));
        }
    }
    Ok(best.map(|(_, lead)| lead))
}

/// The index's trigrams that start with `prefix` and the number of messages each is in, summed; `None` past
/// [`MAX_EXPANDED_TERMS`] trigrams or [`MAX_LEAD_OCCURRENCES`] messages.
fn trigrams_starting_with(
    connection: &Connection,
    prefix: &str,
) -> Result<Option<(Vec<String>, i64)>, StoreError> {
    let read = || -> rusqlite::Result<Option<(Vec<String>, i64)>> {
        let (range, values) = starting_with("term", prefix);
        let mut statement = connection.prepare(&format!(
            "SELECT term, doc FROM message_search_vocab WHERE {range}"
        ))?;
        let mut rows = statement.query(params_from_iter(values))?;
        let mut trigrams = Vec::new();
        let mut n_occurrences: i64 = 0;
        while let Some(row) = rows.next()? {
            trigrams.push(row.get(0)?);
            n_occurrences = n_occurrences.saturating_add(row.get(1)?);
            if trigrams.len() > MAX_EXPANDED_TERMS || n_occurrences > MAX_LEAD_OCCURRENCES {
                return Ok(None);
            }
        }
        Ok(Some((trigrams, n_occurrences)))
    };
    read().map_err(StoreError::sqlite("read the search index's vocabulary"))
}

/// The scopes whose messages together hold every occurrence of the lead: the index's, and one per place at the
/// end of a text where it may be.
fn candidate_scopes(
    connection: &Connection,
    terms: &Terms,
    lead: &Lead,
) -> Result<Vec<Scope>, StoreError> {
    let mut scopes = Vec::new();
    if !lead.trigrams.is_empty() {
        let any: Vec<String> = lead
            .trigrams
            .iter()
            .map(|trigram| phrase(trigram))
            .collect();
        scopes.push(Scope::Indexed(any.join(" OR ")));
    }
    let key = SqlValue::Text(lead.key.clone());
    let endings = if lead.key.chars().count() == 1 {
        // The last character, or the one before it.
        let (second_last, values) = starting_with("e.last2", &lead.key);
        vec![
            (
                "message_search_ends_by_last1",
                "e.last1 = ?".to_owned(),
                vec![key],
            ),
            ("message_search_ends_by_last2", second_last, values),
        ]
    } else {
        vec![(
            "message_search_ends_by_last2",
            "e.last2 = ?".to_owned(),
            vec![key],
        )]
    };
    for (index, condition, values) in endings {
        // Checking the long terms on each message costs a lookup in the index; past `FEW_ENDINGS` messages,
        // reading the long terms' matches in order and checking their endings is cheaper.
        let one_by_one = terms.indexed.is_empty()
            || count_up_to(connection, index, &condition, &values, FEW_ENDINGS + 1)? <= FEW_ENDINGS;
        scopes.push(if one_by_one {
            Scope::Ends {
                index,
                condition,
                values,
            }
        } else {
            Scope::IndexedWithEnds { condition, values }
        });
    }
    Ok(scopes)
}

/// How many rows of `message_search_ends` (`e`) meet `condition`, counting no further than `cap`.
fn count_up_to(
    connection: &Connection,
    index: &str,
    condition: &str,
    values: &[SqlValue],
    cap: usize,
) -> Result<usize, StoreError> {
    let mut parameters = values.to_vec();
    parameters.push(SqlValue::Integer(i64::try_from(cap).unwrap_or(i64::MAX)));
    let n_rows: i64 = connection
        .query_row(
            &format!(
                "SELECT count(*) FROM (SELECT 1 FROM message_search_ends e INDEXED BY {index}
                 WHERE {condition} LIMIT ?)"
            ),
            params_from_iter(parameters),
            |row| row.get(0),
        )
        .map_err(StoreError::sqlite("search messages"))?;
    Ok(usize::try_from(n_rows).unwrap_or(usize::MAX))
}

/// A condition that `column` starts with `prefix`, as a range an index can read (SQLite compares text by its
/// bytes, and UTF-8 keeps the order of code points), and its parameters.
fn starting_with(column: &str, prefix: &str) -> (String, Vec<SqlValue>) {
    let from = SqlValue::Text(prefix.to_owned());
    match after_prefix(prefix) {
        Some(after) => (
            format!("{column} >= ? AND {column} < ?"),
            vec![from, SqlValue::Text(after)],
        ),
        None => (format!("{column} >= ?"), vec![from]),
    }
}

/// The smallest text after every text starting with `prefix`, if there is one.
fn after_prefix(prefix: &str) -> Option<String> {
    let mut characters: Vec<char> = prefix.chars().collect();
    while let Some(last) = characters.pop() {
        let next = match u32::from(last) + 1 {
            0xD800 => Some('\u{E000}'),
            code => char::from_u32(code),
        };
        if let Some(next) = next {
            characters.push(next);
            return Some(characters.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests;
