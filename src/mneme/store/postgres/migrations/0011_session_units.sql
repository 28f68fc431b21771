-- mneme schema 11: a conversation's recent units (ADR 0026); see the SQLite migration.
CREATE INDEX IF NOT EXISTS units_session ON units (bank_id, (metadata->>'session_id'));
