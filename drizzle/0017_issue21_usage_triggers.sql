-- Usage per key and UTC day (usage_daily), counted inside statements every request already
-- runs, so counting adds no round trip: the limiter's admitting upsert on rate_limits counts a
-- request on the row's (counting) day; the statement that ends a reply (in_progress -> a
-- terminal status) counts a chat turn and its tokens on the day the reply started.
CREATE FUNCTION parley_count_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily (key_id, day, requests) VALUES (NEW.key_id, NEW.day, 1)
  ON CONFLICT (key_id, day) DO UPDATE SET requests = usage_daily.requests + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER rate_limits_count_request AFTER INSERT OR UPDATE ON rate_limits
  FOR EACH ROW EXECUTE FUNCTION parley_count_request();
--> statement-breakpoint
CREATE FUNCTION parley_count_turn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily (key_id, day, turns, input_tokens, output_tokens)
  SELECT c.key_id, (NEW.created_at AT TIME ZONE 'UTC')::date, 1,
    coalesce(NEW.input_tokens, 0), coalesce(NEW.output_tokens, 0)
  FROM conversations c WHERE c.id = NEW.conversation_id
  ON CONFLICT (key_id, day) DO UPDATE SET turns = usage_daily.turns + 1,
    input_tokens = usage_daily.input_tokens + excluded.input_tokens,
    output_tokens = usage_daily.output_tokens + excluded.output_tokens;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_count_turn AFTER UPDATE OF status ON messages
  FOR EACH ROW WHEN (OLD.status = 'in_progress' AND NEW.status <> 'in_progress' AND NEW.role = 'assistant')
  EXECUTE FUNCTION parley_count_turn();
