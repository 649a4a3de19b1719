//! Full-text search over every message of the live conversations: every version and branch, not only the shown
//! one (see `branches`); messages deleted with their pair are left out at once.
//!
//! The index (`message_search`, FTS5 with the trigram tokenizer) holds each message's readable text. A query is
//! split at whitespace into terms that must all occur, as substrings and case-insensitively: terms of three or
//! more characters go through the index (`MATCH` on a quoted phrase, which folds case as the tokenizer does),
//! shorter ones (a one- or two-character Chinese word, say) are checked with `LIKE` on the same table (which
//! folds ASCII letters only). Substring matching is what makes Chinese, which does not separate words with
//! spaces, searchable at all. A search returns the `limit` most recently written matches (highest id); which
//! messages a short term leads to without reading every text is `short_terms`' job.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::short_terms::{self, NEWEST_CHUNK};
use super::snippet::{SnippetPart, snippet};
use super::store_handle::Store;

/// Terms shorter than this (in characters) cannot use the trigram index.
pub(super) const TRIGRAM_CHARS: usize = 3;

/// One message that matches a search.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SearchHit {
    /// The conversation holding the message.
    pub conversation_id: ConversationId,
    /// That conversation's title.
    pub conversation_title: Option<String>,
    /// That conversation's last change, ms since the epoch (hits are ordered newest conversation first).
    pub conversation_updated_at: i64,
    /// The message's position in the conversation.
    pub message_seq: i64,
    /// The message's pi role (`user`, `assistant`, `toolResult`, or a custom one).
    pub role: String,
    /// The matching text around the first match, with every match highlighted.
    pub snippet: Vec<SnippetPart>,
}

impl Store {
    /// Finds messages containing every whitespace-separated term of `query`: the `limit` most recently written
    /// of them, shown newest conversation first, then in message order. A blank query finds nothing.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        self.search_with_chunk(query, limit, NEWEST_CHUNK)
    }

    /// [`Store::search`], with short terms first looked for among the newest `newest_chunk` messages (see
    /// `short_terms`); the result does not depend on `newest_chunk`, only the time it takes does.
    pub(crate) fn search_with_chunk(
        &self,
        query: &str,
        limit: usize,
        newest_chunk: i64,
    ) -> Result<Vec<SearchHit>, StoreError> {
        let terms = Terms::parse(query);
        if terms.all.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let rows = self.with_connection(|connection| {
            // One read transaction, so the several statements of a short-term search see the same messages.
            let transaction = connection
                .transaction()
                .map_err(StoreError::sqlite("search messages"))?;
            if terms.short.is_empty() {
                matching_rows(&transaction, &terms, &Scope::Everything, limit)
            } else {
                short_terms::newest_matches(&transaction, &terms, limit, newest_chunk)
            }
        })?;
        let mut hits: Vec<SearchHit> = rows
            .into_iter()
            .map(|row| SearchHit {
                conversation_id: row.conversation_id,
                conversation_title: row.conversation_title,
                conversation_updated_at: row.conversation_updated_at,
                message_seq: row.message_seq,
                role: row.role,
                snippet: snippet(&row.text, &terms.all),
            })
            .collect();
        hits.sort_by(|left, right| {
            right
                .conversation_updated_at
                .cmp(&left.conversation_updated_at)
                .then_with(|| {
                    left.conversation_id
                        .as_str()
                        .cmp(right.conversation_id.as_str())
                })
                .then_with(|| left.message_seq.cmp(&right.message_seq))
        });
        Ok(hits)
    }
}

/// A query's distinct terms, in order, and the same split by how they are matched.
pub(super) struct Terms {
    pub(super) all: Vec<String>,
    /// Three characters or more: matched through the index.
    pub(super) indexed: Vec<String>,
    /// One or two characters: matched with `LIKE`.
    pub(super) short: Vec<String>,
}

impl Terms {
    /// The FTS5 expression for the indexed terms, `None` without any.
    pub(super) fn indexed_expression(&self) -> Option<String> {
        let phrases: Vec<String> = self.indexed.iter().map(|term| phrase(term)).collect();
        (!phrases.is_empty()).then(|| phrases.join(" AND "))
    }

    pub(super) fn parse(query: &str) -> Self {
        let mut all: Vec<String> = Vec::new();
        for term in query.split_whitespace() {
            if !all.iter().any(|known| known == term) {
                all.push(term.to_owned());
            }
        }
        let (indexed, short) = all
            .iter()
            .cloned()
            .partition(|term| term.chars().count() >= TRIGRAM_CHARS);
        Self {
            all,
            indexed,
            short,
        }
    }
}

