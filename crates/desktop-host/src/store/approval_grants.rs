//! "Allow in this conversation" grants: which tools may run in a conversation without asking, kept so they
//! survive a restart.
//!
//! A grant is keyed by conversation, server and tool; the app's own (built-in) tools are kept under
//! [`BUILT_IN_SERVER`], the empty name, which no MCP server may have. Grants follow their conversation: a
//! soft-deleted conversation's grants are not listed (an undo brings them back) and are removed with it when it
//! is purged.

use rusqlite::{Row, params};

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::store_handle::Store;

/// The server name the app's own tools are granted under (no MCP server may have an empty name).
pub const BUILT_IN_SERVER: &str = "";

/// One "allow in this conversation" grant, as the settings list it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationGrant {
    /// The conversation the grant holds in.
    pub conversation_id: ConversationId,
    /// That conversation's title (`None` until its first user message).
    pub conversation_title: Option<String>,
    /// The tool's MCP server; empty for the app's own tools (see `builtIn`).
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The tool is one of the app's own, not an MCP server's.
    pub built_in: bool,
    /// When the user granted it, ms since the epoch.
    pub granted_at: i64,
}

impl Store {
    /// Keeps "allow `tool` of `server` in conversation `id`". Granting again keeps the first time. The
    /// conversation must exist (a deleted one still takes grants, so an undo brings everything back).
    pub fn grant_in_conversation(
        &self,
        id: &ConversationId,
        server: &str,
        tool: &str,
    ) -> Result<(), StoreError> {
        let now = self.now_ms();
        self.with_conversation_transaction(id, "keep a conversation grant", |transaction| {
            transaction
                .execute(
                    "INSERT INTO conversation_grants (conversation_id, server, tool, granted_at)
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                    params![id.as_str(), server, tool, now],
                )
                .map_err(StoreError::sqlite("keep a conversation grant"))?;
            Ok(())
        })
    }

    /// The grants of conversation `id`, oldest first (none for a conversation that does not exist).
    pub fn conversation_grants(
        &self,
        id: &ConversationId,
    ) -> Result<Vec<ConversationGrant>, StoreError> {
        self.query_grants(
            "list a conversation's grants",
            "WHERE g.conversation_id = ?1 ORDER BY g.granted_at, g.server, g.tool",
            &[id.as_str()],
        )
    }

    /// The grants of every live (not deleted) conversation, newest first, with the conversation's title.
    pub fn all_conversation_grants(&self) -> Result<Vec<ConversationGrant>, StoreError> {
        self.query_grants(
            "list the conversation grants",
            "WHERE c.deleted_at IS NULL ORDER BY g.granted_at DESC, g.conversation_id, g.server, g.tool",
            &[],
        )
    }

    /// Removes one grant; true when there was one to remove.
    pub fn revoke_conversation_grant(
        &self,
        id: &ConversationId,
        server: &str,
        tool: &str,
    ) -> Result<bool, StoreError> {
        let n_rows = self.with_connection(|connection| {
            connection
                .execute(
                    "DELETE FROM conversation_grants WHERE conversation_id = ?1 AND server = ?2 AND tool = ?3",
                    params![id.as_str(), server, tool],
                )
                .map_err(StoreError::sqlite("revoke a conversation grant"))
        })?;
        Ok(n_rows > 0)
    }

    fn query_grants(
        &self,
        operation: &'static str,
        filter_and_order: &str,
        parameters: &[&str],
    ) -> Result<Vec<ConversationGrant>, StoreError> {
        let sql = format!(
            "SELECT g.conversation_id, c.title, g.server, g.tool, g.granted_at
             FROM conversation_grants g JOIN conversations c ON c.id = g.conversation_id
             {filter_and_order}"
        );
        self.with_connection(|connection| {
            let mut statement = connection
                .prepare(&sql)
                .map_err(StoreError::sqlite(operation))?;
            let rows = statement
                .query_map(rusqlite::params_from_iter(parameters), grant_from_row)
                .map_err(StoreError::sqlite(operation))?;
            rows.collect::<Result<Vec<_>, _>>()
                .map_err(StoreError::sqlite(operation))
        })
    }
}

fn grant_from_row(row: &Row<'_>) -> rusqlite::Result<ConversationGrant> {
    let server: String = row.get(2)?;
    Ok(ConversationGrant {
        conversation_id: ConversationId::from(row.get::<_, String>(0)?),
        conversation_title: row.get(1)?,
        built_in: server == BUILT_IN_SERVER,
        server,
        tool: row.get(3)?,
        granted_at: row.get(4)?,
    })
}
