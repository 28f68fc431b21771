-- mneme schema 13: legal erasure may blank a review event's note (ADR 0036).
-- Review events stay append-only in every other respect: an update is refused unless it
-- changes nothing but the note, and sets it to the empty string.
DROP TRIGGER IF EXISTS review_events_append_only_update;
CREATE TRIGGER review_events_append_only_update BEFORE UPDATE ON review_events
WHEN NOT (
    new.note = '' AND new.seq IS old.seq AND new.bank_id IS old.bank_id AND new.id IS old.id
    AND new.target_kind IS old.target_kind AND new.target_id IS old.target_id
    AND new.decision IS old.decision AND new.actor IS old.actor AND new.at IS old.at
    AND new.prior_status IS old.prior_status
    AND new.prior_review_status IS old.prior_review_status
    AND new.new_status IS old.new_status AND new.new_review_status IS old.new_review_status
    AND new.metadata IS old.metadata
)
BEGIN
    SELECT RAISE(ABORT, 'review events are append-only');
END;
