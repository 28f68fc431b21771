-- mneme schema 10: which units changed, in order (ADR 0025). A process's in-memory vector index
-- catches up with another process's writes by reading the units named here since it last
-- looked, instead of every unit's state and every knower of the bank (O(bank) per foreign
-- commit: 4.6 s per recall at 420k units beside a busy writer). Triggers keep it, so no write
-- path can forget to; the writer prunes it to its newest rows (a reader further behind reads
-- everything, as before).

CREATE TABLE unit_changes (
    seq      INTEGER PRIMARY KEY,
    bank_id  TEXT NOT NULL,
    unit_id  TEXT NOT NULL,
    gone     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX unit_changes_bank ON unit_changes (bank_id, seq);

CREATE TRIGGER unit_changes_state AFTER UPDATE OF status, valid_from, valid_until ON units
BEGIN
    INSERT INTO unit_changes (bank_id, unit_id) VALUES (NEW.bank_id, NEW.id);
END;

CREATE TRIGGER unit_changes_gone AFTER DELETE ON units
BEGIN
    INSERT INTO unit_changes (bank_id, unit_id, gone) VALUES (OLD.bank_id, OLD.id, 1);
END;

CREATE TRIGGER unit_changes_knower_added AFTER INSERT ON unit_knowers
BEGIN
    INSERT INTO unit_changes (bank_id, unit_id) VALUES (NEW.bank_id, NEW.unit_id);
END;

CREATE TRIGGER unit_changes_knower_removed AFTER DELETE ON unit_knowers
BEGIN
    INSERT INTO unit_changes (bank_id, unit_id) VALUES (OLD.bank_id, OLD.unit_id);
END;
