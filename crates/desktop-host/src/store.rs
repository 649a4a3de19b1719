//! Conversations on disk: an embedded SQLite database with versioned migrations and full-text search.
