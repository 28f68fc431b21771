-- mneme schema 12: times are written with a four-digit year. Before, a year under 1000
-- was written short ("1-01-01T..."): the fixed width the SQL compares broke and the row
-- could not be read back (issue 16). Each short year is padded in place; reads accept one
-- too. The append-only guards step aside for this repair only, inside its transaction.
UPDATE banks SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
DROP TRIGGER IF EXISTS sources_immutable;
UPDATE sources SET mentioned_at = substr('000', 1, 5 - instr(mentioned_at, '-')) || mentioned_at
    WHERE mentioned_at GLOB '[0-9]*' AND instr(mentioned_at, '-') BETWEEN 2 AND 4;
UPDATE sources SET occurred_at = substr('000', 1, 5 - instr(occurred_at, '-')) || occurred_at
    WHERE occurred_at GLOB '[0-9]*' AND instr(occurred_at, '-') BETWEEN 2 AND 4;
UPDATE sources SET recorded_at = substr('000', 1, 5 - instr(recorded_at, '-')) || recorded_at
    WHERE recorded_at GLOB '[0-9]*' AND instr(recorded_at, '-') BETWEEN 2 AND 4;
CREATE TRIGGER sources_immutable BEFORE UPDATE ON sources
BEGIN
    SELECT RAISE(ABORT, 'sources are immutable');
END;
UPDATE units SET mentioned_at = substr('000', 1, 5 - instr(mentioned_at, '-')) || mentioned_at
    WHERE mentioned_at GLOB '[0-9]*' AND instr(mentioned_at, '-') BETWEEN 2 AND 4;
UPDATE units SET occurred_end = substr('000', 1, 5 - instr(occurred_end, '-')) || occurred_end
    WHERE occurred_end GLOB '[0-9]*' AND instr(occurred_end, '-') BETWEEN 2 AND 4;
UPDATE units SET occurred_start = substr('000', 1, 5 - instr(occurred_start, '-')) || occurred_start
    WHERE occurred_start GLOB '[0-9]*' AND instr(occurred_start, '-') BETWEEN 2 AND 4;
UPDATE units SET recorded_at = substr('000', 1, 5 - instr(recorded_at, '-')) || recorded_at
    WHERE recorded_at GLOB '[0-9]*' AND instr(recorded_at, '-') BETWEEN 2 AND 4;
UPDATE units SET retired_at = substr('000', 1, 5 - instr(retired_at, '-')) || retired_at
    WHERE retired_at GLOB '[0-9]*' AND instr(retired_at, '-') BETWEEN 2 AND 4;
UPDATE units SET valid_from = substr('000', 1, 5 - instr(valid_from, '-')) || valid_from
    WHERE valid_from GLOB '[0-9]*' AND instr(valid_from, '-') BETWEEN 2 AND 4;
UPDATE units SET valid_until = substr('000', 1, 5 - instr(valid_until, '-')) || valid_until
    WHERE valid_until GLOB '[0-9]*' AND instr(valid_until, '-') BETWEEN 2 AND 4;
UPDATE unit_knowers SET first_at = substr('000', 1, 5 - instr(first_at, '-')) || first_at
    WHERE first_at GLOB '[0-9]*' AND instr(first_at, '-') BETWEEN 2 AND 4;
UPDATE unit_evidence SET at = substr('000', 1, 5 - instr(at, '-')) || at
    WHERE at GLOB '[0-9]*' AND instr(at, '-') BETWEEN 2 AND 4;
UPDATE edges SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
UPDATE agents SET first_seen = substr('000', 1, 5 - instr(first_seen, '-')) || first_seen
    WHERE first_seen GLOB '[0-9]*' AND instr(first_seen, '-') BETWEEN 2 AND 4;
UPDATE agents SET last_seen = substr('000', 1, 5 - instr(last_seen, '-')) || last_seen
    WHERE last_seen GLOB '[0-9]*' AND instr(last_seen, '-') BETWEEN 2 AND 4;
UPDATE audit_log SET at = substr('000', 1, 5 - instr(at, '-')) || at
    WHERE at GLOB '[0-9]*' AND instr(at, '-') BETWEEN 2 AND 4;