/// The messages a statement looks at before every term is checked.
pub(super) enum Scope {
    /// All of them.
    Everything,
    /// Those with an id above this one.
    NewerThan(i64),
    /// Those the index finds for this FTS5 expression.
    Indexed(String),
    /// Those whose row in `message_search_ends` (`e`), read through `index`, meets `condition`.
    Ends {
        index: &'static str,
        condition: String,
        values: Vec<SqlValue>,
    },
    /// Those the index finds for the indexed terms whose row in `message_search_ends` (`e`) meets `condition`.
    IndexedWithEnds {
        condition: String,
        values: Vec<SqlValue>,
    },
}

/// One matching message as read from the database.
pub(super) struct HitRow {
    /// The message's id, which is its row id in the index.
    pub(super) id: i64,
    pub(super) conversation_id: ConversationId,
    pub(super) conversation_title: Option<String>,
    pub(super) conversation_updated_at: i64,
    pub(super) message_seq: i64,
    pub(super) role: String,
    pub(super) text: String,
}

/// The `limit` newest (highest id) live messages of `scope` that contain every term, newest first.
pub(super) fn matching_rows(
    connection: &Connection,
    terms: &Terms,
    scope: &Scope,
    limit: usize,
) -> Result<Vec<HitRow>, StoreError> {
    let (sql, parameters) = statement(terms, scope, limit);
    let mut statement = connection
        .prepare(&sql)
        .map_err(StoreError::sqlite("search messages"))?;
    let rows = statement
        .query_map(params_from_iter(parameters), |row| {
            Ok(HitRow {
                id: row.get(0)?,
                conversation_id: ConversationId::from(row.get::<_, String>(1)?),
                conversation_title: row.get(2)?,
                conversation_updated_at: row.get(3)?,
                message_seq: row.get(4)?,
                role: row.get(5)?,
                text: row.get(6)?,
            })
        })
        .map_err(StoreError::sqlite("search messages"))?;
    rows.collect::<Result<Vec<_>, _>>()
        .map_err(StoreError::sqlite("search messages"))
}

/// The statement [`matching_rows`] runs, and its parameters.
pub(super) fn statement(terms: &Terms, scope: &Scope, limit: usize) -> (String, Vec<SqlValue>) {
    // The table read first and the order of the rows: SQLite walks them from the newest and stops at the limit,
    // instead of collecting every match of a frequent term (hundreds of thousands in a year of history) to sort
    // them by conversation. CROSS JOIN keeps this order whatever the planner estimates: left alone, it reads a
    // range of ids from `messages` (the join lends it the index's id constraint) and sorts.
    let (tables, newest_first) = match scope {
        Scope::Ends { index, .. } => (
            format!(
                "message_search_ends e INDEXED BY {index}
                 CROSS JOIN message_search ON message_search.rowid = e.id"
            ),
            "e.id DESC",
        ),
        Scope::IndexedWithEnds { .. } => (
            "message_search CROSS JOIN message_search_ends e ON e.id = message_search.rowid"
                .to_owned(),
            "message_search.rowid DESC",
        ),
        Scope::Everything | Scope::NewerThan(_) | Scope::Indexed(_) => {
            ("message_search".to_owned(), "message_search.rowid DESC")
        }
    };
    let mut sql = format!(
        "SELECT message_search.rowid, m.conversation_id, c.title, c.updated_at, m.seq, m.role, message_search.text
         FROM {tables}
         CROSS JOIN messages m ON m.id = message_search.rowid
         JOIN conversations c ON c.id = m.conversation_id
         WHERE c.deleted_at IS NULL AND m.deleted_at IS NULL"
    );
    let mut parameters = Vec::new();
    let mut expression: Vec<String> = Vec::new();
    match scope {
        Scope::Everything => {}
        Scope::NewerThan(id) => {
            sql.push_str(" AND message_search.rowid > ?");
            parameters.push(SqlValue::Integer(*id));
        }
        Scope::Indexed(candidates) => expression.push(format!("({candidates})")),
        Scope::Ends {
            condition, values, ..
        }
        | Scope::IndexedWithEnds { condition, values } => {
            sql.push_str(" AND ");
            sql.push_str(condition);
            parameters.extend(values.iter().cloned());
        }
    }
    expression.extend(terms.indexed_expression());
    if !expression.is_empty() {
        sql.push_str(" AND message_search MATCH ?");
        parameters.push(SqlValue::Text(expression.join(" AND ")));
    }
    for term in &terms.short {
        sql.push_str(" AND message_search.text LIKE ? ESCAPE '\\'");
        parameters.push(SqlValue::Text(format!("%{}%", escape_like(term))));
    }
    sql.push_str(" ORDER BY ");
    sql.push_str(newest_first);
    sql.push_str(" LIMIT ?");
    parameters.push(SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    (sql, parameters)
}

/// `text` as one FTS5 phrase, matched literally.
pub(super) fn phrase(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

fn escape_like(term: &str) -> String {
    let mut escaped = String::with_capacity(term.len());
    for character in term.chars() {
        if matches!(character, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}
