-- usage_daily in shards: each connection adds to its own row of a key's day (pg_backend_pid() % 8),
-- so one key's concurrent replies no longer wait on one row lock until commit. Readers sum a
-- day's shards. Existing rows are shard 0.
ALTER TABLE "usage_daily" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_key_id_day_pk";--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_key_id_day_shard_pk" PRIMARY KEY("key_id","day","shard");--> statement-breakpoint
-- Requests are the limiter's own count: rate_limits.day_count (admitted requests of the row's
-- day) is read live for the current day, and written to usage_daily once, when the row moves to
-- a new day. Counting no longer writes a row per request. Today's counts already in usage_daily
-- (from 0017's trigger) are the same requests as day_count: taken out so they are not counted twice.
DROP TRIGGER rate_limits_count_request ON rate_limits;--> statement-breakpoint
UPDATE usage_daily u SET requests = greatest(0, u.requests - r.day_count)
  FROM rate_limits r WHERE r.key_id = u.key_id AND r.day = u.day;--> statement-breakpoint
CREATE OR REPLACE FUNCTION parley_count_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily (key_id, day, shard, requests) VALUES (OLD.key_id, OLD.day, pg_backend_pid() % 8, OLD.day_count)
  ON CONFLICT (key_id, day, shard) DO UPDATE SET requests = usage_daily.requests + excluded.requests;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER rate_limits_close_day AFTER UPDATE ON rate_limits
  FOR EACH ROW WHEN (NEW.day > OLD.day) EXECUTE FUNCTION parley_count_request();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION parley_count_turn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily (key_id, day, shard, turns, input_tokens, output_tokens)
  SELECT c.key_id, (NEW.created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 8, 1,
    coalesce(NEW.input_tokens, 0), coalesce(NEW.output_tokens, 0)
  FROM conversations c WHERE c.id = NEW.conversation_id
  ON CONFLICT (key_id, day, shard) DO UPDATE SET turns = usage_daily.turns + 1,
    input_tokens = usage_daily.input_tokens + excluded.input_tokens,
    output_tokens = usage_daily.output_tokens + excluded.output_tokens;
  RETURN NULL;
END $$;
