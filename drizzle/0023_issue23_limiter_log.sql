-- The limiter's minute log as bucket ends and running counts (ratelimit/service.ts): deciding and
-- recording take a binary search and a few slices instead of unnesting, summing and sorting the
-- (bucket, count) pairs, which cost the admitting upsert twice a plain one (issue 23). The old
-- columns stay one release: an instance of the previous release, during a rolling deploy, keeps
-- its own minute log in them (each release then admits up to the limit within the minute; the
-- day count is shared and exact), and inserts without the new ones (their defaults).
ALTER TABLE "rate_limits" ALTER COLUMN "hits" SET DEFAULT '{}'::bigint[];--> statement-breakpoint
ALTER TABLE "rate_limits" ADD COLUMN "ends" bigint[] DEFAULT '{}'::bigint[] NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_limits" ADD COLUMN "cum" bigint[] DEFAULT '{0}'::bigint[] NOT NULL;--> statement-breakpoint
-- Today's minute windows carry over: each row's pairs, sorted, as ends and running counts.
UPDATE "rate_limits" r SET "ends" = x.ends, "cum" = x.cum
FROM (
  SELECT key_id, array_agg(b ORDER BY b) AS ends, '{0}'::bigint[] || array_agg(s ORDER BY b) AS cum
  FROM (
    SELECT key_id, b, sum(coalesce(c, 1)) OVER (PARTITION BY key_id ORDER BY b)::bigint AS s
    FROM (SELECT key_id, b, sum(coalesce(c, 1)) AS c FROM "rate_limits", unnest(hits, counts) AS u(b, c)
          WHERE b IS NOT NULL GROUP BY key_id, b) pairs
  ) y
  GROUP BY key_id
) x
WHERE r.key_id = x.key_id;
