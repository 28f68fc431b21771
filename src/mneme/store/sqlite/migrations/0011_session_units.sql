-- mneme schema 11: a conversation's recent units (ADR 0026). The write path judges a new
-- statement against the latest statements of its own session too ("Actually, change it to
-- Big 4" names no restaurant; the session says which one it corrects).
CREATE INDEX units_session ON units (bank_id, json_extract(metadata, '$.session_id'));
