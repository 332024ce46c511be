-- A reply stores one message_events row per event (about 60 for a short chat), and the foreign
-- key checked each row against messages: in a chat's final statement the checks cost as much as
-- the inserts (auto_explain: 0.43 ms a statement, issue 23). Every insert takes message_id from
-- the messages row the same statement inserted or locked (replies/statements.ts), so an event
-- cannot point at a missing reply; what the key still gave, its ON DELETE CASCADE, is this
-- statement-level trigger: one DELETE per statement that deletes messages (a conversation's
-- cascade included), whose fresh snapshot also sees events a concurrent reply committed while
-- the delete waited on its row lock.
ALTER TABLE "message_events" DROP CONSTRAINT "message_events_message_id_messages_id_fk";
--> statement-breakpoint
CREATE FUNCTION parley_delete_message_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM message_events e USING gone g WHERE e.message_id = g.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_delete_events AFTER DELETE ON messages
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION parley_delete_message_events();