UPDATE audit_log SET purged_at = substr('000', 1, 5 - instr(purged_at, '-')) || purged_at
    WHERE purged_at GLOB '[0-9]*' AND instr(purged_at, '-') BETWEEN 2 AND 4;
UPDATE ingest_queue SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
UPDATE ingest_queue SET updated_at = substr('000', 1, 5 - instr(updated_at, '-')) || updated_at
    WHERE updated_at GLOB '[0-9]*' AND instr(updated_at, '-') BETWEEN 2 AND 4;
UPDATE claims SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
UPDATE claims SET first_evidence_at = substr('000', 1, 5 - instr(first_evidence_at, '-')) || first_evidence_at
    WHERE first_evidence_at GLOB '[0-9]*' AND instr(first_evidence_at, '-') BETWEEN 2 AND 4;
UPDATE claims SET last_evidence_at = substr('000', 1, 5 - instr(last_evidence_at, '-')) || last_evidence_at
    WHERE last_evidence_at GLOB '[0-9]*' AND instr(last_evidence_at, '-') BETWEEN 2 AND 4;
UPDATE claims SET reviewed_at = substr('000', 1, 5 - instr(reviewed_at, '-')) || reviewed_at
    WHERE reviewed_at GLOB '[0-9]*' AND instr(reviewed_at, '-') BETWEEN 2 AND 4;
UPDATE claims SET updated_at = substr('000', 1, 5 - instr(updated_at, '-')) || updated_at
    WHERE updated_at GLOB '[0-9]*' AND instr(updated_at, '-') BETWEEN 2 AND 4;
DROP TRIGGER IF EXISTS review_events_append_only_update;
UPDATE review_events SET at = substr('000', 1, 5 - instr(at, '-')) || at
    WHERE at GLOB '[0-9]*' AND instr(at, '-') BETWEEN 2 AND 4;
CREATE TRIGGER review_events_append_only_update BEFORE UPDATE ON review_events
BEGIN
    SELECT RAISE(ABORT, 'review events are append-only');
END;
UPDATE tombstones SET at = substr('000', 1, 5 - instr(at, '-')) || at
    WHERE at GLOB '[0-9]*' AND instr(at, '-') BETWEEN 2 AND 4;
UPDATE tombstones SET lifted_at = substr('000', 1, 5 - instr(lifted_at, '-')) || lifted_at
    WHERE lifted_at GLOB '[0-9]*' AND instr(lifted_at, '-') BETWEEN 2 AND 4;
UPDATE conflicts SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
UPDATE conflicts SET resolved_at = substr('000', 1, 5 - instr(resolved_at, '-')) || resolved_at
    WHERE resolved_at GLOB '[0-9]*' AND instr(resolved_at, '-') BETWEEN 2 AND 4;
UPDATE adopted_rules SET adopted_at = substr('000', 1, 5 - instr(adopted_at, '-')) || adopted_at
    WHERE adopted_at GLOB '[0-9]*' AND instr(adopted_at, '-') BETWEEN 2 AND 4;
UPDATE adopted_rules SET retired_at = substr('000', 1, 5 - instr(retired_at, '-')) || retired_at
    WHERE retired_at GLOB '[0-9]*' AND instr(retired_at, '-') BETWEEN 2 AND 4;
UPDATE reconsolidation SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
UPDATE reconsolidation SET done_at = substr('000', 1, 5 - instr(done_at, '-')) || done_at
    WHERE done_at GLOB '[0-9]*' AND instr(done_at, '-') BETWEEN 2 AND 4;
UPDATE sweep_proposals SET created_at = substr('000', 1, 5 - instr(created_at, '-')) || created_at
    WHERE created_at GLOB '[0-9]*' AND instr(created_at, '-') BETWEEN 2 AND 4;
UPDATE sweep_proposals SET decided_at = substr('000', 1, 5 - instr(decided_at, '-')) || decided_at
    WHERE decided_at GLOB '[0-9]*' AND instr(decided_at, '-') BETWEEN 2 AND 4;
