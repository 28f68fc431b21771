-- mneme schema 13: legal erasure may blank a review event's note (ADR 0036).
-- Review events stay append-only in every other respect: an update is refused unless it
-- changes nothing but the note, and sets it to the empty string.
CREATE OR REPLACE FUNCTION mneme_review_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.note = ''
       AND (to_jsonb(NEW) - 'note') = (to_jsonb(OLD) - 'note') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'review events are append-only'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
