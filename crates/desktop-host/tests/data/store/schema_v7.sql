-- A database as schema version 7 left it: version 6 plus what search needs for terms of one or two characters
-- (the index's vocabulary, each indexed text's folded last one and two characters); no index of the rows marked
-- deleted yet.
CREATE TABLE conversations (
    id TEXT PRIMARY KEY NOT NULL,
    title TEXT,
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER,
    head_seq INTEGER
);
CREATE INDEX conversations_by_update ON conversations (updated_at DESC);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    body TEXT NOT NULL,
    complete INTEGER NOT NULL,
    saved_at INTEGER NOT NULL,
    parent_seq INTEGER,
    deleted_at INTEGER,
    UNIQUE (conversation_id, seq)
);
CREATE INDEX messages_by_parent ON messages (conversation_id, parent_seq);
CREATE VIRTUAL TABLE message_search USING fts5 (text, tokenize = 'trigram');
CREATE TRIGGER messages_leave_search AFTER DELETE ON messages BEGIN
    DELETE FROM message_search WHERE rowid = old.id;
END;
CREATE TABLE conversation_grants (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    granted_at INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, server, tool)
) WITHOUT ROWID;

CREATE TABLE run_logs (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    started_at INTEGER NOT NULL,
    messages_before INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    raw_bytes INTEGER NOT NULL,
    log BLOB NOT NULL,
    summary TEXT NOT NULL
);
CREATE INDEX run_logs_by_conversation ON run_logs (conversation_id, id);
CREATE VIRTUAL TABLE message_search_vocab USING fts5vocab (message_search, 'row');
CREATE TABLE message_search_ends (id INTEGER PRIMARY KEY, last1 TEXT, last2 TEXT);
CREATE TRIGGER messages_leave_search_ends AFTER DELETE ON messages BEGIN
    DELETE FROM message_search_ends WHERE id = old.id;
END;
CREATE INDEX message_search_ends_by_last1 ON message_search_ends (last1);
CREATE INDEX message_search_ends_by_last2 ON message_search_ends (last2);

INSERT INTO conversations VALUES ('c-old', 'Old kettle talk', 'scripted-1', 1700000000000, 1700000005000, NULL, 2);
INSERT INTO conversations VALUES ('c-older', NULL, NULL, 1690000000000, 1690000000000, NULL, NULL);
INSERT INTO conversations VALUES ('c-deleted', 'Deleted long ago', NULL, 1680000000000, 1680000000000, 1680000001000, 0);
INSERT INTO messages VALUES (1, 'c-old', 0, 'user', '{"role":"user","content":"Where is my kettle?","timestamp":1700000000000}', 1, 1700000000000, NULL, NULL);
INSERT INTO messages VALUES (2, 'c-old', 1, 'assistant', '{"role":"assistant","content":[{"type":"text","text":"厨房的水壶在架子上。"}],"api":"scripted","provider":"scripted","model":"scripted-1","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1700000004000}', 1, 1700000004000, 0, NULL);
INSERT INTO messages VALUES (3, 'c-old', 2, 'assistant', '{"role":"assistant","content":[{"type":"text","text":"And the tea"}],"api":"scripted","provider":"scripted","model":"scripted-1","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1700000005000}', 0, 1700000005000, 1, NULL);
INSERT INTO message_search (rowid, text) VALUES (1, 'Where is my kettle?');
INSERT INTO message_search (rowid, text) VALUES (2, '厨房的水壶在架子上。');
INSERT INTO message_search (rowid, text) VALUES (3, 'And the tea');
INSERT INTO message_search_ends VALUES (1, '?', 'e?');
INSERT INTO message_search_ends VALUES (2, '。', '上。');
INSERT INTO message_search_ends VALUES (3, 'a', 'ea');
INSERT INTO run_logs VALUES (1, 'c-old', 1700000000000, 0, 0, 0, X'', '{}');

PRAGMA user_version = 7;
