//! Full-text search over every message of the live conversations: every version and branch, not only the shown
//! one (see `branches`); messages deleted with their pair are left out at once.
//!
//! The index (`message_search`, FTS5 with the trigram tokenizer) holds each message's readable text. A query is
//! split at whitespace into terms that must all occur, as substrings and case-insensitively: terms of three or
//! more characters go through the index (`MATCH` on a quoted phrase), shorter ones (a one- or two-character
//! Chinese word, say) through `LIKE` on the same table. Substring matching is what makes Chinese, which does not
//! separate words with spaces, searchable at all.

use rusqlite::params_from_iter;
use rusqlite::types::Value as SqlValue;

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::snippet::{SnippetPart, snippet};
use super::store_handle::Store;

/// Terms shorter than this (in characters) cannot use the trigram index.
const TRIGRAM_CHARS: usize = 3;

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
        let mut terms: Vec<String> = Vec::new();
        for term in query.split_whitespace() {
            if !terms.iter().any(|known| known == term) {
                terms.push(term.to_owned());
            }
        }
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let (sql, parameters) = search_statement(&terms, limit);
        let rows = self.with_connection(|connection| {
            let mut statement = connection
                .prepare(&sql)
                .map_err(StoreError::sqlite("search messages"))?;
            let rows = statement
                .query_map(params_from_iter(parameters), |row| {
                    Ok((
                        ConversationId::from(row.get::<_, String>(0)?),
                        row.get::<_, Option<String>>(1)?,
                        row.get::<_, i64>(2)?,
                        row.get::<_, i64>(3)?,
                        row.get::<_, String>(4)?,
                        row.get::<_, String>(5)?,
                    ))
                })
                .map_err(StoreError::sqlite("search messages"))?;
            rows.collect::<Result<Vec<_>, _>>()
                .map_err(StoreError::sqlite("search messages"))
        })?;
        let mut hits: Vec<SearchHit> = rows
            .into_iter()
            .map(
                |(
                    conversation_id,
                    conversation_title,
                    conversation_updated_at,
                    message_seq,
                    role,
                    text,
                )| SearchHit {
                    conversation_id,
                    conversation_title,
                    conversation_updated_at,
                    message_seq,
                    role,
                    snippet: snippet(&text, &terms),
                },
            )
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

fn search_statement(terms: &[String], limit: usize) -> (String, Vec<SqlValue>) {
    let mut sql = String::from(
        "SELECT m.conversation_id, c.title, c.updated_at, m.seq, m.role, message_search.text
         FROM message_search
         JOIN messages m ON m.id = message_search.rowid
         JOIN conversations c ON c.id = m.conversation_id
         WHERE c.deleted_at IS NULL AND m.deleted_at IS NULL",
    );
    let mut parameters = Vec::new();
    let (indexed, short): (Vec<&String>, Vec<&String>) = terms
        .iter()
        .partition(|term| term.chars().count() >= TRIGRAM_CHARS);
    if !indexed.is_empty() {
        let phrases: Vec<String> = indexed
            .iter()
            .map(|term| format!("\"{}\"", term.replace('"', "\"\"")))
            .collect();
        sql.push_str(" AND message_search MATCH ?");
        parameters.push(SqlValue::Text(phrases.join(" AND ")));
    }
    for term in short {
        sql.push_str(" AND message_search.text LIKE ? ESCAPE '\\'");
        parameters.push(SqlValue::Text(format!("%{}%", escape_like(term))));
    }
    // Newest messages first, in the index's own order: SQLite walks the matches from the end and stops at the
    // limit, instead of collecting every match of a frequent term (hundreds of thousands in a year of history)
    // to sort them by conversation.
    sql.push_str(" ORDER BY message_search.rowid DESC LIMIT ?");
    parameters.push(SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    (sql, parameters)
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
