-- The limiter's counters skip the write-ahead log (issue 23): its upsert, on every request,
-- then commits without waiting for a WAL flush. The trade, in docs/architecture.md: after a
-- PostgreSQL crash (not a clean restart) the table comes back empty, so every key's minute and
-- day counts restart from zero; the table is also absent on streaming replicas.
ALTER TABLE "rate_limits" SET UNLOGGED;
